package dev.sandjar.server;

import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.fetch.FetchConfig;
import dev.sandjar.bridges.secrets.SecretStore;
import dev.sandjar.bridges.video.VideoConfig;
import dev.sandjar.host.EngineException;
import dev.sandjar.host.HostIsolation;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.Diagnostic;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.packs.ModuleDelivery;
import dev.sandjar.packs.ModuleDeliveryException;
import dev.sandjar.packs.ModuleSummary;
import dev.sandjar.packs.Trust;
import dev.sandjar.packs.WasmDelivery;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sandjar over HTTP: runs (JSON or Server-Sent Events), cancellation, the pack catalog, module
 * delivery for runners that load modules over HTTP, health, readiness, Prometheus metrics and an
 * OpenAPI document (docs/server.md has every route, policy field and error code).
 *
 * <pre>{@code
 * SandjarServer server = SandjarServer.builder()
 *         .tokensFile(Path.of("tokens.json"))
 *         .port(8470)
 *         .build()
 *         .start();
 * // ... on shutdown:
 * server.stop(); // drains runs in flight first
 * }</pre>
 *
 * <p>Standalone ({@link #start()}) it owns a Javalin app; embedded ({@link #install}) it adds its
 * routes, under the same policies, to a Javalin app the caller owns and starts. Either way it owns
 * the {@link Sandbox} it built (one given to the builder stays the caller's). Thread-safe: routes
 * run on Jetty's threads; {@link #reloadTokens}, {@link #stop} may be called from any thread.
 */
public final class SandjarServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SandjarServer.class);

    /** The default port of {@code ./sandjar serve}. */
    public static final int DEFAULT_PORT = 8470;

    public static final long DEFAULT_MAX_BODY_BYTES = 5L * 1000 * 1000;
    public static final Duration DEFAULT_DRAIN_GRACE = Duration.ofSeconds(30);
    public static final Duration DEFAULT_WARM_UP = Duration.ofSeconds(3);

    static final String REQUEST_ID = "X-Request-Id";
    private static final Pattern CLIENT_REQUEST_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");
    private static final String TOKEN_KEY = "sandjar.token";
    private static final String JSON = "application/json";
    private static final String NOT_FOUND_MODULE =
            ResultJson.apiError("NOT_FOUND", "no module is delivered under that id");

    /** How long {@link #stop} lets run handlers write the results drain left them. */
    private static final Duration ANSWER_GRACE = Duration.ofSeconds(5);

    private final Builder config;
    private final Sandbox sandbox;
    private final boolean ownsSandbox;
    private final ModuleCatalog catalog;
    private final Fetch publicFetch;
    private final Fetch privateFetch;
    private final ServerMetrics metrics = new ServerMetrics();
    private final RunService runs;
    private final Policy basePolicy;
    private volatile Tokens tokens;

    /** Who runs under {@code --insecure-no-auth}: everything the server has. */
    private final Tokens.Token anonymous;

    private volatile boolean ready;
    private Javalin app;
    private boolean warmUpStarted;

    /**
     * Set by {@link #start} while its own app is made: the warm-up then starts once the app
     * listens, instead of competing with Jetty's start for the CPU (on two cores it delayed the
     * listening line by 0.6 to 1.5 s).
     */
    private boolean warmUpAfterStart;

    private final AtomicBoolean stopped = new AtomicBoolean();

    private final ServerSessions sessions;

    private final RunnerPage runnerPage = new RunnerPage();

    /** Each token's request bodies of the last minute ({@code maxBodyBytesPerMinute}). */
    private final java.util.Map<String, BodyWindow> bodyWindows =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** {@code POST /api/runs} handlers that have not returned: their clients await an answer. */
    private final AtomicInteger answering = new AtomicInteger();

    private SandjarServer(Builder b) {
        this.config = b;
        this.ownsSandbox = b.sandbox == null;
        this.sandbox = ownsSandbox ? sandbox(b) : b.sandbox;
        int slots = sandbox.poolSize() + b.queue;
        this.basePolicy = basePolicy(sandbox, slots);
        try {
            this.catalog = b.catalog != null ? b.catalog : catalog(sandbox, b.packs, b.packIndex);
            this.publicFetch = Fetch.create(FetchConfig.defaults());
            this.privateFetch =
                    Fetch.create(FetchConfig.builder().withAllowPrivateNetwork(true).build());
            this.tokens =
                    b.tokensFile != null
                            ? Tokens.load(b.tokensFile, basePolicy, sandbox.poolSize())
                            : b.tokens;
        } catch (IOException e) {
            closeOwned();
            throw new IllegalArgumentException(
                    "cannot read the token file " + b.tokensFile + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeOwned();
            throw e;
        }
        this.runs =
                new RunService(
                        sandbox,
                        catalog,
                        publicFetch,
                        privateFetch,
                        b.workspaces,
                        b.video,
                        b.secrets,
                        metrics,
                        slots);
        metrics.pool(sandbox.poolSize(), runs::inFlight);
        this.anonymous =
                new Tokens.Token(
                        "anonymous",
                        new byte[32],
                        Policy.unrestricted(
                                b.secrets == null ? Set.of() : b.secrets.names(),
                                basePolicy.maxTimeoutMs(),
                                basePolicy.maxMemoryMb(),
                                slots,
                                basePolicy.quotas()));
        try {
            this.sessions =
                    new ServerSessions(
                            sandbox,
                            b.sessionsDir,
                            this::tokenNamed,
                            o -> runs.sessionOptions(o, tokenNamed(o.token()).orElseThrow()));
        } catch (RuntimeException e) {
            closeOwned();
            throw e;
        }
        warnIfOversubscribed(tokens);
    }

    /**
     * Logs a warning when the tokens' {@code maxSessions} add up to more than the server's session
     * cap: then tenants at their quotas can together fill the server, and another is refused by the
     * server's cap instead of its own.
     */
    private void warnIfOversubscribed(Tokens t) {
        if (t == null) {
            return;
        }
        long sum = 0;
        for (Tokens.Token token : t.all()) {
            sum += token.policy().quotas().maxSessions();
        }
        if (sum > sandbox.maxSessions()) {
            LOG.warn(
                    "the tokens' maxSessions add up to {}, more than the server's {} sessions: a"
                            + " tenant under its quota may meet the server's cap",
                    sum,
                    sandbox.maxSessions());
        }
    }

    /** The token of this name (the anonymous one when the server has no tokens). */
    private Optional<Tokens.Token> tokenNamed(String name) {
        if (tokens == null) {
            return name.equals(anonymous.name()) ? Optional.of(anonymous) : Optional.empty();
        }
        return tokens.all().stream().filter(t -> t.name().equals(name)).findFirst();
    }

    /** The sandbox a server builds for itself, from its builder's settings. */
    private static Sandbox sandbox(Builder b) {
        HostIsolation isolation;
        if (b.hostWorkers == 0) {
            isolation = HostIsolation.inProcess();
        } else {
            HostIsolation.Builder h =
                    HostIsolation.builder().withHeapBytes((long) b.hostWorkerHeapMb << 20);
            if (b.hostWorkers > 0) {
                h.withWorkers(b.hostWorkers);
            }
            isolation = h.build();
        }
        Sandbox.Builder sb = Sandbox.builder().poolSize(b.pool).hostIsolation(isolation);
        if (b.hostMemoryMb > 0) {
            sb.hostMemoryBytes(b.hostMemoryMb << 20);
        }
        return sb.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The policy a token's policy falls back on and may not exceed: the default capabilities, no
     * secrets, the sandbox's ceilings, every pack and every admission slot.
     */
    static Policy basePolicy(Sandbox sandbox, int slots) {
        return new Policy(
                Set.copyOf(dev.sandjar.bridges.Capabilities.DEFAULTS),
                Set.of(),
                sandbox.ceilings().timeout().toMillis(),
                sandbox.ceilings().heapBytes() >> 20,
                Optional.empty(),
                slots,
                Quotas.bounds(sandbox.maxSessions()));
    }

    private static ModuleCatalog catalog(Sandbox sandbox, List<Path> packs, Path index) {
        ModuleCatalog.Builder c = ModuleCatalog.builder(sandbox).shippedPacks(true);
        if (index != null) {
            c.indexDirectory(index);
        }
        packs.forEach(p -> c.searchPath(p, Trust.UNTRUSTED));
        return c.build();
    }

    /** Starts a Javalin app of its own on the builder's address and port. */
    public SandjarServer start() {
        if (app != null) {
            throw new IllegalStateException("already started");
        }
        warmUpAfterStart = true;
        Javalin javalin =
                Javalin.create(
                        c -> {
                            c.startup.showJavalinBanner = false;
                            c.startup.showOldJavalinVersionWarning = false;
                            c.http.compressionStrategy =
                                    io.javalin.compression.CompressionStrategy.NONE;
                            // Its own Jetty only: an embedding app keeps its error pages.
                            c.jetty.modifyServer(
                                    s -> s.setErrorHandler(new JettyErrors(NOT_FOUND_MODULE)));
                            install(c);
                            c.routes.error(
                                    404,
                                    ctx -> {
                                        if (!isJson(ctx)) {
                                            requestId(ctx);
                                            ctx.contentType(JSON)
                                                    .result(
                                                            ResultJson.apiError(
                                                                    "NOT_FOUND",
                                                                    "no route "
                                                                            + ctx.method()
                                                                            + " "
                                                                            + ctx.path()));
                                        }
                                    });
                        });
        app = javalin;
        javalin.start(config.bind, config.port);
        warmUpAfterStart = false;
        startWarmUp();
        return this;
    }

    private static boolean isJson(Context ctx) {
        String t = ctx.res().getContentType();
        return t != null && t.startsWith(JSON);
    }

    /**
     * Adds the server's routes to a Javalin app the caller configures and starts; call it inside
     * {@code Javalin.create(config -> ...)}. Its before-handlers and error mapping touch only its
     * own paths.
     */
    public void install(JavalinConfig c) {
        c.http.maxRequestSize = config.maxBodyBytes;
        c.requestLogger.http(
                (ctx, ms) ->
                        LOG.info(
                                "{} {} {} {} ms request={} token={}",
                                ctx.method(),
                                ctx.path(),
                                ctx.statusCode(),
                                Math.round(ms),
                                ctx.res().getHeader(REQUEST_ID),
                                tokenName(ctx)));
        for (String path : List.of("/api/*", "/metrics", "/openapi.json")) {
            c.routes.before(path, guarded(this::authenticate));
        }
        c.routes.get("/healthz", guarded(ctx -> ok(ctx, "{\"status\":\"up\"}")));
        c.routes.get("/readyz", guarded(this::readyz));
        c.routes.get("/metrics", guarded(this::metrics));
        c.routes.get("/openapi.json", guarded(this::openApi));
        c.routes.post("/api/runs", guarded(this::postRun));
        c.routes.delete("/api/runs/{id}", guarded(this::deleteRun));
        c.routes.post("/api/nodes/runs", guarded(this::postNodeRun));
        c.routes.post("/api/sessions", guarded(this::openSession));
        c.routes.post("/api/sessions/{id}/runs", guarded(this::postSessionRun));
        c.routes.post("/api/sessions/{id}/fork", guarded(this::forkSession));
        c.routes.delete("/api/sessions/{id}", guarded(this::closeSession));
        c.routes.get("/api/packs", guarded(this::packs));
        c.routes.get("/api/sandbox-modules/<id>", guarded(this::module));
        c.routes.post("/api/runner/host-calls", guarded(this::runnerHostCall));
        c.routes.post("/api/runner/fetches", guarded(this::runnerFetch));
        c.routes.get("/runner/", guarded(runnerPage::index));
        c.routes.get("/runner/{file}", guarded(runnerPage::asset));
        if (!warmUpAfterStart) {
            startWarmUp();
        }
        sessions.restoreInBackground(config.restoreHook);
    }

    /**
     * Completes with how many sessions came back from the sessions directory once the restore pass
     * that starts with the routes is over (at once without a directory).
     */
    CompletableFuture<Integer> sessionsRestored() {
        return sessions.restored();
    }

    private synchronized void startWarmUp() {
        if (warmUpStarted) {
            return;
        }
        warmUpStarted = true;
        if (config.warmUp.isZero()) {
            ready = true;
            return;
        }
        Thread warmUp =
                new Thread(
                        () -> {
                            try {
                                sandbox.warmUp(config.warmUp);
                            } catch (RuntimeException e) {
                                LOG.warn("engine warm-up failed; serving cold: {}", e.getMessage());
                            }
                            ready = true;
                            LOG.info("ready");
                        },
                        "sandjar-warm-up");
        warmUp.setDaemon(true);
        warmUp.start();
    }

    /** The port it listens on (the chosen one, when started on port 0). */
    public int port() {
        if (app == null) {
            throw new IllegalStateException("not started");
        }
        return app.port();
    }

    /** {@code http://ADDR:PORT}, as {@code serve} prints it. */
    public String url() {
        String host = config.bind.contains(":") ? "[" + config.bind + "]" : config.bind;
        return "http://" + host + ":" + port();
    }

    /** Whether the engine is warm and the server is not draining ({@code /readyz}). */
    public boolean isReady() {
        return ready && !runs.draining();
    }

    /**
     * Reads the token file again and swaps it in; runs in flight keep going. On a bad file the old
     * tokens stay and the error is thrown.
     */
    public void reloadTokens() throws IOException {
        if (config.tokensFile == null) {
            throw new IllegalStateException("the server was not given a token file");
        }
        Tokens fresh = Tokens.load(config.tokensFile, basePolicy);
        tokens = fresh;
        warnIfOversubscribed(fresh);
        LOG.info("token file reloaded: {} tokens", fresh.all().size());
    }

    /**
     * Stops accepting runs (503, and {@code /readyz} fails), lets those in flight finish within the
     * drain grace, cancels the rest (their clients get {@code CANCELLED}), then stops the app (if
     * its own) and closes what it owns. Idempotent.
     */
    public void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        int cancelled = runs.drain(config.drainGrace);
        if (cancelled > 0) {
            LOG.info(
                    "drain: cancelled {} runs still in flight after {}",
                    cancelled,
                    config.drainGrace);
        }
        // Every run has its result now, but a handler may not have written it yet; stopping the
        // app first would cut the connection and the client would never hear how its run ended.
        long deadline = System.nanoTime() + ANSWER_GRACE.toNanos();
        while (answering.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (app != null) {
            app.stop();
        }
        sessions.stopRestoring();
        closeOwned();
    }

    @Override
    public void close() {
        stop();
    }

    private void closeOwned() {
        if (publicFetch != null) {
            publicFetch.close();
        }
        if (privateFetch != null) {
            privateFetch.close();
        }
        if (ownsSandbox && sandbox != null) {
            sandbox.close();
        }
    }

    // ---- routes ----

    /**
     * Every handler's exceptions go through {@link ErrorResponses}, the one mapping. A failed
     * handler ends the request: a before-handler's 401 must not go on to the route.
     */
    private Handler guarded(Handler h) {
        return ctx -> {
            requestId(ctx);
            try {
                h.handle(ctx);
            } catch (Exception e) {
                ErrorResponses.respond(ctx, e);
            }
        };
    }

    private static void requestId(Context ctx) {
        if (ctx.res().getHeader(REQUEST_ID) == null) {
            ctx.header(REQUEST_ID, requestId(ctx.header(REQUEST_ID)));
        }
    }

    /** The client's request id when it is a plain token of up to 64 characters, else a new one. */
    static String requestId(String given) {
        return given != null && CLIENT_REQUEST_ID.matcher(given).matches()
                ? given
                : UUID.randomUUID().toString();
    }

    private void authenticate(Context ctx) {
        Tokens.Token token;
        if (tokens == null) {
            token = anonymous;
        } else {
            String auth = ctx.header("Authorization");
            Optional<Tokens.Token> found =
                    auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
                            ? tokens.find(auth.substring(7).trim())
                            : Optional.empty();
            if (found.isEmpty()) {
                ctx.header("WWW-Authenticate", "Bearer");
                throw new ApiException(
                        ApiException.Code.UNAUTHORIZED,
                        "a valid 'Authorization: Bearer TOKEN' header is required");
            }
            token = found.get();
        }
        ctx.attribute(TOKEN_KEY, token);
    }

    private static Tokens.Token token(Context ctx) {
        Tokens.Token t = ctx.attribute(TOKEN_KEY);
        if (t == null) {
            throw new IllegalStateException("route reached without authentication");
        }
        return t;
    }

    private static String tokenName(Context ctx) {
        Tokens.Token t = ctx.attribute(TOKEN_KEY);
        return t == null ? "-" : t.name();
    }

    private static void ok(Context ctx, String json) {
        ctx.status(200).contentType(JSON).result(json);
    }

    private void readyz(Context ctx) {
        if (runs.draining()) {
            throw new ApiException(ApiException.Code.DRAINING, "the server is draining");
        }
        if (!ready) {
            throw new ApiException(ApiException.Code.DRAINING, "the engine is warming up");
        }
        ok(ctx, "{\"status\":\"ready\"}");
    }

    private void metrics(Context ctx) {
        ctx.status(200)
                .contentType("text/plain; version=0.0.4; charset=utf-8")
                .result(metrics.scrape());
    }

    private void openApi(Context ctx) throws IOException {
        try (InputStream in = SandjarServer.class.getResourceAsStream("openapi.json")) {
            if (in == null) {
                throw new IllegalStateException("openapi.json is missing from the jar");
            }
            ok(ctx, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private byte[] body(Context ctx) throws IOException {
        long max = config.maxBodyBytes;
        long declared = ctx.req().getContentLengthLong();
        Tokens.Token token = token(ctx);
        BodyWindow window = bodyWindows.computeIfAbsent(token.name(), n -> new BodyWindow());
        long quota = token.policy().quotas().maxBodyBytesPerMinute();
        if (declared > 0 && declared <= max) {
            try {
                window.take(declared, quota); // refused before any of it is parsed
            } catch (ApiException refused) {
                // Read and drop it (at most the body limit), so the client reads the 429 instead of
                // a connection broken under its upload; reading costs little, parsing is the cost.
                try (InputStream in = ctx.req().getInputStream()) {
                    swallow(in, declared);
                }
                throw refused;
            }
        }
        if (declared > max) {
            if (declared - max <= SWALLOW_BYTES) {
                try (InputStream in = ctx.req().getInputStream()) {
                    swallow(in, declared);
                }
            }
            throw new ApiException(
                    ApiException.Code.PAYLOAD_TOO_LARGE,
                    "the body is " + declared + " bytes; the limit is " + max);
        }
        String type = ctx.header("Content-Type");
        if (type != null && !type.toLowerCase(java.util.Locale.ROOT).startsWith(JSON)) {
            throw new ApiException(
                    ApiException.Code.UNSUPPORTED_MEDIA_TYPE,
                    "the body must be application/json, got " + type);
        }
        byte[] body;
        try (InputStream in = ctx.req().getInputStream()) {
            body = in.readNBytes(Math.toIntExact(max + 1)); // one more tells a body over it
            if (body.length > max) {
                swallow(in, SWALLOW_BYTES); // the rest of a chunked body, as much as that
            }
        }
        if (body.length > max) {
            throw new ApiException(
                    ApiException.Code.PAYLOAD_TOO_LARGE,
                    "the body is over the limit of " + max + " bytes");
        }
        if (declared <= 0) {
            window.take(body.length, quota); // chunked: counted once read, before it is parsed
        }
        return body;
    }

    /**
     * The bytes of request bodies a token sent in the last minute (a sliding window), against its
     * {@code maxBodyBytesPerMinute}: parsing a body costs the server CPU and heap that every tenant
     * shares, before any run of the token starts.
     */
    private static final class BodyWindow {
        private static final long MINUTE_NANOS = 60_000_000_000L;
        private final java.util.ArrayDeque<long[]> sent = new java.util.ArrayDeque<>();
        private long total;

        synchronized void take(long bytes, long quota) {
            long now = System.nanoTime();
            while (!sent.isEmpty() && now - sent.peekFirst()[0] >= MINUTE_NANOS) {
                total -= sent.removeFirst()[1];
            }
            if (total + bytes > quota) {
                long wait = sent.isEmpty() ? 0 : sent.peekFirst()[0] + MINUTE_NANOS - now;
                long seconds = Math.max(1, (wait + 999_999_999) / 1_000_000_000);
                throw new ApiException(
                        ApiException.Code.TOO_MANY_RUNS,
                        "the token sent "
                                + total
                                + " bytes of request bodies in the last minute; "
                                + bytes
                                + " more would pass its cap (maxBodyBytesPerMinute "
                                + quota
                                + "); retry in "
                                + seconds
                                + " s",
                        java.util.Map.of("Retry-After", Long.toString(seconds)));
            }
            sent.addLast(new long[] {now, bytes});
            total += bytes;
        }
    }

    /**
     * How much of a refused body the server still reads (and drops) so that a client that sends all
     * of it gets to read the 413: answering while the client is still writing makes the connection
     * close under it, and an HTTP client then reports a broken connection instead of the answer. A
     * declared body more than this past the limit is not read at all, a chunked one is read this
     * far past the limit; the connection closes after the answer either way when bytes remain.
     */
    static final long SWALLOW_BYTES = 4L << 20;

    /** Reads and drops at most {@code bytes} more of the request's body. */
    private static void swallow(InputStream in, long bytes) {
        try {
            long left = bytes;
            byte[] sink = new byte[64 * 1024];
            while (left > 0) {
                int n = in.read(sink, 0, (int) Math.min(sink.length, left));
                if (n < 0) {
                    return;
                }
                left -= n;
            }
        } catch (IOException e) {
            // the client went away: there is no one left to answer
        }
    }

    private void postRun(Context ctx) throws Exception {
        answering.incrementAndGet();
        try {
            answerRun(ctx);
        } finally {
            answering.decrementAndGet();
        }
    }

    private void answerRun(Context ctx) throws Exception {
        Tokens.Token token = token(ctx);
        RunBody body = RunBody.parse(body(ctx));
        String accept = ctx.header("Accept");
        boolean sse = accept != null && accept.contains("text/event-stream");
        SseEvents events = sse ? new SseEvents() : null;
        RunService.Listener listener = events != null ? events : SseEvents.NONE;
        RunService.Active run;
        try {
            RunRequest.Builder request = runs.prepare(body, token, listener);
            run = runs.start(request, token);
        } catch (RunService.RefusedImport e) {
            String id = UUID.randomUUID().toString();
            String result = ResultJson.refusedImport(id, e.getMessage());
            if (sse) {
                SseEvents.answerAtOnce(ctx, id, result);
            } else {
                answer(ctx, result);
            }
            return;
        }
        if (sse) {
            events.stream(ctx, run);
            return;
        }
        answer(ctx, ResultJson.result(run.id(), await(run)));
    }

    /**
     * The run's result, on this request's thread; a server stopping meanwhile cancels the run and
     * answers 503.
     */
    private static RunResult await(RunService.Active run) throws Exception {
        try {
            return run.result().get();
        } catch (InterruptedException e) {
            run.run().cancel();
            Thread.currentThread().interrupt();
            throw new ApiException(ApiException.Code.DRAINING, "the server is stopping");
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    private void postNodeRun(Context ctx) throws Exception {
        answering.incrementAndGet();
        try {
            answerNodeRun(ctx);
        } finally {
            answering.decrementAndGet();
        }
    }

    /** A Code-node execution, always streamed: its events are the answer. */
    private void answerNodeRun(Context ctx) throws Exception {
        Tokens.Token token = token(ctx);
        String accept = ctx.header("Accept");
        if (accept == null || !accept.contains("text/event-stream")) {
            throw new ApiException(
                    ApiException.Code.NOT_ACCEPTABLE,
                    "a node's run streams its events: send 'Accept: text/event-stream'");
        }
        RunBody body = RunBody.parseNode(body(ctx));
        RunService.PreparedNode prepared;
        try {
            prepared = runs.prepareNode(body, token);
        } catch (RunService.RefusedImport e) {
            String id = UUID.randomUUID().toString();
            SseEvents.answerAtOnce(ctx, id, ResultJson.refusedImport(id, e.getMessage()));
            return;
        }
        NodeSse events = new NodeSse();
        RunService.ActiveNode started =
                runs.startNode(
                        prepared.node(), prepared.invocation().listener(events).build(), token);
        events.stream(ctx, started);
    }

    /**
     * Writes a run's JSON answer and completes the response before the handler returns (Javalin
     * would write a result only after it), so that once no handler is {@link #answering} every
     * answer has been sent and {@link #stop} may close the connections.
     */
    private static void answer(Context ctx, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        ctx.status(200).contentType(JSON);
        ctx.res().setContentLength(bytes.length);
        try (OutputStream out = ctx.res().getOutputStream()) {
            out.write(bytes);
        }
    }

    /** What a run's result failed with, for {@link ErrorResponses}. */
    static Exception unwrap(ExecutionException e) {
        Throwable c = e.getCause();
        return c instanceof Exception x ? x : new EngineException(String.valueOf(c), c);
    }

    /** A host module's export called for the browser runner's guest ({@link RunnerCalls}). */
    private void runnerHostCall(Context ctx) throws Exception {
        Tokens.Token token = token(ctx);
        byte[] run = RunnerCalls.hostCall(tree(ctx), catalog, token.policy());
        answerRunnerCall(ctx, token, run);
    }

    /** A guest fetch made for the browser runner's guest ({@link RunnerCalls}). */
    private void runnerFetch(Context ctx) throws Exception {
        Tokens.Token token = token(ctx);
        byte[] run = RunnerCalls.fetch(tree(ctx), token.policy());
        if (run == null) {
            ok(ctx, "{\"fetch\":true}");
            return;
        }
        answerRunnerCall(ctx, token, run);
    }

    private com.fasterxml.jackson.databind.JsonNode tree(Context ctx) throws IOException {
        return RunBody.json(body(ctx));
    }

    /** Runs a {@link RunnerCalls} body as {@code POST /api/runs} would, and answers its JSON. */
    private void answerRunnerCall(Context ctx, Tokens.Token token, byte[] runBody)
            throws Exception {
        answering.incrementAndGet();
        try {
            RunService.Active run;
            try {
                run =
                        runs.start(
                                runs.prepare(RunBody.parse(runBody), token, SseEvents.NONE), token);
            } catch (RunService.RefusedImport e) {
                answer(ctx, ResultJson.refusedImport(UUID.randomUUID().toString(), e.getMessage()));
                return;
            }
            answer(ctx, ResultJson.result(run.id(), await(run)));
        } finally {
            answering.decrementAndGet();
        }
    }

    /** The fields of a {@code POST /api/sessions} body; every one is optional. */
    private static final Set<String> SESSION_FIELDS =
            Set.of("limits", "capabilities", "idleTimeoutMs");

    private void openSession(Context ctx) throws IOException {
        Tokens.Token token = token(ctx);
        byte[] raw = body(ctx);
        com.fasterxml.jackson.databind.JsonNode root =
                raw.length == 0 ? RunBody.JSON.createObjectNode() : RunBody.json(raw);
        RunnerCalls.fields(root, SESSION_FIELDS);
        com.fasterxml.jackson.databind.node.ObjectNode asRun = RunBody.JSON.createObjectNode();
        asRun.put("code", "");
        if (root.has("limits")) {
            asRun.set("limits", root.get("limits"));
        }
        if (root.has("capabilities")) {
            com.fasterxml.jackson.databind.JsonNode caps = root.get("capabilities");
            if (!caps.isObject() || caps.size() != (caps.has("withhold") ? 1 : 0)) {
                throw ApiException.badRequest(
                        "a session's capabilities may only withhold defaults ({\"withhold\":"
                            + " [...]}); fetch, workspace and secrets are not offered to sessions");
            }
            asRun.set("capabilities", caps);
        }
        RunBody parsed = RunBody.parse(RunBody.JSON.writeValueAsBytes(asRun));
        long idleMs = 0;
        com.fasterxml.jackson.databind.JsonNode idle = root.get("idleTimeoutMs");
        if (idle != null) {
            if (!idle.isIntegralNumber() || idle.asLong() < 1) {
                throw ApiException.badRequest(
                        "idleTimeoutMs must be a whole number >= 1, got " + idle);
            }
            idleMs = idle.asLong();
        }
        ServerSessions.Opening opening =
                new ServerSessions.Opening(
                        token.name(),
                        List.copyOf(parsed.withhold),
                        Map.copyOf(parsed.limits),
                        idleMs);
        String id = sessions.open(token, opening, runs.sessionOptions(opening, token));
        ok(ctx, "{\"id\":" + quote(id) + "}");
    }

    private void postSessionRun(Context ctx) throws Exception {
        answering.incrementAndGet();
        try {
            Tokens.Token token = token(ctx);
            String id = ctx.pathParam("id");
            sessions.check(id, token); // 404 (or 503) before reading the body
            RunBody body = RunBody.parse(body(ctx));
            RunRequest call = runs.sessionCall(body, token);
            RunResult r = sessions.run(id, token, call, runs);
            answer(ctx, ResultJson.result(r.runId(), r));
        } finally {
            answering.decrementAndGet();
        }
    }

    private void forkSession(Context ctx) {
        String id = sessions.fork(ctx.pathParam("id"), token(ctx));
        ok(ctx, "{\"id\":" + quote(id) + "}");
    }

    private void closeSession(Context ctx) {
        String id = ctx.pathParam("id");
        sessions.close(id, token(ctx));
        ok(ctx, "{\"id\":" + quote(id) + ",\"closed\":true}");
    }

    private void deleteRun(Context ctx) {
        String id = ctx.pathParam("id");
        if (!runs.cancel(id, token(ctx).name())) {
            throw new ApiException(ApiException.Code.NOT_FOUND, "no run of this token has that id");
        }
        ctx.status(202).contentType(JSON).result("{\"id\":" + quote(id) + ",\"cancelling\":true}");
    }

    private static String quote(String s) {
        return ResultJson.write(g -> g.writeString(s));
    }

    private void packs(Context ctx) {
        Policy policy = token(ctx).policy();
        List<ModuleSummary> modules = new ArrayList<>();
        for (ModuleSummary m : catalog.summaries()) {
            if (policy.allowsPack(m.pack())) {
                modules.add(m);
            }
        }
        List<Diagnostic> diagnostics = new ArrayList<>();
        for (Diagnostic d : catalog.diagnostics()) {
            if (d.pack() == null || policy.allowsPack(d.pack())) {
                diagnostics.add(d);
            }
        }
        ok(
                ctx,
                ResultJson.write(
                        g -> {
                            g.writeStartObject();
                            g.writeArrayFieldStart("modules");
                            for (ModuleSummary m : modules) {
                                g.writeStartObject();
                                g.writeStringField("specifier", m.specifier());
                                g.writeStringField("pack", m.pack());
                                g.writeStringField("version", m.version());
                                g.writeStringField("kind", m.kind().id());
                                g.writeStringField("id", m.specifier());
                                g.writeStringField("description", m.description());
                                g.writeStringField("graphDigest", m.graphDigest());
                                g.writeBooleanField("shipped", m.shipped());
                                g.writeEndObject();
                            }
                            g.writeEndArray();
                            g.writeArrayFieldStart("diagnostics");
                            for (Diagnostic d : diagnostics) {
                                g.writeStartObject();
                                g.writeStringField(
                                        "severity",
                                        d.severity().name().toLowerCase(java.util.Locale.ROOT));
                                g.writeStringField("code", d.code());
                                g.writeStringField("pack", d.pack());
                                g.writeStringField("where", d.where());
                                g.writeStringField("message", d.message());
                                g.writeEndObject();
                            }
                            g.writeEndArray();
                            g.writeEndObject();
                        }));
    }

    private void module(Context ctx) {
        Policy policy = token(ctx).policy();
        String id = ctx.pathParam("id");
        if (id.endsWith(WASM_SUFFIX)) {
            wasm(ctx, policy, id.substring(0, id.length() - WASM_SUFFIX.length()));
            return;
        }
        ModuleDelivery d;
        try {
            d = catalog.authorizeDelivery(id);
        } catch (ModuleDeliveryException | IllegalArgumentException e) {
            d = null;
        }
        if (d == null || !policy.allowsPack(d.pack())) {
            metrics.delivery("not_found");
            ctx.status(404).contentType(JSON).result(NOT_FOUND_MODULE);
            return;
        }
        String etag =
                immutable(ctx, d.graphDigest(), d.contentSha256(), d.graphDigest(), d.graphId());
        ctx.header("X-Sandbox-Module-Dependencies", ModuleIds.header(d.dependencyIds()));
        if (d.hostModule() != null) {
            ctx.header("X-Sandbox-Host-Module", d.hostModule());
        }
        if (d.npm() != null) {
            ctx.header("X-Sandbox-Npm", d.npm());
        }
        if (notModified(ctx, etag)) {
            return;
        }
        metrics.delivery("hit");
        ctx.status(200).contentType(ModuleDelivery.MEDIA_TYPE).result(d.source());
    }

    /**
     * The headers of every delivery answer, an immutable body named by its digest; returns the ETag
     * (the quoted {@code etagDigest}).
     */
    private static String immutable(
            Context ctx, String etagDigest, String sha256, String graphDigest, String fileId) {
        String etag = "\"" + etagDigest + "\"";
        ctx.header("ETag", etag);
        ctx.header("Cache-Control", "public, max-age=31536000, immutable");
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Content-Sha256", sha256);
        ctx.header("X-Content-Digest", graphDigest);
        ctx.header("X-Sandbox-File-Id", fileId);
        return etag;
    }

    /** Answers 304 when the client already holds {@code etag}. */
    private boolean notModified(Context ctx, String etag) {
        String inm = ctx.header("If-None-Match");
        if (inm == null || !ModuleIds.matches(inm, etag)) {
            return false;
        }
        metrics.delivery("not_modified");
        ctx.status(304);
        return true;
    }

    /** The delivery id of a WebAssembly module's binary: {@code <specifier>::wasm}. */
    static final String WASM_SUFFIX = "::wasm";

    /**
     * A WebAssembly module's binary, for the browser runner, which calls the module in the page:
     * the same token rule and caching as every delivery; {@code X-Content-Sha256} is the hash its
     * graph digest names, {@code X-Content-Digest} the facade's graph digest, and {@code
     * X-Sandbox-Wasm-Exports} each export as {@code name (params)->result wasmName}.
     */
    private void wasm(Context ctx, Policy policy, String specifier) {
        WasmDelivery w;
        try {
            w = catalog.authorizeWasm(specifier);
        } catch (ModuleDeliveryException | IllegalArgumentException e) {
            w = null;
        }
        if (w == null || !w.specifier().equals(specifier) || !policy.allowsPack(w.pack())) {
            metrics.delivery("not_found");
            ctx.status(404).contentType(JSON).result(NOT_FOUND_MODULE);
            return;
        }
        String etag =
                immutable(
                        ctx, w.sha256(), w.sha256(), w.graphDigest(), w.specifier() + WASM_SUFFIX);
        List<String> exports = new ArrayList<>();
        for (WasmDelivery.Function f : w.functions()) {
            exports.add(
                    f.name()
                            + " ("
                            + String.join(",", f.params())
                            + ")->"
                            + f.result()
                            + " "
                            + f.wasmName());
        }
        ctx.header("X-Sandbox-Wasm-Exports", ModuleIds.header(exports));
        if (notModified(ctx, etag)) {
            return;
        }
        metrics.delivery("hit");
        ctx.status(200).contentType(WasmDelivery.MEDIA_TYPE).result(w.bytes());
    }

    // ---- configuration ----

    /** How a server is built; every setting has a default. Not thread-safe. */
    public static final class Builder {
        private Sandbox sandbox;
        private int pool = Runtime.getRuntime().availableProcessors();
        private int hostWorkers = -1;
        private int hostWorkerHeapMb = 512;
        private long hostMemoryMb;
        private Integer queueSet;
        private int queue;
        private ModuleCatalog catalog;
        private final List<Path> packs = new ArrayList<>();
        private Path packIndex;
        private Tokens tokens;
        private Path tokensFile;
        private boolean insecureNoAuth;
        private String bind = "127.0.0.1";
        private int port = DEFAULT_PORT;
        private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private Duration drainGrace = DEFAULT_DRAIN_GRACE;
        private Duration warmUp = DEFAULT_WARM_UP;
        private Path workspaces;
        private VideoConfig video;
        private Path sessionsDir;
        private Consumer<String> restoreHook = id -> {};
        private SecretStore secrets;

        private Builder() {}

        /** A sandbox the caller owns (its pool size is then the server's); else one is built. */
        public Builder sandbox(Sandbox s) {
            this.sandbox = Objects.requireNonNull(s, "sandbox");
            return this;
        }

        /**
         * Worker processes of the sandbox the server builds, for the host work that runs in them
         * (document parsers, canvas; docs/sandbox.md, "Host work"); default: the pool size, at most
         * 4. 0 runs that work in the server's own JVM instead.
         */
        public Builder hostWorkers(int n) {
            if (n < 0 || n > HostIsolation.MAX_WORKERS) {
                throw new IllegalArgumentException(
                        "hostWorkers ("
                                + n
                                + ") must be between 0 and "
                                + HostIsolation.MAX_WORKERS);
            }
            this.hostWorkers = n;
            return this;
        }

        /** Each worker process's heap, 64 to 16384 MiB; default 512. */
        public Builder hostWorkerHeapMb(int mb) {
            if (mb < 64 || mb > 16384) {
                throw new IllegalArgumentException(
                        "hostWorkerHeapMb (" + mb + ") must be between 64 and 16384");
            }
            this.hostWorkerHeapMb = mb;
            return this;
        }

        /**
         * Host memory all runs may hold at once in the server's JVM ({@code HostMemory}), at least
         * 16 MiB; default half the JVM's maximum heap. Each token's own share is its policy's
         * {@code maxHostMemoryBytes}.
         */
        public Builder hostMemoryMb(long mb) {
            if (mb < 16 || mb > (1L << 30)) {
                throw new IllegalArgumentException("hostMemoryMb (" + mb + ") must be >= 16");
            }
            this.hostMemoryMb = mb;
            return this;
        }

        /** Engine instances of the sandbox the server builds; default: one per core. */
        public Builder pool(int n) {
            if (n < 1 || n > 256) {
                throw new IllegalArgumentException("pool (" + n + ") must be between 1 and 256");
            }
            this.pool = n;
            return this;
        }

        /** Runs admitted beyond the pool's size, waiting for an engine; default 4 × pool. */
        public Builder queue(int n) {
            if (n < 0 || n > 100_000) {
                throw new IllegalArgumentException(
                        "queue (" + n + ") must be between 0 and 100000");
            }
            this.queueSet = n;
            return this;
        }

        /** The module catalog (else one with the shipped packs and {@link #packs}). */
        public Builder catalog(ModuleCatalog c) {
            this.catalog = c;
            return this;
        }

        /**
         * Keeps the catalog's pack index in {@code dir} (docs/packs.md, "The pack index"), so a
         * restart parses only the pack files that changed; none by default. Not used with {@link
         * #catalog}.
         */
        public Builder packIndex(Path dir) {
            this.packIndex = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** A pack search path; its packs are untrusted (docs/packs.md, "Trust"). */
        public Builder packs(Path dir) {
            packs.add(Objects.requireNonNull(dir, "dir"));
            return this;
        }

        public Builder tokens(Tokens t) {
            this.tokens = Objects.requireNonNull(t, "tokens");
            return this;
        }

        /** A token file, read at build and again on {@link #reloadTokens}. */
        public Builder tokensFile(Path file) {
            this.tokensFile = Objects.requireNonNull(file, "file");
            return this;
        }

        /** Serve without tokens: only on a loopback address, every run under every capability. */
        public Builder insecureNoAuth() {
            this.insecureNoAuth = true;
            return this;
        }

        public Builder bind(String address) {
            this.bind = Objects.requireNonNull(address, "bind");
            return this;
        }

        /** 0 picks a free port. */
        public Builder port(int p) {
            if (p < 0 || p > 65535) {
                throw new IllegalArgumentException("port (" + p + ") must be between 0 and 65535");
            }
            this.port = p;
            return this;
        }

        /** Request bodies over this are 413; default 5 MB. */
        public Builder maxBodyBytes(long n) {
            if (n < 1024 || n > 1L << 30) {
                throw new IllegalArgumentException(
                        "maxBodyBytes (" + n + ") must be between 1024 and " + (1L << 30));
            }
            this.maxBodyBytes = n;
            return this;
        }

        /** How long {@link #stop} lets runs in flight finish; default 30 s. */
        public Builder drainGrace(Duration d) {
            if (d.isNegative() || d.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("drainGrace (" + d + ") must be 0 to 1 hour");
            }
            this.drainGrace = d;
            return this;
        }

        /** How long the engine warms before {@code /readyz} passes; zero: ready at once. */
        public Builder warmUp(Duration d) {
            if (d.isNegative() || d.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("warmUp (" + d + ") must be 0 to 10 minutes");
            }
            this.warmUp = d;
            return this;
        }

        /**
         * Lets runs ask for {@code video} (capabilities.video, where the token's policy allows it),
         * run by the ffmpeg {@code config} names; its process cap holds for the whole server. None
         * by default.
         */
        public Builder video(VideoConfig config) {
            this.video = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Where workspaces live: DIR/TOKEN_NAME/WORKSPACE_ID; none by default. */
        public Builder workspaces(Path dir) {
            this.workspaces = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /**
         * Where the server keeps its sessions (docs/sessions.md, "Over HTTP"): each is written
         * there after every call, atomically and authenticated under the key {@code DIR/.key} (made
         * on first start), and the server restores them in the background once its routes are
         * installed. Without it sessions live only in memory.
         */
        public Builder sessionsDir(Path dir) {
            this.sessionsDir = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** Sees each session id before the restore pass reads its file: tests hold it there. */
        Builder restoreHook(Consumer<String> hook) {
            this.restoreHook = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /** The secrets policies may grant by name; none by default. */
        public Builder secrets(SecretStore store) {
            this.secrets = Objects.requireNonNull(store, "secrets");
            return this;
        }

        /**
         * @throws IllegalArgumentException for a bad token file
         * @throws IllegalStateException for no tokens without {@link #insecureNoAuth}, or insecure
         *     on an address that is not loopback
         */
        public SandjarServer build() {
            if (tokens != null && tokensFile != null) {
                throw new IllegalStateException("give tokens or a token file, not both");
            }
            if (tokens == null && tokensFile == null) {
                if (!insecureNoAuth) {
                    throw new IllegalStateException(
                            "no tokens: the server refuses to start unauthenticated; give a token"
                                    + " file (--tokens FILE) or, on a loopback address only,"
                                    + " --insecure-no-auth");
                }
                if (!isLoopback(bind)) {
                    throw new IllegalStateException(
                            "--insecure-no-auth is allowed on a loopback address only, not "
                                    + bind);
                }
            }
            int poolSize = sandbox != null ? sandbox.poolSize() : pool;
            queue = queueSet != null ? queueSet : 4 * poolSize;
            return new SandjarServer(this);
        }

        private static boolean isLoopback(String address) {
            try {
                return InetAddress.getByName(address).isLoopbackAddress();
            } catch (UnknownHostException e) {
                return false;
            }
        }
    }
}
