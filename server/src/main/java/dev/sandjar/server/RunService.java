package dev.sandjar.server;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.node.CodeNode;
import dev.sandjar.bridges.node.NodeExecution;
import dev.sandjar.bridges.node.NodeInvocation;
import dev.sandjar.bridges.node.NodeResult;
import dev.sandjar.bridges.node.NodeStream;
import dev.sandjar.bridges.progress.ProgressReport;
import dev.sandjar.bridges.secrets.SecretStore;
import dev.sandjar.bridges.video.VideoConfig;
import dev.sandjar.bridges.workspace.FilesystemAccess;
import dev.sandjar.bridges.workspace.WorkspaceBridge;
import dev.sandjar.bridges.workspace.WorkspaceLimits;
import dev.sandjar.host.HostMemory;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Limits;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.ModuleResolution;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxRun;
import dev.sandjar.host.ValueJson;
import dev.sandjar.packs.CatalogResolution;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.packs.ModuleSummary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admits, starts and tracks the server's runs. Admission is bounded twice: the server's slots (pool
 * + queue; a full house is 429, never a wait) and each token's {@code maxConcurrentRuns}. While
 * draining nothing is admitted (503). Thread-safe.
 */
final class RunService {
    /**
     * What a run reports while it goes, for streaming; called on engine threads, must not block.
     */
    interface Listener {
        void log(LogEntry entry);

        void progress(ProgressReport report);
    }

    /**
     * A run the server started: who started it, its handle, and its result, which completes only
     * after the run's slot is given back (so a client that sends its next run the moment it has
     * this one's result never meets its own slot still taken).
     */
    record Active(
            String id,
            String tokenName,
            SandboxRun run,
            java.util.concurrent.CompletableFuture<dev.sandjar.host.RunResult> result)
            implements Tracked {
        @Override
        public void cancel() {
            run.cancel();
        }

        @Override
        public CompletableFuture<?> done() {
            return result;
        }
    }

    /** A Code-node execution the server started; its result completes after its slot is back. */
    record ActiveNode(
            String id,
            String tokenName,
            NodeExecution execution,
            CompletableFuture<NodeResult> result)
            implements Tracked {
        @Override
        public void cancel() {
            execution.cancel();
        }

        @Override
        public CompletableFuture<?> done() {
            return result;
        }
    }

    /** What the server tracks of a run or a node execution in flight. */
    interface Tracked {
        String tokenName();

        void cancel();

        CompletableFuture<?> done();
    }

    private final Sandbox sandbox;
    private final java.util.Map<String, HostMemory> hostMemories =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final ModuleCatalog catalog;
    private final Fetch publicFetch;
    private final Fetch privateFetch;
    private final Path workspaceRoot;
    private final VideoConfig video;
    private final SecretStore secrets;
    private final ServerMetrics metrics;
    private final int slots;
    private final Semaphore admission;
    private final Map<String, AtomicInteger> perToken = new ConcurrentHashMap<>();
    private final Map<String, Tracked> active = new ConcurrentHashMap<>();
    private volatile boolean draining;

    RunService(
            Sandbox sandbox,
            ModuleCatalog catalog,
            Fetch publicFetch,
            Fetch privateFetch,
            Path workspaceRoot,
            VideoConfig video,
            SecretStore secrets,
            ServerMetrics metrics,
            int slots) {
        this.sandbox = sandbox;
        this.catalog = catalog;
        this.publicFetch = publicFetch;
        this.privateFetch = privateFetch;
        this.workspaceRoot = workspaceRoot;
        this.video = video;
        this.secrets = secrets;
        this.metrics = metrics;
        this.slots = slots;
        this.admission = new Semaphore(slots);
    }

    int inFlight() {
        return slots - admission.availablePermits();
    }

    boolean draining() {
        return draining;
    }

