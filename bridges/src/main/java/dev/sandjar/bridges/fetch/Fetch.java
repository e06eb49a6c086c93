package dev.sandjar.bridges.fetch;

import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunSession;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The guest's {@code fetch(url, options?)}, granted per run: {@code
 * request.bridge(fetch.bridge())}. Thread-safe; one instance may serve many runs. Closing it aborts
 * requests in flight.
 *
 * <p>Guest surface: {@code fetch(url, {method, headers, body, truncate})} returns a Promise of
 * {@code {ok, status, statusText, url, headers, redirected, truncated, bodyUsed, text(), json(),
 * arrayBuffer(), bytes()}}. A string body is sent as UTF-8, a {@code Uint8Array}/{@code
 * ArrayBuffer}/typed array as raw bytes, anything else as JSON with {@code content-type:
 * application/json}. {@code headers} has {@code get}, {@code has}, {@code getAll}, {@code entries},
 * {@code keys}, {@code values}, {@code forEach} and iterates as pairs.
 *
 * <p>Limits, inside the bridge: at most {@code maxCalls} requests per run (default 20, at most
 * 100), counted when started and given back when the request is refused before anything is sent (a
 * bad URL or header, a blocked address, a name that does not resolve), so refusals cannot use up a
 * run's real requests; refusals have their own cap, {@link #MAX_REFUSED} per run, so a guest cannot
 * spin the SSRF guard (and the resolver) without end; the request timeout, body cap and redirect
 * limit of the {@link FetchConfig} (defaults 15 s, 1 MiB, 5 hops); every address the SSRF guard
 * refuses. Errors are {@code FetchError}s whose {@code code} is a {@link FetchException.Code} name,
 * or {@code LIMIT} for the per-run count.
 */
public final class Fetch implements AutoCloseable {
    private static final String GUEST = GuestScripts.load(Fetch.class, "fetch.js");
    public static final int DEFAULT_MAX_CALLS = 20;
    public static final int MAX_CALLS = 100;

    /**
     * Requests refused before they were sent, per run; past it every fetch of the run fails {@code
     * LIMIT}. Each refusal may cost a DNS lookup of a guest-chosen name, so they are bounded too.
     */
    public static final int MAX_REFUSED = 50;

    private final FetchExecutor executor;
    private final int maxCalls;
    private final Bridge bridge;

    private Fetch(FetchConfig config, int maxCalls) {
        if (maxCalls < 1 || maxCalls > MAX_CALLS) {
            throw new InvalidRequestException(
                    "maxCalls (" + maxCalls + ") must be between 1 and " + MAX_CALLS);
        }
        this.executor = FetchExecutor.create(config);
        this.maxCalls = maxCalls;
        this.bridge =
                Bridge.builder("fetch")
                        .guest(GUEST)
                        .operation(
                                Operation.builder("request")
                                        .param(Param.string("url").maxLength(8192))
                                        .param(Param.string("method").maxLength(16))
                                        .param(Param.array("headers").maxLength(256))
                                        .param(Param.bytes("bytes").optional())
                                        .param(Param.string("text").optional())
                                        .param(Param.bool("truncate").optional())
                                        .handler(this::request)
                                        .build())
                        .operation(
                                Operation.builder("decode")
                                        .param(Param.bytes("body"))
                                        .handler(
                                                c -> new String(c.bytes(0), StandardCharsets.UTF_8))
                                        .build())
                        .build();
    }

    /** A fetch capability with the default per-run request count. */
    public static Fetch create(FetchConfig config) {
        return new Fetch(config, DEFAULT_MAX_CALLS);
    }

    /** A fetch capability allowing {@code maxCalls} requests per run (1 to 100). */
    public static Fetch create(FetchConfig config, int maxCalls) {
        return new Fetch(config, maxCalls);
    }

    public Bridge bridge() {
        return bridge;
    }

    public int maxCalls() {
        return maxCalls;
    }

    /** One run's counts: requests started and not given back, and refusals. */
    private static final class RunCounts {
        final AtomicInteger started = new AtomicInteger();
        final AtomicInteger refused = new AtomicInteger();
    }

