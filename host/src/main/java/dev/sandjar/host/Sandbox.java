package dev.sandjar.host;

import dev.sandjar.quickjs.EngineOptions;
import dev.sandjar.quickjs.EnginePool;
import dev.sandjar.quickjs.JitFlags;
import dev.sandjar.quickjs.QuickJsEngine;
import dev.sandjar.transport.codec.Transport;
import dev.sandjar.transport.codec.TransportException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Runs untrusted JavaScript. Build one per process and share it: it owns a pool of engine instances
 * (one run per instance at a time, each run in a fresh QuickJS runtime and context), the parser it
 * analyses code with, and the threads bridges use for timers and blocking work. Thread-safe.
 *
 * <pre>{@code
 * try (Sandbox sandbox = Sandbox.builder().poolSize(4).build()) {
 *     RunResult r = sandbox.run(RunRequest.builder("return inputs.a + inputs.b")
 *             .global("inputs", Map.of("a", 1, "b", 2))
 *             .build());
 *     long sum = (Long) r.valueOrThrow();
 * }
 * }</pre>
 *
 * <p>Runs beyond the pool's size wait in line, first come first served. {@link #run} blocks the
 * caller until the result; interrupting the caller cancels the run. {@link #submit} returns at once
 * with a handle to cancel and a future of the result.
 */
public final class Sandbox implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Sandbox.class.getName());
    private static final AtomicLong RUN_IDS = new AtomicLong();

    /**
     * Linear memory below the guest heap: emscripten's static data and QuickJS's 5 MiB shadow stack
     * end at 5,342,832 bytes; the rest is room for the runtime and context themselves.
     */
    private static final long BASE_MEMORY_BYTES = 6L << 20;

    private final Limits defaults;
    private final Limits ceilings;
    private final EnginePool pool;
    private final CodeAnalyzer analyzer;
    private final TemplateCache templates = new TemplateCache();
    private final ScheduledThreadPoolExecutor timer;
    private final Watchdog watchdog;
    private final ExecutorService blocking;
    private final ExecutorService hostWork;
    private final Sessions sessions;
    private final HostMeter hostMeter;
    private final HostMemory hostMemory;
    private final HostWorkers hostWorkers;
    private final java.util.Map<Class<?>, IsolatedTask> inProcessTasks =
            new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean closed;
    private final AtomicLong leaks = new AtomicLong();

    private Sandbox(Builder b) {
        this.ceilings = b.ceilings.over(Limits.CEILINGS);
        this.defaults = b.defaults.over(Limits.DEFAULTS);
        EngineOptions engineOptions =
                EngineOptions.builder()
                        .withZone(b.zone)
                        .withMaxMemoryPages(pagesFor(ceilings.heapBytes()))
                        .withStdout(line -> LOG.info("engine: " + line))
                        .build();
        this.analyzer =
                new CodeAnalyzer(
                        EngineOptions.builder()
                                .withMaxMemoryPages(CodeAnalyzer.MEMORY_PAGES)
                                .build());
        this.timer = new ScheduledThreadPoolExecutor(1, daemon("sandjar-timer"));
        this.timer.setRemoveOnCancelPolicy(true);
        this.watchdog = new Watchdog(timer);
        this.blocking = Executors.newCachedThreadPool(daemon("sandjar-io"));
        this.hostWork = Executors.newCachedThreadPool(HostThreads.factory("sandjar-host"));
        this.sessions = new Sessions(this, b.maxSessions, timer);
        this.hostMeter = new HostMeter(timer);
        this.hostMemory =
                HostMemory.of(
                        "the sandbox's host memory (hostMemoryBytes)",
                        b.hostMemoryBytes > 0
                                ? b.hostMemoryBytes
                                : Math.max(64L << 20, Runtime.getRuntime().maxMemory() / 2));
        this.hostWorkers =
                b.isolation.usesProcesses()
                        ? new HostWorkers(b.isolation, b.poolSize, blocking, timer)
                        : null;
        try {
            this.pool = new EnginePool(b.poolSize, engineOptions);
            if (b.preloadAnalyzer) {
                analyzer.warmUp();
            }
        } catch (RuntimeException e) {
            analyzer.close();
            timer.shutdownNow();
            blocking.shutdownNow();
            hostWork.shutdownNow();
            throw e instanceof SandjarException se ? se : engineFailure(e);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The JVM flags of the tuned mode (docs/jvm-flags.md). None is needed: a JVM with HotSpot's
     * defaults compiles the whole engine, and guest code runs within about 1.25x of the tuned speed
     * (the bench's "no JVM flags" column). The first three ({@code -XX:-DontCompileHugeMethods} and
     * C2's node limits) are optional tuning; {@code -XX:-SplitIfBlocks} is a precaution on JDK 17
     * to 20 against a C2 fault not yet root-caused, and the engine logs one warning on those JDKs
     * without it. Start the JVM with {@code -Dsandjar.jvmFlags=tuned} to be warned when any of them
     * is missing.
     */
    public static List<String> jvmFlags() {
        return JitFlags.REQUIRED;
    }

    /**
     * Why guest code takes the engine's portable memory path in this JVM, about 1.2-1.4x slower
     * than the {@code Unsafe} one (for example "JDK 25 without
     * --sun-misc-unsafe-memory-access=allow", the flag JDK 24 and later need besides {@link
     * #jvmFlags()}), or empty on the faster path; for a service's start-up check or health report.
     * Decided once per JVM, when the first engine is made or this is called (docs/jvm-flags.md).
     */
    public static Optional<String> portableMemoryReason() {
        return JitFlags.portableMemoryReason();
    }

    /** A sandbox with a pool of one instance per core and the built-in limits. */
    public static Sandbox create() {
        return builder().build();
    }

    /**
     * Runs the request and waits for its result. Every outcome of the guest code is a {@link
     * RunResult}; a bad request (a reserved global name, code over its size limit, a global value
     * with no JavaScript form) throws {@link InvalidRequestException}. Interrupting the calling
     * thread cancels the run; the method then returns its cancelled result with the interrupt flag
     * set again.
     *
     * <p>Not from inside a run (a bridge handler, a log listener): that thread is an engine's, and
     * waiting there for another run can deadlock the pool (with one instance, always). It throws
     * {@link EngineException}, as it does on a closed sandbox; a handler starts the run with {@link
     * #submit} and returns its result as a {@link java.util.concurrent.CompletionStage} instead.
     */
    public RunResult run(RunRequest request) {
        refuseOnEngineThread("Sandbox.run", "submit(request)");
        return await(submit(request));
    }

    /** What a caller sees of a failure: a Sandjar exception as it is, anything else as ours. */
    private static SandjarException asSandjar(Throwable t) {
        Throwable cause =
                t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        return cause instanceof SandjarException se ? se : engineFailure(cause);
    }

    /** The engine's own failure, as the caller sees it; its cause keeps the engine's words. */
    static EngineException engineFailure(Throwable t) {
        return new EngineException("the engine failed: " + t.getMessage(), t);
    }

    /** Starts the request and returns at once; see {@link SandboxRun}. */
    public SandboxRun submit(RunRequest request) {
        return submit(request, request.limits().resolve(defaults, ceilings), null, null);
    }

    /** Starts a run with its effective limits; a session's call carries its {@link SessionCall}. */
    SandboxRun submit(
            RunRequest request, Limits effective, SessionCall session, LambdaCall lambda) {
        if (closed) {
            throw new EngineException("the sandbox is closed");
        }
        if (request.code().length() > effective.codeChars()) {
            throw new InvalidRequestException(
                    "the code is "
                            + request.code().length()
                            + " characters; the limit (codeChars) is "
                            + effective.codeChars());
        }
        Transport.Encoded globals = null;
        byte[] binaryGlobals = null;
        if (!request.globals().isEmpty()) {
            try {
                binaryGlobals = Transport.encodeBinary(request.globals());
                if (binaryGlobals == null) {
                    globals = Transport.encode(request.globals(), "globals");
                }
            } catch (TransportException e) {
                throw new InvalidRequestException(
                        "a global cannot enter the sandbox: " + e.getMessage(), e);
            }
        }
        String runId = "run-" + RUN_IDS.incrementAndGet();
        CompletableFuture<RunResult> result = new CompletableFuture<>();
        RunExecution execution =
                new RunExecution(
                        this,
                        request,
                        effective,
                        runId,
                        globals,
                        binaryGlobals,
                        result,
                        session,
                        lambda);
        CompletableFuture<EnginePool.Lease> lease = pool.acquireAsync();
        lease.whenComplete(
                (l, err) -> {
                    if (err != null) {
                        if (!(err instanceof CancellationException)) {
                            result.completeExceptionally(asSandjar(err));
                        }
                        return;
                    }
                    QuickJsEngine held = l.engine();
                    if (held.currentPages() > growthPagesFor(effective.heapBytes())) {
                        try {
                            templates.forget(held);
                            l.replaceEngine(); // grown past this run's limit by an earlier run
                        } catch (RuntimeException e) {
                            l.close();
                            result.completeExceptionally(asSandjar(e));
                            return;
                        }
                    }
                    l.engine()
                            .submit(
                                    engine -> {
                                        execution.execute(engine, l);
                                        return null;
                                    })
                            .whenComplete(
                                    (v, t) -> {
                                        if (t != null) {
                                            result.completeExceptionally(asSandjar(t));
                                            try {
                                                l.close();
                                            } catch (IllegalStateException alreadyReturned) {
                                                // execute returned it before failing
                                            }
                                        }
                                    });
                });
        return new SandboxRun(
                runId,
                result,
                () -> {
                    lease.cancel(false);
                    execution.cancel();
                });
    }

    /**
     * Runs a built-in mix of guest work through the pool for about {@code duration}, so the JVM's
     * JIT compiles the engine before real traffic meets it. Until it has, guest code runs several
     * times slower and the first module code waits for the parser (docs/performance.md has the
     * measurements).
     *
     * <p>Each round is, per engine instance, one run of the mix (scripts and modules, about 120
     * records in and out in the binary format, strings, regular expressions, JSON, classes,
     * promises) and 24 small runs (one record in, a few values out: the per-run path is compiled by
     * how often it runs), plus one parse of fresh module code on the analysis engine. It blocks the
     * caller; call it from a background thread to serve traffic meanwhile, whose runs then queue
     * behind at most one round. It stops early, with the interrupt flag set again, when the calling
     * thread is interrupted.
     *
     * @param duration more than zero and at most 10 minutes; at least one round runs, and the call
     *     may overrun it by the length of one round
     * @throws InvalidRequestException for a duration out of range
     * @throws EngineException when a warm-up run fails (the sandbox's defaults or ceilings leave it
     *     less than it needs), when the sandbox is closed before or during the warm-up, or from
     *     inside a run, as {@link #run}
     */
    public WarmUpReport warmUp(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative() || duration.isZero() || duration.compareTo(WarmUp.MAX) > 0) {
            throw new InvalidRequestException(
                    "warm-up duration must be more than 0 and at most "
                            + WarmUp.MAX.toMinutes()
                            + " minutes, got "
                            + duration);
        }
        if (QuickJsEngine.onEngineThread()) {
            throw new EngineException(
                    "Sandbox.warmUp was called from inside a run (a bridge handler or log"
                            + " listener), where waiting for runs can deadlock the pool");
        }
        if (closed) {
            throw new EngineException("the sandbox is closed");
        }
        return WarmUp.run(this, duration);
    }

    /**
     * Parses {@code code} the way a run would (the parser runs inside the sandbox's own analysis
     * engine) and reports its imports, exports and syntax errors, without running it. Parses are
     * cached by code. {@link CodeAnalysis#freeReferences()} is null here: {@link
     * #analyzeReferences} also walks the scopes.
     */
    public CodeAnalysis analyze(String code) {
        return analyze(code, false);
    }

    /**
     * {@link #analyze}, plus the free references: a scope walk over the same tree that finds every
     * use of a name the code does not declare (what the Code node and its validator read). Costs
     * more than the parse alone, so runs and pack discovery do without it.
     */
    public CodeAnalysis analyzeReferences(String code) {
        return analyze(code, true);
    }

    private CodeAnalysis analyze(String code, boolean withReferences) {
        Objects.requireNonNull(code, "code");
        if (code.length() > ceilings.codeChars()) {
            throw new InvalidRequestException(
                    "the code is "
                            + code.length()
                            + " characters; the ceiling (codeChars) is "
                            + ceilings.codeChars());
        }
        try {
            return analyzer.parse(code, withReferences).toPublic();
        } catch (SandjarException e) {
            throw e;
        } catch (RuntimeException e) {
            throw engineFailure(e); // the analysis engine's own failure, never a raw engine type
        }
    }

    /**
     * Calls {@code function}, an export of the module {@code code}, with {@code args} in a fresh
     * context, and waits for what it returns (a promise is awaited): a cold lambda
     * (docs/sessions.md, "Lambdas"). Arguments cross through the transport like globals.
     */
    public RunResult call(String code, String function, List<?> args) {
        return call(RunRequest.builder(code).build(), function, args);
    }

    /**
     * {@link #call(String, String, List)} with the module's run settings (filename, bridges,
     * imports, limits, log listener) from {@code module}; its globals are defined as in a run.
     * Waits like {@link #run}.
     */
    public RunResult call(RunRequest module, String function, List<?> args) {
        refuseOnEngineThread("Sandbox.call", "submitCall(...)");
        return await(submitCall(module, function, args));
    }

    /**
     * Starts a cold lambda call and returns at once; see {@link #call(RunRequest, String, List)}.
     */
    public SandboxRun submitCall(RunRequest module, String function, List<?> args) {
        return submit(
                module,
                module.limits().resolve(defaults, ceilings),
                null,
                new LambdaCall(function(function), checkedArgs(args), false, null));
    }

    /**
     * A warm lambda of the module {@code module}: its first call instantiates the module, and later
     * calls reuse it with whatever state its module scope holds (trading isolation for speed).
     * Between calls it holds an engine image, not an engine, like a session; it counts against
     * {@code maxSessions}.
     */
    public WarmLambda warmLambda(RunRequest module) {
        Objects.requireNonNull(module, "module");
        SandboxSession state =
                sessions.open(
                        SessionOptions.builder()
                                .bridges(module.bridges())
                                .limits(module.limits())
                                .build(),
                        null,
                        java.util.Map.of(),
                        java.util.Set.of());
        return new WarmLambda(this, module, state);
    }

    static String function(String name) {
        Objects.requireNonNull(name, "function");
        if (!RunRequest.isIdentifier(name) && !name.equals("default")) {
            throw new InvalidRequestException(
                    "function '" + name + "' must be the name of an export (an identifier)");
        }
        return name;
    }

    static List<Object> checkedArgs(List<?> args) {
        Objects.requireNonNull(args, "args");
        List<Object> copy = new java.util.ArrayList<>(args);
        try {
            Transport.encode(copy, "args");
        } catch (TransportException e) {
            throw new InvalidRequestException(
                    "an argument cannot enter the sandbox: " + e.getMessage(), e);
        }
        return java.util.Collections.unmodifiableList(copy);
    }

    /** Waits for a run as {@link #run} does (interrupting the caller cancels it). */
    RunResult await(SandboxRun run) {
        try {
            return run.result().get();
        } catch (InterruptedException e) {
            run.cancel();
            try {
                return run.result().join();
            } catch (CompletionException ce) {
                throw asSandjar(ce.getCause());
            } finally {
                Thread.currentThread().interrupt();
            }
        } catch (ExecutionException e) {
            throw asSandjar(e.getCause());
        }
    }

    /**
     * Refuses to wait on an engine thread (a bridge handler or log listener), where waiting for
     * another run can deadlock the pool; names {@code what} and the non-blocking {@code instead}.
     */
    static void refuseOnEngineThread(String what, String instead) {
        if (QuickJsEngine.onEngineThread()) {
            throw new EngineException(
                    what
                            + " was called from inside a run (a bridge handler or log listener),"
                            + " where waiting for another run can deadlock the pool; use "
                            + instead
                            + ".result() and return it as the operation's CompletionStage");
        }
    }

    /**
     * Opens a persistent session (docs/sessions.md): calls evaluate in one global scope, so what
     * one call declares the next can use. Sessions hold no engine while idle.
     *
     * @throws SessionException at the sandbox's {@code maxSessions}, or when it is closed
     */
    public SandboxSession openSession(SessionOptions options) {
        Objects.requireNonNull(options, "options");
        sessionLimits(options, Limits.none()); // refuses limits above the ceilings now
        return sessions.open(options, null, java.util.Map.of(), java.util.Set.of());
    }

    /** A session with no bridges, the default limits and a 15-minute idle expiry. */
    public SandboxSession openSession() {
        return openSession(SessionOptions.defaults());
    }

    /**
     * Brings back a session {@link SandboxSession#save() saved} here or by another process of the
     * same engine build, as a new live session with its own id. {@code options} must have the
     * bridges the session was saved with (their state is in the image); its limits and expiry are
     * the restored session's.
     *
     * <p>Inflating the saved state stops at three times the session's engine memory plus 8 MiB
     * (never past what a Java array holds), so hostile bytes fail with a message, not with an
     * {@code OutOfMemoryError}.
     *
     * @throws SessionException ({@link SessionException.Reason#IMAGE}) for bytes that are not a
     *     saved session, are damaged, inflate past that bound, or come from another format, engine
     *     build or bridge set (the message names both); at the session cap, or when the sandbox is
     *     closed
     */
    public SandboxSession restoreSession(byte[] saved, SessionOptions options) {
        Objects.requireNonNull(saved, "saved");
        Objects.requireNonNull(options, "options");
        Limits limits = sessionLimits(options, Limits.none());
        SessionImages.Saved s =
                SessionImages.read(
                        saved,
                        options,
                        SessionImages.payloadBound(growthPagesFor(limits.heapBytes())));
        return sessions.open(options, s.image(), s.declared(), s.globals());
    }

    /**
     * The most bytes {@link SandboxSession#save()} returns for a session of this sandbox (one at
     * its heap ceiling), below what a Java array can hold: a store that reads saved sessions back
     * reads no more than this.
     */
    public long maxSavedSessionBytes() {
        return SessionImages.savedBound(
                SessionImages.payloadBound(pool.options().maxMemoryPages()));
    }

    /** {@link #restoreSession(byte[], SessionOptions)} for a session with no bridges. */
    public SandboxSession restoreSession(byte[] saved) {
        return restoreSession(saved, SessionOptions.defaults());
    }

    /** Live sessions now. */
    public int sessionCount() {
        return sessions.count();
    }

    /** The most live sessions (and warm lambdas) it holds at once ({@code maxSessions}). */
    public int maxSessions() {
        return sessions.max();
    }

    /** The live session with this id, or null (closed, expired, or never opened here). */
    public SandboxSession session(String id) {
        return sessions.get(Objects.requireNonNull(id, "id"));
    }

    Sessions sessions() {
        return sessions;
    }

    /**
     * A session call's effective limits: the call's, else the session's, else the sandbox's
     * defaults, clamped to the ceilings; the heap is always the session's.
     */
    Limits sessionLimits(SessionOptions options, Limits call) {
        Limits session = options.limits().resolve(defaults, ceilings);
        if (call.heapBytes() != null && !call.heapBytes().equals(session.heapBytes())) {
            throw new InvalidRequestException(
                    "a session call cannot set heapBytes ("
                            + call.heapBytes()
                            + "): the session's memory limit is "
                            + session.heapBytes()
                            + " bytes, set when it opens");
        }
        Limits merged = call.resolve(session, ceilings);
        return merged.toBuilder().heapBytes(session.heapBytes()).build().resolve(session, ceilings);
    }

    /** The defaults a request's limits fall back to (complete except a derived wallTimeout). */
    public Limits defaults() {
        return defaults;
    }

    /** The ceilings every run's limits are clamped to. */
    public Limits ceilings() {
        return ceilings;
    }

    boolean isClosed() {
        return closed;
    }

    public int poolSize() {
        return pool.size();
    }

    void countLeak() {
        leaks.incrementAndGet();
    }

    /**
     * Runs that left engine objects (runtimes, contexts, host functions) open: 0 unless the sandbox
     * has a defect, and harmless even then, since a leaking run's engine is replaced. For health
     * checks and tests.
     */
    public long leaks() {
        return leaks.get();
    }

    /** The prepared templates of the pool's engines. */
    TemplateCache templates() {
        return templates;
    }

    CodeAnalyzer analyzer() {
        return analyzer;
    }

    Executor blockingExecutor() {
        return blocking;
    }

    /** The threads in-process host work runs on ({@link RunSession#work}), at a lower priority. */
    Executor hostExecutor() {
        return hostWork;
    }

    ScheduledExecutorService timer() {
        return timer;
    }

    /** Meters the host work running in this JVM. */
    HostMeter hostMeter() {
        return hostMeter;
    }

    /** The host memory all runs of this sandbox share (docs/sandbox.md, "Host work"). */
    public HostMemory hostMemory() {
        return hostMemory;
    }

    /** The worker processes isolated host work runs in; null when it runs in this JVM. */
    HostWorkers hostWorkers() {
        return hostWorkers;
    }

    /** The one instance of {@code type} that isolated calls use when they run in this JVM. */
    IsolatedTask isolatedTask(Class<? extends IsolatedTask> type) {
        return inProcessTasks.computeIfAbsent(
                type,
                t -> {
                    try {
                        return (IsolatedTask) t.getConstructor().newInstance();
                    } catch (ReflectiveOperationException e) {
                        throw BridgeException.hostError(
                                "the host cannot make the task "
                                        + t.getName()
                                        + " ("
                                        + e.getClass().getSimpleName()
                                        + ")");
                    }
                });
    }

    /** Worker processes running now (0 when host work runs in this JVM); for health checks. */
    public int hostWorkerCount() {
        return hostWorkers == null ? 0 : hostWorkers.liveWorkers();
    }

    /** Stops runs stuck in native code past their bounds; on the timer thread. */
    Watchdog watchdog() {
        return watchdog;
    }

    /**
     * The WebAssembly memory a run with this heap limit may use, in pages: the heap plus the
     * engine's static data and stack. This, not QuickJS's own counter (see {@link
     * dev.sandjar.quickjs.JsRuntime#setMemoryLimit}), is what bounds a run's memory: a run starts
     * on an engine whose memory is at most this size and cannot grow it further.
     */
    int growthPagesFor(long heapBytes) {
        return Math.min(pagesFor(heapBytes), pool.options().maxMemoryPages());
    }

    private static int pagesFor(long heapBytes) {
        long bytes = BASE_MEMORY_BYTES + heapBytes;
        long pages = (bytes + 65535) / 65536;
        return (int)
                Math.max(
                        EngineOptions.MIN_MEMORY_PAGES,
                        Math.min(pages, EngineOptions.MAX_MEMORY_PAGES));
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Closes the pool and the analysis engine; runs in progress finish first on their engines. */
    @Override
    public void close() {
        closed = true;
        sessions.closeAll();
        pool.close();
        templates.clear();
        analyzer.close();
        if (hostWorkers != null) {
            hostWorkers.close();
        }
        timer.shutdownNow();
        blocking.shutdownNow();
        hostWork.shutdownNow();
    }

    public static final class Builder {
        private int poolSize = Runtime.getRuntime().availableProcessors();
        private Limits defaults = Limits.none();
        private Limits ceilings = Limits.none();
        private ZoneId zone = ZoneOffset.UTC;
        private boolean preloadAnalyzer;
        private int maxSessions = 100;
        private HostIsolation isolation = HostIsolation.processes();
        private long hostMemoryBytes;

        private Builder() {}

        /**
         * The host memory all runs' host work may hold at once in this JVM ({@link HostMemory}), at
         * least 16 MiB; by default half the JVM's maximum heap. The outer bound beside each run's
         * {@code hostBytes} and any per-tenant budget.
         */
        public Builder hostMemoryBytes(long bytes) {
            if (bytes < (16L << 20)) {
                throw new InvalidRequestException(
                        "hostMemoryBytes (" + bytes + ") must be >= 16 MiB");
            }
            this.hostMemoryBytes = bytes;
            return this;
        }

        /**
         * Where {@link IsolatedTask}s (document parsers, image decoders, canvas rendering) run:
         * worker processes by default, or this JVM ({@link HostIsolation#inProcess()}).
         */
        public Builder hostIsolation(HostIsolation isolation) {
            this.isolation = Objects.requireNonNull(isolation, "isolation");
            return this;
        }

        /**
         * Live sessions the sandbox holds at most (1 to 100,000; 100 by default); opening one more
         * is refused. Idle sessions hold their engine image, not an engine.
         */
        public Builder maxSessions(int max) {
            if (max < 1 || max > 100_000) {
                throw new InvalidRequestException(
                        "maxSessions (" + max + ") must be between 1 and 100000");
            }
            this.maxSessions = max;
            return this;
        }

        /** Engine instances, 1 to 256; the default is one per core. */
        public Builder poolSize(int size) {
            if (size < 1 || size > 256) {
                throw new InvalidRequestException(
                        "poolSize (" + size + ") must be between 1 and 256");
            }
            this.poolSize = size;
            return this;
        }

        /** Defaults for requests that leave a limit unset (each clamped to the ceilings). */
        public Builder defaults(Limits limits) {
            this.defaults = Objects.requireNonNull(limits, "defaults");
            return this;
        }

        /** Ceilings below the built-in ones ({@link Limits#CEILINGS}); raising one is refused. */
        public Builder ceilings(Limits limits) {
            Objects.requireNonNull(limits, "ceilings");
            limits.checkAtMost(Limits.CEILINGS, "built-in ceiling");
            this.ceilings = limits;
            return this;
        }

        /** The time zone the guest's {@code Date} sees; UTC by default. */
        public Builder zone(ZoneId zone) {
            this.zone = Objects.requireNonNull(zone, "zone");
            return this;
        }

        /**
         * Starts the analysis engine while building, instead of on the first run whose code has
         * imports or exports (loading the parser takes a few hundred milliseconds).
         */
        public Builder preloadAnalyzer(boolean preload) {
            this.preloadAnalyzer = preload;
            return this;
        }

        public Sandbox build() {
            return new Sandbox(this);
        }
    }
}