    /**
     * Checks {@code body} against the token's policy and the server's ceilings and builds its
     * request; throws 400 or 403 naming what is wrong and the bound. Nothing is admitted yet.
     */
    RunRequest.Builder prepare(RunBody body, Tokens.Token token, Listener listener) {
        Policy policy = token.policy();
        // A bad filename, global name or JSON value throws InvalidRequestException: a 400.
        RunRequest.Builder request = RunRequest.builder(body.code).filename(body.filename);
        if (body.inputsJson != null) {
            request.jsonInput("inputs", body.inputsJson);
        }
        body.globalsJson.forEach(
                (name, json) -> request.global(name, ValueJson.read(json, "globals." + name)));
        request.limits(limits(body.limits, policy));
        request.hostMemory(hostMemory(token));
        request.bridges(capabilities(body, token, listener));
        request.onLog(listener::log);
        ModuleResolution modules = modules(body.code, policy);
        if (modules != null) {
            request.modules(modules);
        }
        return request;
    }

    /**
     * How the code's imports resolve, checked against the policy; null when the code imports
     * nothing. Throws 403 for a pack the policy excludes, {@link RefusedImport} for one no install
     * serves.
     */
    private ModuleResolution modules(String code, Policy policy) {
        if (!code.contains("import")) { // else no module can be needed: skip the catalog
            return null;
        }
        CatalogResolution modules = catalog.resolveBody(code);
        for (ModuleSummary m : modules.modules()) {
            if (!policy.allowsPack(m.pack())) {
                throw ApiException.forbidden(
                        "the token's policy does not allow pack '"
                                + m.pack()
                                + "' (imported as '"
                                + m.specifier()
                                + "'); it allows "
                                + Policy.sorted(policy.packs().orElseThrow()));
            }
        }
        if (!modules.isOk()) {
            List<String> problems = new ArrayList<>();
            modules.errors().forEach(p -> problems.add(p.toString()));
            throw new RefusedImport(String.join("; ", problems));
        }
        return modules.moduleResolution();
    }