    private Object request(OperationCall call) {
        RunCounts counts = call.session().state(this, RunCounts::new);
        if (counts.refused.get() >= MAX_REFUSED) {
            throw refusedLimit();
        }
        FetchRequest request;
        try {
            request = build(call);
        } catch (FetchException e) {
            counts.refused.incrementAndGet();
            throw guestError(e);
        } catch (BridgeException e) {
            counts.refused.incrementAndGet();
            throw e;
        }
        CompletableFuture<FetchResponse> exchange = start(counts, request);
        CompletableFuture<Object> result = exchange.thenApply(Fetch::toGuest);
        // Cancelling the guest's promise (the run ended) aborts the exchange.
        result.whenComplete(
                (v, err) -> {
                    if (result.isCancelled()) {
                        exchange.cancel(true);
                    }
                });
        return result;
    }

    /**
     * A request made by the host for another bridge of the same run (a media ref's {@code https:}
     * URL): counted against the run's requests and refusals like the guest's own, under the same
     * SSRF guard, body cap and timeout. The stage fails with a {@link BridgeException} ({@code
     * FetchError}) as the guest's call would.
     */
    public CompletableFuture<FetchResponse> fetch(RunSession session, FetchRequest request) {
        RunCounts counts = session.state(this, RunCounts::new);
        if (counts.refused.get() >= MAX_REFUSED) {
            throw refusedLimit();
        }
        CompletableFuture<FetchResponse> exchange = start(counts, request);
        session.onEnd(() -> exchange.cancel(true));
        return exchange;
    }

    private static BridgeException refusedLimit() {
        return new BridgeException(
                "FetchError",
                "LIMIT",
                "fetch: this run had "
                        + MAX_REFUSED
                        + " requests refused before they were sent; the limit is "
                        + MAX_REFUSED
                        + " per run");
    }

    private CompletableFuture<FetchResponse> start(RunCounts counts, FetchRequest request) {
        int n = counts.started.incrementAndGet();
        if (n > maxCalls) {
            counts.started.decrementAndGet();
            throw new BridgeException(
                    "FetchError",
                    "LIMIT",
                    "fetch: this run has already started "
                            + maxCalls
                            + " requests; the limit is "
                            + maxCalls
                            + " per run");
        }
        FetchCall started = executor.start(request);
        CompletableFuture<FetchResponse> response = started.result;
        CompletableFuture<FetchResponse> result =
                response.handle(
                        (r, err) -> {
                            if (err != null) {
                                Throwable cause =
                                        err instanceof CompletionException && err.getCause() != null
                                                ? err.getCause()
                                                : err;
                                if (!started.wasSent()) {
                                    // Nothing reached the network: the slot is the run's again.
                                    counts.started.decrementAndGet();
                                    counts.refused.incrementAndGet();
                                }
                                if (cause instanceof FetchException fe) {
                                    throw guestError(fe);
                                }
                                throw cause instanceof RuntimeException re
                                        ? re
                                        : new CompletionException(cause);
                            }
                            return r;
                        });
        // Cancelling the stage aborts the exchange.
        result.whenComplete(
                (v, err) -> {
                    if (result.isCancelled()) {
                        response.cancel(true);
                    }
                });
        return result;
    }

    /** The guest's arguments as a request; refused ones throw before anything is counted. */
    private static FetchRequest build(OperationCall call) {
        FetchRequest.Builder b =
                FetchRequest.builder(call.string(0))
                        .withMethod(call.string(1))
                        .withTruncateOversizedBody(call.bool(5, false));
        List<Object> headers = call.array(2);
        for (int i = 0; i < headers.size(); i++) {
            if (!(headers.get(i) instanceof List<?> pair)
                    || pair.size() != 2
                    || !(pair.get(0) instanceof String name)
                    || !(pair.get(1) instanceof String value)) {
                throw new BridgeException(
                        "TypeError",
                        "BAD_HEADER",
                        "fetch: header " + i + " must be a [name, value] pair of strings");
            }
            b.addHeader(name, value);
        }
        if (call.arg(3) != null) {
            b.withBody(call.bytes(3));
        } else if (call.arg(4) != null) {
            b.withBody(call.string(4).getBytes(StandardCharsets.UTF_8));
        }
        return b.build();
    }

    private static BridgeException guestError(FetchException e) {
        return new BridgeException("FetchError", e.code().name(), e.getMessage(), e);
    }

    private static Map<String, Object> toGuest(FetchResponse r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", (long) r.status());
        out.put("statusText", r.statusText());
        out.put("url", r.url());
        out.put("headers", r.headers());
        out.put("body", r.body());
        out.put("truncated", r.truncated());
        out.put("redirected", r.redirected());
        return out;
    }

    @Override
    public void close() {
        executor.close();
    }
}