    /**
     * A session's options from how it was opened: the token's default capabilities less those
     * withheld (no progress listener: a session's calls answer with JSON), its limits under the
     * token's policy, its idle expiry. The same opening gives the same bridges, so a session the
     * server saved restores after a restart.
     */
    dev.sandjar.host.SessionOptions sessionOptions(ServerSessions.Opening o, Tokens.Token token) {
        RunBody none =
                RunBody.parse("{\"code\": \"\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        none.withhold.addAll(o.withhold());
        return dev.sandjar.host.SessionOptions.builder()
                .bridges(capabilities(none, token, SseEvents.NONE))
                .limits(limits(o.limits(), token.policy()))
                .idleTimeout(ServerSessions.idle(o.idleMs()))
                .build();
    }

    /** A session call's request: the body's code, inputs, globals and limits (not the heap). */
    RunRequest sessionCall(RunBody body, Tokens.Token token) {
        if (body.fetch
                || body.workspaceId != null
                || !body.secrets.isEmpty()
                || !body.withhold.isEmpty()) {
            throw ApiException.badRequest(
                    "a session call cannot set capabilities: they are set when the session opens"
                            + " (POST /api/sessions)");
        }
        if (body.limits.containsKey("memoryMb")) {
            throw ApiException.badRequest(
                    "a session call cannot set limits.memoryMb: the session's memory is set when it"
                            + " opens");
        }
        RunRequest.Builder request = RunRequest.builder(body.code).filename(body.filename);
        if (body.inputsJson != null) {
            request.jsonInput("inputs", body.inputsJson);
        }
        body.globalsJson.forEach(
                (name, json) -> request.global(name, ValueJson.read(json, "globals." + name)));
        // Everything the body asked for under the policy, but not the heap: the session's stands.
        Limits full = limits(body.limits, token.policy());
        Limits.Builder b = Limits.builder().timeout(full.timeout());
        if (full.wallTimeout() != null) {
            b.wallTimeout(full.wallTimeout());
        }
        if (full.outputBytes() != null) {
            b.outputBytes(full.outputBytes());
        }
        if (full.logLines() != null) {
            b.logLines(full.logLines());
        }
        if (full.logChars() != null) {
            b.logChars(full.logChars());
        }
        if (full.pendingOperations() != null) {
            b.pendingOperations(full.pendingOperations());
        }
        if (full.hostBytes() != null) {
            b.hostBytes(full.hostBytes());
        }
        request.limits(b.build());
        request.hostMemory(hostMemory(token));
        return request.build();
    }

    /**
     * Admits a session's call like a run (a slot, the token's share) and starts it; the future
     * completes after the slot is back.
     */
    CompletableFuture<dev.sandjar.host.RunResult> startSession(
            dev.sandjar.host.SandboxSession session, RunRequest call, Tokens.Token token) {
        return startAdmitted(token, () -> session.submit(call)).result();
    }

    /** A Code node and its invocation (without a listener yet), from a node body. */
    record PreparedNode(CodeNode node, NodeInvocation.Builder invocation) {}

    /**
     * Checks a node's body as {@link #prepare} a run's, and builds the node: its declared inputs
     * are the keys of {@code inputs} and {@code streams}.
     */
    PreparedNode prepareNode(RunBody body, Tokens.Token token) {
        Policy policy = token.policy();
        NodeInvocation.Builder invocation = NodeInvocation.builder();
        Set<String> declared = new LinkedHashSet<>();
        if (body.inputsJson != null) {
            @SuppressWarnings("unchecked")
            Map<String, Object> values =
                    (Map<String, Object>) ValueJson.read(body.inputsJson, "inputs");
            values.forEach(invocation::input);
            declared.addAll(values.keySet());
        }
        for (Map.Entry<String, String> s : body.streamsJson.entrySet()) {
            List<?> items = (List<?>) ValueJson.read(s.getValue(), "streams." + s.getKey());
            invocation.stream(s.getKey(), NodeStream.of(items));
            declared.add(s.getKey());
        }
        if (body.stateJson != null) {
            invocation.jsonState(body.stateJson);
        }
        CodeNode.Builder node =
                CodeNode.builder(sandbox, body.code)
                        .filename(body.filename)
                        .inputs(declared)
                        .outputs(body.outputs)
                        .limits(limits(body.limits, policy))
                        .hostMemory(hostMemory(token))
                        // the node reports progress into its own events
                        .bridges(capabilities(body, token, SseEvents.NONE));
        if (body.emitQueue != null) {
            node.emitQueue(body.emitQueue);
        }
        ModuleResolution modules = modules(body.code, policy);
        if (modules != null) {
            node.modules(modules);
        }
        return new PreparedNode(node.build(), invocation);
    }

    /** An import the catalog cannot serve: the run's result is an {@code IMPORT} error. */
    static final class RefusedImport extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RefusedImport(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The token's host memory in flight (its {@code maxHostMemoryBytes} quota): every run of the
     * token counts against it, so one tenant's decoding and parsing never takes another's share.
     */
    HostMemory hostMemory(Tokens.Token token) {
        return hostMemories.computeIfAbsent(
                token.name(),
                name ->
                        HostMemory.of(
                                "the token's host memory (maxHostMemoryBytes)",
                                token.policy().quotas().maxHostMemoryBytes()));
    }

    private Limits limits(Map<String, Long> asked, Policy policy) {
        Limits ceilings = sandbox.ceilings();
        Limits defaults = sandbox.defaults();
        Limits.Builder b = Limits.builder();
        long timeoutMs =
                asked.getOrDefault(
                        "timeoutMs",
                        Math.min(defaults.timeout().toMillis(), policy.maxTimeoutMs()));
        atMost("timeoutMs", timeoutMs, ceilings.timeout().toMillis(), policy.maxTimeoutMs());
        b.timeout(Duration.ofMillis(timeoutMs));
        long memoryMb =
                asked.getOrDefault(
                        "memoryMb", Math.min(defaults.heapBytes() >> 20, policy.maxMemoryMb()));
        atMost("memoryMb", memoryMb, ceilings.heapBytes() >> 20, policy.maxMemoryMb());
        b.heapBytes(memoryMb << 20);
        for (Map.Entry<String, Long> e : asked.entrySet()) {
            long v = e.getValue();
            switch (e.getKey()) {
                case "wallTimeoutMs" -> {
                    atMost(e.getKey(), v, ceilings.wallTimeout().toMillis(), Long.MAX_VALUE);
                    b.wallTimeout(Duration.ofMillis(v));
                }
                case "outputBytes" -> {
                    atMost(e.getKey(), v, ceilings.outputBytes(), Long.MAX_VALUE);
                    b.outputBytes(v);
                }
                case "logLines" -> {
                    atMost(e.getKey(), v, ceilings.logLines(), Long.MAX_VALUE);
                    b.logLines((int) v);
                }
                case "logChars" -> {
                    atMost(e.getKey(), v, ceilings.logChars(), Long.MAX_VALUE);
                    b.logChars(v);
                }
                case "pendingOperations" -> {
                    atMost(e.getKey(), v, ceilings.pendingOperations(), Long.MAX_VALUE);
                    b.pendingOperations((int) v);
                }
                case "hostMemoryMb" -> {
                    atMost(
                            e.getKey(),
                            v,
                            ceilings.hostBytes() >> 20,
                            policy.quotas().maxHostMemoryBytes() >> 20);
                    b.hostBytes(v << 20);
                }
                default -> {
                    // timeoutMs and memoryMb: above
                }
            }
        }
        try {
            return b.build();
        } catch (InvalidRequestException e) {
            throw ApiException.badRequest("limits: " + e.getMessage());
        }
    }

    private static void atMost(String field, long v, long serverBound, long policyBound) {
        if (v > serverBound) {
            throw ApiException.badRequest(
                    "limits."
                            + field
                            + " ("
                            + v
                            + ") is above the server's ceiling "
                            + serverBound);
        }
        if (v > policyBound) {
            throw ApiException.forbidden(
                    "limits."
                            + field
                            + " ("
                            + v
                            + ") is above the token's policy bound "
                            + policyBound
                            + " (max"
                            + Character.toUpperCase(field.charAt(0))
                            + field.substring(1)
                            + ")");
        }
    }

    private List<dev.sandjar.host.Bridge> capabilities(
            RunBody body, Tokens.Token token, Listener listener) {
        Policy policy = token.policy();
        Capabilities.Builder caps = Capabilities.builder();
        List<String> withheld = new ArrayList<>();
        for (String w : body.withhold) {
            if (!Capabilities.DEFAULTS.contains(w)) {
                throw ApiException.badRequest(
                        "capabilities.withhold: '"
                                + w
                                + "' is not a default capability; they are "
                                + Capabilities.DEFAULTS);
            }
            withheld.add(w);
        }
        for (String d : Capabilities.DEFAULTS) {
            if (!policy.capabilities().contains(d) && !withheld.contains(d)) {
                withheld.add(d);
            }
        }
        caps.withhold(withheld.toArray(String[]::new));
        caps.progress(listener::progress);
        if (body.fetch) {
            require(policy, "fetch");
            if (body.allowPrivateNetwork) {
                require(policy, "allowPrivateNetwork");
            }
            caps.fetch(body.allowPrivateNetwork ? privateFetch : publicFetch);
        }
        if (body.video) {
            require(policy, "video");
            if (video == null) {
                throw ApiException.badRequest(
                        "capabilities.video: this server does not run ffmpeg (serve --video)");
            }
            caps.video(video);
        }
        if (!body.secrets.isEmpty()) {
            require(policy, "secrets");
            for (String s : body.secrets) {
                if (!policy.secrets().contains(s)) {
                    throw ApiException.forbidden(
                            "secret '"
                                    + s
                                    + "' is not in the token's policy; it allows "
                                    + Policy.sorted(policy.secrets()));
                }
                if (secrets == null || secrets.get(s).isEmpty()) {
                    throw ApiException.badRequest("secret '" + s + "' is not held by this server");
                }
            }
            caps.secrets(secrets, Set.copyOf(body.secrets));
        }
        if (body.workspaceId != null) {
            require(policy, "workspace");
            if (workspaceRoot == null) {
                throw ApiException.badRequest(
                        "capabilities.workspace: this server has no workspace root (serve"
                                + " --workspaces DIR)");
            }
            Path dir = workspaceRoot.resolve(token.name()).resolve(body.workspaceId);
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new IllegalStateException("cannot create the workspace directory", e);
            }
            caps.workspace(
                    WorkspaceBridge.create(
                            dir, WorkspaceLimits.defaults(), FilesystemAccess.CONTAINED));
        }
        return caps.build();
    }

    static void require(Policy policy, String capability) {
        if (!policy.capabilities().contains(capability)) {
            throw ApiException.forbidden(
                    "capability "
                            + capability
                            + " is not in the token's policy; it allows "
                            + Policy.sorted(policy.capabilities()));
        }
    }

    /**
     * Admits and starts the run, or throws 503 (draining) or 429 (the server's slots or the token's
     * share are taken). The returned run's result completes after the slot is given back.
     */
    Active start(RunRequest.Builder request, Tokens.Token token) {
        return startAdmitted(token, () -> sandbox.submit(request.build()));
    }

    /** Admits a run as {@link #start} does, and starts it with {@code submit}. */
    private Active startAdmitted(
            Tokens.Token token, java.util.function.Supplier<SandboxRun> submit) {
        Runnable release = admit(token);
        String id = UUID.randomUUID().toString();
        SandboxRun run;
        try {
            run = submit.get();
        } catch (RuntimeException e) {
            release.run();
            throw e;
        }
        Active a =
                new Active(
                        id,
                        token.name(),
                        run,
                        run.result()
                                .whenComplete(
                                        (r, t) -> {
                                            active.remove(id);
                                            release.run();
                                            if (r != null) {
                                                metrics.finished(r);
                                            }
                                        }));
        track(id, a);
        return a;
    }

    /**
     * Admits and starts a node execution, as {@link #start} a run: it holds one slot until it ends,
     * across all its invocations.
     */
    ActiveNode startNode(CodeNode node, NodeInvocation invocation, Tokens.Token token) {
        Runnable release = admit(token);
        String id = UUID.randomUUID().toString();
        NodeExecution execution;
        try {
            execution = node.start(invocation);
        } catch (RuntimeException e) {
            release.run();
            throw e;
        }
        ActiveNode a =
                new ActiveNode(
                        id,
                        token.name(),
                        execution,
                        execution
                                .result()
                                .whenComplete(
                                        (r, t) -> {
                                            active.remove(id);
                                            release.run();
                                            if (r != null && r.lastRun() != null) {
                                                metrics.finished(r.lastRun());
                                            }
                                        }));
        track(id, a);
        return a;
    }

    private void track(String id, Tracked a) {
        active.put(id, a);
        if (a.done().isDone()) {
            active.remove(id); // it ended before it was listed
        }
    }

    /**
     * Takes one of the server's slots and one of the token's share, or throws 503 (draining) or 429
     * (taken). Returns what gives them back.
     */
    private Runnable admit(Tokens.Token token) {
        if (draining) {
            throw new ApiException(ApiException.Code.DRAINING, "the server is shutting down");
        }
        AtomicInteger mine = perToken.computeIfAbsent(token.name(), n -> new AtomicInteger());
        int max = token.policy().maxConcurrentRuns();
        if (mine.incrementAndGet() > max) {
            mine.decrementAndGet();
            throw new ApiException(
                    ApiException.Code.TOO_MANY_RUNS,
                    "the token already has "
                            + max
                            + " runs in flight; its policy allows "
                            + max
                            + " (maxConcurrentRuns)",
                    Map.of("Retry-After", "1"));
        }
        if (!admission.tryAcquire()) {
            mine.decrementAndGet();
            metrics.rejected();
            throw new ApiException(
                    ApiException.Code.TOO_MANY_RUNS,
                    "all " + slots + " run slots (pool + queue) are taken; retry later",
                    Map.of("Retry-After", "1"));
        }
        return () -> {
            mine.decrementAndGet();
            admission.release();
        };
    }

    /** Cancels a run {@code tokenName} started; false when there is none by that id. */
    boolean cancel(String id, String tokenName) {
        Tracked a = active.get(id);
        if (a == null || !a.tokenName().equals(tokenName)) {
            return false;
        }
        a.cancel();
        return true;
    }

    /**
     * Stops admitting runs, waits up to {@code grace} for those in flight, cancels the rest and
     * waits (briefly) for them to report {@code CANCELLED}. Returns how many were cancelled.
     */
    int drain(Duration grace) {
        draining = true;
        long deadline = System.nanoTime() + grace.toNanos();
        while (!active.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<Tracked> left = List.copyOf(active.values());
        left.forEach(Tracked::cancel);
        for (Tracked a : left) {
            try {
                a.done().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                // reported through the run's own result
            }
        }
        return left.size();
    }
}
