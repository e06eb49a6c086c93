package dev.sandjar.host;

import dev.sandjar.quickjs.EngineFailureException;
import dev.sandjar.quickjs.EnginePool;
import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsContext.PromiseState;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsException;
import dev.sandjar.quickjs.JsMemoryException;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsRuntime;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.ModuleLoader;
import dev.sandjar.quickjs.QuickJsEngine;
import dev.sandjar.quickjs.QuickJsException;
import dev.sandjar.transport.Transport;
import dev.sandjar.transport.TransportException;
import dev.sandjar.transport.Undefined;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run, start to finish, on its engine's thread (DESIGN.md "A run, in order"): a fresh runtime
 * and context with the run's limits, the codec, the bridges and prelude, hardening, the injected
 * globals, the entry module, the event loop, and the result. Also the run's {@link RunSession} for
 * bridge handlers. Everything that touches the engine runs on the engine thread; {@link #cancel()}
 * and the completion queue are the thread-safe edges.
 */
final class RunExecution implements RunSession {
    private static final Logger LOG = Logger.getLogger(RunExecution.class.getName());
    private static final Runnable WAKE = () -> {};
    private static final String BRIDGE_MODULE = "sandjar:bridge/";
    private static final long WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final Sandbox sandbox;
    private final RunRequest request;
    private final Limits limits;
    private final String runId;
    private final long receivedNanos;
    private final Transport.Encoded globals;
    private final byte[] binaryGlobals;
    private final CompletableFuture<RunResult> result;
    private final RunBudget budget;
    private final LogCollector logs;
    private final Map<Object, Object> state = new ConcurrentHashMap<>();
    private final List<Runnable> endActions = new ArrayList<>();
    private final List<CompletableFuture<?>> holds = new ArrayList<>(); // under endActions' lock
    private boolean holdsClosed; // under endActions' lock
    private final LinkedBlockingQueue<Runnable> completions = new LinkedBlockingQueue<>();
    private volatile boolean ended;
    private volatile boolean started;
    private boolean leaked;

    // Engine thread only.
    private QuickJsEngine engine;
    private int refusedGrowthsAtStart;
    private JsRuntime runtime;
    private JsContext ctx;
    private JsValue encodeFn;
    private JsValue decodeFn;
    private JsValue prefixFn;
    private JsValue makeHostFn;
    private JsValue protoCheckFn;
    private Template template;
    private final Loader loader = new Loader();

    /** The bridges of this run: the request's, then those modules declared, by dispatch index. */
    private final List<Bridge> bridges = new ArrayList<>();

    private final Map<String, ModuleResolution.Module> modulesByName = new HashMap<>();
    private boolean linking;
    private final Map<String, String> moduleSources = new HashMap<>();
    private final Map<Integer, Pending> pending = new HashMap<>();
    private int nextOpId;
    private int line1Shift;
    private int userLines = Integer.MAX_VALUE;
    private long bridgeCalls;
    private int pagesAtStart = -1;
    private final long[] phases = new long[5]; // analysis, runtime, context, bridges, prelude
    private long setupNanos;
    private long setupCpuNanos = -1;
    private long guestCpuStart;
    private long queueNanos;

    /** A host operation in flight: the guest promise's resolving functions and the host work. */
    private record Pending(
            JsValue resolve, JsValue reject, CompletableFuture<?> work, String where) {}

    RunExecution(
            Sandbox sandbox,
            RunRequest request,
            Limits limits,
            String runId,
            Transport.Encoded globals,
            byte[] binaryGlobals,
            CompletableFuture<RunResult> result) {
        this.sandbox = sandbox;
        this.request = request;
        this.limits = limits;
        this.runId = runId;
        this.receivedNanos = System.nanoTime();
        this.globals = globals;
        this.binaryGlobals = binaryGlobals;
        this.result = result;
        this.budget = new RunBudget(limits, request.clock(), receivedNanos);
        this.logs = new LogCollector(limits.logLines(), limits.logChars(), request.logListener());
    }

    // ---------------------------------------------------------------------------------------
    // Thread-safe edges.

    /** Cancels from any thread: a queued run never starts, a running one is interrupted. */
    void cancel() {
        budget.cancel();
        completions.add(WAKE);
        if (!started) {
            finishUnstarted(budget.cancelRequested() ? cancelledResult() : null);
        }
    }

    /** Completes the result of a run that never reached an engine. */
    void finishUnstarted(RunResult r) {
        if (r != null) {
            runEndActions();
            result.complete(r);
        }
    }

    RunResult cancelledResult() {
        return new RunResult(
                runId,
                null,
                RunError.of(RunError.Kind.CANCELLED, "CancelledError", "the run was cancelled"),
                false,
                logs.entries(),
                Map.of(),
                limits,
                stats(System.nanoTime() - receivedNanos));
    }

    // ---------------------------------------------------------------------------------------
    // The run, on the engine thread. Completes the result, then returns the lease.

    void execute(QuickJsEngine engine, EnginePool.Lease lease) {
        started = true;
        this.engine = engine;
        pagesAtStart = engine.currentPages();
        queueNanos = System.nanoTime() - receivedNanos;
        RunResult r;
        try {
            r = budget.cancelRequested() ? cancelledResult() : runOnEngine();
        } catch (IllegalArgumentException e) {
            end();
            result.completeExceptionally(e);
            lease.close();
            return;
        } catch (RuntimeException | StackOverflowError e) {
            r = internal(e);
        }
        end();
        RunResult done = r;
        CompletableFuture<Void> held = heldBy();
        if (held == null) {
            result.complete(done);
        }
        try {
            if (leaked
                    || engine.currentPages()
                            > sandbox.growthPagesFor(sandbox.defaults().heapBytes())) {
                lease.retire(); // grown past what a default run may use: start the next one fresh
                sandbox.templates().forget(engine);
            } else if (engine.isBroken()) {
                sandbox.templates().forget(engine); // the pool replaces it on return
            }
            lease.close();
        } finally {
            if (held != null) {
                completeWhenDelivered(held, done);
            }
        }
    }

    /**
     * Completes the result once the bridges' deliveries are done, or after {@link
     * #MAX_RESULT_HOLD}. The engine is free already. The result completes on the sandbox's
     * executor, never on the JDK's shared timeout thread, so a caller's blocking callback cannot
     * stall other runs' holds.
     */
    private void completeWhenDelivered(CompletableFuture<Void> held, RunResult done) {
        Executor executor =
                task -> {
                    try {
                        sandbox.blockingExecutor().execute(task);
                    } catch (RejectedExecutionException closing) {
                        task.run();
                    }
                };
        held.orTimeout(MAX_RESULT_HOLD.toMillis(), TimeUnit.MILLISECONDS)
                .whenCompleteAsync(
                        (v, t) -> {
                            if (t instanceof TimeoutException) {
                                LOG.warning(
                                        "run "
                                                + runId
                                                + ": bridge deliveries still pending "
                                                + MAX_RESULT_HOLD.toSeconds()
                                                + " s after the run ended; the result"
                                                + " completes without them");
                            }
                            result.complete(done);
                        },
                        executor);
    }

    /** What the result waits for, or null; no hold is taken after this. */
    private CompletableFuture<Void> heldBy() {
        List<CompletableFuture<?>> pendingHolds;
        synchronized (endActions) {
            holdsClosed = true;
            pendingHolds = List.copyOf(holds);
            holds.clear();
        }
        if (pendingHolds.isEmpty()) {
            return null;
        }
        return CompletableFuture.allOf(pendingHolds.toArray(CompletableFuture[]::new));
    }

    private RunResult runOnEngine() {
        long t0 = System.nanoTime();
        EntryModule.Built entry =
                EntryModule.build(request.code(), () -> sandbox.analyzer().parse(request.code()));
        phases[0] = System.nanoTime() - t0;
        if (entry.syntaxError() != null) {
            return failure(entry.syntaxError());
        }
        line1Shift = entry.line1Shift();
        if (entry.wrapped()) {
            userLines = request.code().split("\r\n|\r|\n|\u2028|\u2029", -1).length;
        }
        try {
            setup();
            guestCpuStart = budget.cpuNow();
            return evaluate(entry);
        } catch (JsMemoryException e) {
            return failure(
                    RunError.of(
                            RunError.Kind.MEMORY,
                            "InternalError",
                            "out of memory moving a value into the guest: "
                                    + e.getMessage()
                                    + " (heapBytes is "
                                    + limits.heapBytes()
                                    + ")"));
        } catch (GuestFailure f) {
            return failure(f.error);
        }
    }

    /** Stops the run with an error from deep inside a step. */
    private static final class GuestFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient RunError error;

        GuestFailure(RunError error) {
            super(error.toString(), null, false, false);
            this.error = error;
        }
    }

    private void setup() {
        long start = System.nanoTime();
        long cpuStart = budget.cpuNow();
        bridges.addAll(request.bridges());
        template = sandbox.templates().restoreFor(engine, this, bridges);
        runtime = template.runtime;
        ctx = template.context;
        encodeFn = template.encode;
        decodeFn = template.decode;
        prefixFn = template.prefix;
        makeHostFn = template.makeHost;
        protoCheckFn = template.protoCheck;
        long t1 = System.nanoTime();
        phases[1] = t1 - start; // restoring the prepared template (building it first if new)
        // The CPU budget is the guest's: building a template (~0.15-0.6 s on a cold engine, once
        // per engine and bridge set) is the sandbox's own cost, so the budget starts only here;
        // until then the wall bound and cancellation still stop the run.
        budget.start();

        runtime.setMemoryLimit(limits.heapBytes());
        runtime.setMaxStackSize(limits.stackBytes());
        engine.setGrowthLimitPages(sandbox.growthPagesFor(limits.heapBytes()));
        refusedGrowthsAtStart = engine.refusedGrowths();
        long t2 = System.nanoTime();
        phases[2] = t2 - t1;
        phases[3] = 0;

        if (binaryGlobals != null) {
            try (JsValue values = readBinary(binaryGlobals);
                    JsResult defined =
                            ctx.call(template.defineGlobalValues, ctx.undefined(), values)) {
                if (!defined.isOk()) {
                    JsError err = defined.error();
                    if (err.name().equals("SandjarReservedGlobal")) {
                        throw new IllegalArgumentException(err.message());
                    }
                    throw setupFailure(err);
                }
            }
        } else if (globals != null) {
            try (JsValue json = ctx.newString(globals.json());
                    JsValue side = sidecar(globals.sidecar());
                    JsResult defined =
                            ctx.call(template.defineGlobals, ctx.undefined(), json, side)) {
                if (!defined.isOk()) {
                    JsError err = defined.error();
                    if (err.name().equals("SandjarReservedGlobal")) {
                        throw new IllegalArgumentException(err.message());
                    }
                    throw setupFailure(err);
                }
            }
        }
        long t3 = System.nanoTime();
        phases[4] = t3 - t2;
        setupNanos = t3 - start;
        if (RunBudget.measuresCpu()) {
            setupCpuNanos = budget.cpuNow() - cpuStart;
        }
    }

    /** A failure of host-supplied code during setup (the codec, the prelude, globals). */
    RuntimeException setupFailure(JsError err) {
        if (err.isInterrupted() || err.isOutOfMemory()) {
            return new GuestFailure(classify(err, false));
        }
        return new IllegalStateException("sandbox setup failed: " + err + "\n" + err.stack());
    }

    // ---------------------------------------------------------------------------------------
    // Evaluation and the event loop.

    private RunResult evaluate(EntryModule.Built entry) {
        String source = entry.source();
        JsValue evaluated;
        linking = !entry.script();
        try (JsResult r =
                entry.script()
                        ? ctx.evalScript(source, request.filename())
                        : ctx.evalModule(source, request.filename())) {
            linking = false;
            if (!r.isOk()) {
                RunError error = classify(r.error(), true);
                if (error.kind() == RunError.Kind.SYNTAX && !entry.parsed()) {
                    // The wrapper was not parsed first; acorn names the user's own position.
                    RunError precise = sandbox.analyzer().parse(request.code()).syntaxError();
                    if (precise != null) {
                        error = precise;
                    }
                }
                return failure(error);
            }
            evaluated = r.value().dup();
        } finally {
            linking = false;
        }
        if (entry.script()) {
            // The script's value is the user's async function: call it, as the module would, with
            // this undefined; what it returns is the promise of the result.
            try (JsValue fn = evaluated;
                    JsResult called = ctx.call(fn, ctx.undefined())) {
                if (!called.isOk()) {
                    return failure(classify(called.error(), true));
                }
                evaluated = called.value().dup();
            }
        }
        Object value;
        boolean truncated = false;
        try (JsValue settled = settle(evaluated);
                JsValue v = entry.script() ? settled.dup() : settled.get("default")) {
            Encoded out = encode(v, "result", request.truncateOutput());
            value = out.value;
            truncated = out.truncated;
        }
        Map<String, Object> synced = syncGlobals();
        return new RunResult(
                runId,
                value,
                null,
                truncated,
                logs.entries(),
                synced,
                limits,
                stats(System.nanoTime() - receivedNanos));
    }

    /** Drives jobs and host completions until {@code promise} settles; returns its value. */
    private JsValue settle(JsValue promise) {
        while (true) {
            PromiseState s = ctx.promiseState(promise);
            if (s == PromiseState.NOT_A_PROMISE) {
                return promise;
            }
            if (s == PromiseState.FULFILLED) {
                return ctx.promiseResult(promise);
            }
            if (s == PromiseState.REJECTED) {
                try (JsValue reason = ctx.promiseResult(promise)) {
                    throw new GuestFailure(classify(ctx.errorOf(reason), false));
                }
            }
            JsRuntime.JobsResult jobs = runtime.executePendingJobs(-1);
            if (jobs.error() != null) {
                throw new GuestFailure(classify(jobs.error(), false));
            }
            drainCompletions();
            if (ctx.promiseState(promise) != PromiseState.PENDING || runtime.isJobPending()) {
                continue;
            }
            if (budget.expired()) {
                throw new GuestFailure(budget.error());
            }
            if (pending.isEmpty()) {
                throw new GuestFailure(
                        RunError.of(
                                RunError.Kind.EXCEPTION,
                                "Error",
                                "the code awaits a promise that nothing can settle: no job is"
                                        + " queued and no host operation is in flight"));
            }
            waitForCompletion();
        }
    }

    private void waitForCompletion() {
        long wait = Math.max(1, Math.min(budget.wallRemainingNanos(), WAIT_SLICE_NANOS));
        long before = System.nanoTime();
        Runnable c;
        try {
            c = completions.poll(wait, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            budget.cancel();
            return;
        } finally {
            budget.waited(System.nanoTime() - before);
        }
        if (c != null) {
            c.run();
        }
    }

    private void drainCompletions() {
        for (Runnable c; (c = completions.poll()) != null; ) {
            c.run();
        }
    }

    ModuleLoader loader() {
        return loader;
    }

    boolean shouldInterrupt() {
        return budget.expired();
    }

    // ---------------------------------------------------------------------------------------
    // The dispatcher: the one host function the prelude hands to the bridges.

    JsValue dispatch(JsContext c, JsValue self, List<JsValue> args) {
        if (ended || budget.cancelRequested() || budget.reason() != null) {
            throw guestError(
                    "CancelledError",
                    "CANCELLED",
                    "the run has been cancelled or has ended; no further host calls are possible");
        }
        if (args.size() != 4) {
            throw new IllegalArgumentException("the dispatcher takes 4 arguments");
        }
        int index = (int) args.get(0).asNumber();
        if (index < 0 || index >= bridges.size()) {
            throw new IllegalArgumentException("no bridge " + index);
        }
        String op = args.get(1).asString();
        Bridge bridge = bridges.get(index);
        Operation operation = bridge.operations().get(op);
        String where = bridge.name() + "." + op;
        if (operation == null) {
            throw guestError(
                    "TypeError",
                    "UNKNOWN_OPERATION",
                    "bridge " + bridge.name() + " has no operation '" + op + "'");
        }
        bridgeCalls++;
        if (pending.size() >= limits.pendingOperations()) {
            throw guestError(
                    "RangeError",
                    "PENDING_LIMIT",
                    where
                            + ": "
                            + pending.size()
                            + " host operations are already in flight; the limit"
                            + " (pendingOperations) is "
                            + limits.pendingOperations());
        }
        Object decoded = Transport.decode(args.get(2).asString(), readSidecar(args.get(3)));
        List<?> given = (List<?>) decoded;
        List<Param> params = operation.params();
        if (given.size() > params.size()) {
            throw guestError(
                    "TypeError",
                    "INVALID_ARGUMENT",
                    where
                            + " takes at most "
                            + params.size()
                            + " argument(s), got "
                            + given.size());
        }
        List<Object> checked = new ArrayList<>(params.size());
        try {
            for (int i = 0; i < params.size(); i++) {
                checked.add(params.get(i).check(where, i, i < given.size() ? given.get(i) : null));
            }
        } catch (BridgeException e) {
            throw guestError(e);
        }
        OperationCall call =
                new OperationCall(
                        bridge.name(), op, java.util.Collections.unmodifiableList(checked), this);
        Object out;
        try {
            out = operation.handler().handle(call);
        } catch (BridgeException e) {
            throw guestError(e);
        } catch (RuntimeException e) {
            throw guestError(hostFailure(where, e));
        }
        if (out instanceof CompletionStage<?> stage) {
            return startPending(where, stage.toCompletableFuture());
        }
        return toGuest(out, where);
    }

    private JsValue startPending(String where, CompletableFuture<?> work) {
        JsContext.PromiseCapability cap = ctx.newPromise();
        int id = ++nextOpId;
        pending.put(id, new Pending(cap.resolve(), cap.reject(), work, where));
        work.whenComplete((v, err) -> completions.add(() -> complete(id, v, err)));
        return cap.promise();
    }

    /** Settles the guest promise of a finished host operation (engine thread). */
    private void complete(int id, Object value, Throwable err) {
        Pending p = pending.remove(id);
        if (p == null || ended) {
            return;
        }
        try {
            JsValue settleWith;
            JsValue fn;
            if (err == null) {
                try {
                    settleWith = toGuest(value, p.where());
                    fn = p.resolve();
                } catch (GuestFailure | TransportException e) {
                    settleWith = errorValue(hostFailure(p.where(), e));
                    fn = p.reject();
                }
            } else {
                settleWith = errorValue(asBridgeException(p.where(), err));
                fn = p.reject();
            }
            try (JsValue arg = settleWith) {
                // Resolving functions do not throw; the guest's handlers run later as jobs.
                ctx.call(fn, ctx.undefined(), arg).close();
            }
        } finally {
            p.resolve().close();
            p.reject().close();
        }
    }

    private BridgeException asBridgeException(String where, Throwable err) {
        Throwable cause = err;
        while ((cause instanceof CompletionException
                        || cause instanceof java.util.concurrent.ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof BridgeException be) {
            return be;
        }
        if (cause instanceof CancellationException) {
            return new BridgeException(
                    "CancelledError", "CANCELLED", where + " was cancelled before it finished");
        }
        return hostFailure(where, cause);
    }

    private BridgeException hostFailure(String where, Throwable e) {
        if (e instanceof TransportException te) {
            return new BridgeException(
                    "HostError",
                    "HOST_ERROR",
                    where + " returned a value that cannot enter the guest: " + te.getMessage());
        }
        LOG.log(Level.WARNING, "run " + runId + ": " + where + " failed on the host", e);
        return new BridgeException(
                "HostError",
                "HOST_ERROR",
                where + " failed on the host (" + e.getClass().getSimpleName() + ")");
    }

    private static JsException guestError(BridgeException e) {
        return guestError(e.name(), e.code(), e.getMessage());
    }

    private static JsException guestError(String name, String code, String message) {
        return new JsException(new JsError(name, message, ""), Map.of("code", code));
    }

    /** A guest Error object for a bridge failure, with its name and code. */
    private JsValue errorValue(BridgeException e) {
        JsValue err = ctx.newError(e.name(), e.getMessage());
        try (JsValue code = ctx.newString(e.code())) {
            err.set("code", code);
        }
        return err;
    }

    // ---------------------------------------------------------------------------------------
    // Values across the boundary.

    /** An owned guest value for a Java value; simple values are made directly, the rest decode. */
    private JsValue toGuest(Object v, String where) {
        if (v == null) {
            return ctx.nullValue();
        }
        if (v == Undefined.INSTANCE) {
            return ctx.undefined();
        }
        if (v instanceof Boolean b) {
            return ctx.bool(b);
        }
        if (v instanceof String s && s.length() <= Transport.LONG_STRING) {
            return ctx.newString(s);
        }
        if ((v instanceof Integer || v instanceof Long)
                && Math.abs(((Number) v).longValue()) <= (1L << 53) - 1) {
            return ctx.newNumber(((Number) v).longValue());
        }
        if (v instanceof Double d
                && Double.isFinite(d)
                && Double.doubleToRawLongBits(d) != Double.doubleToRawLongBits(-0.0)) {
            return ctx.newNumber(d);
        }
        byte[] binary = Transport.encodeBinary(v);
        if (binary != null) {
            return readBinary(binary);
        }
        Transport.Encoded enc = Transport.encode(v, where);
        try (JsValue json = ctx.newString(enc.json());
                JsValue side = sidecar(enc.sidecar())) {
            return checkedCall(decodeFn, json, side);
        }
    }

    /** The guest value of the engine's binary format, read natively ({@code JS_ReadObject}). */
    private JsValue readBinary(byte[] binary) {
        try (JsValue buffer = ctx.newArrayBuffer(binary);
                JsResult r = ctx.readObject(buffer)) {
            if (!r.isOk()) {
                throw new GuestFailure(classify(r.error(), false));
            }
            return r.value().dup();
        }
    }

    /** A guest array of the sidecar's entries: ArrayBuffers for bytes, strings for strings. */
    private JsValue sidecar(List<Object> parts) {
        JsValue arr = ctx.newArray();
        for (int i = 0; i < parts.size(); i++) {
            Object part = parts.get(i);
            try (JsValue v =
                    part instanceof String text
                            ? ctx.newString(text)
                            : ctx.newArrayBuffer((byte[]) part)) {
                ctx.setProperty(arr, String.valueOf(i), v);
            }
        }
        return arr;
    }

    private List<Object> readSidecar(JsValue arr) {
        List<Object> out = new ArrayList<>();
        try (JsValue len = arr.get("length")) {
            int n = (int) len.asNumber();
            for (int i = 0; i < n; i++) {
                try (JsValue part = ctx.getProperty(arr, i)) {
                    out.add(
                            part.typeOf().equals("string")
                                    ? part.asString()
                                    : ctx.toByteArray(part));
                }
            }
        }
        return out;
    }

    private JsValue checkedCall(JsValue fn, JsValue... args) {
        try (JsResult r = ctx.call(fn, ctx.undefined(), args)) {
            if (!r.isOk()) {
                throw new GuestFailure(classify(r.error(), false));
            }
            return r.value().dup();
        }
    }

    private record Encoded(Object value, boolean truncated) {}

    /**
     * Encodes a guest value with the codec (guest code: getters and proxies run under the run's
     * budget), checks its size against the output limit before copying it out, and decodes it.
     */
    private Encoded encode(JsValue v, String root, boolean truncate) {
        Object fast = encodeBinary(v);
        if (fast != NOT_PLAIN) {
            return new Encoded(fast, false);
        }
        JsValue pair;
        try (JsValue rootName = ctx.newString(root);
                JsResult r = ctx.call(encodeFn, ctx.undefined(), v, rootName)) {
            if (!r.isOk()) {
                JsError err = r.error();
                throw new GuestFailure(
                        err.name().equals("TransportError")
                                ? withPosition(
                                        RunError.Kind.EXCEPTION,
                                        err.name(),
                                        err.message(),
                                        err.stack())
                                : classify(err, false));
            }
            pair = r.value().dup();
        }
        try (pair;
                JsValue json = ctx.getProperty(pair, 0);
                JsValue side = ctx.getProperty(pair, 1);
                JsValue jsonLength = json.get("length");
                JsValue sideLength = side.get("length")) {
            long size = (long) jsonLength.asNumber();
            int parts = (int) sideLength.asNumber();
            for (int i = 0; i < parts; i++) {
                try (JsValue part = ctx.getProperty(side, i);
                        JsValue n =
                                part.get(
                                        part.typeOf().equals("string") ? "length" : "byteLength")) {
                    size += (long) n.asNumber();
                }
            }
            long max = limits.outputBytes();
            if (size > max) {
                if (!truncate) {
                    throw new GuestFailure(
                            RunError.of(
                                    RunError.Kind.OUTPUT,
                                    "OutputTooLarge",
                                    root
                                            + " is "
                                            + size
                                            + " bytes encoded (JSON characters plus binary"
                                            + " bytes); the output limit (outputBytes) is "
                                            + max));
                }
                try (JsValue n = ctx.newNumber(max);
                        JsValue cut = checkedCall(prefixFn, json, n)) {
                    return new Encoded(cut.asString(), true);
                }
            }
            return new Encoded(Transport.decode(json.asString(), readSidecar(side)), false);
        }
    }

    private static final Object NOT_PLAIN = new Object();

    /**
     * The binary path (docs/transport.md): the engine's native writer, read in Java, used only when
     * the result is provably what the codec's walk would return and fits the output limit;
     * otherwise {@link #NOT_PLAIN}, and the codec runs (it also names the path in every error).
     */
    private Object encodeBinary(JsValue v) {
        long max = limits.outputBytes();
        Transport.Binary read;
        try (JsResult written = ctx.writeObject(v)) {
            if (!written.isOk()) {
                JsError err = written.error();
                if (err.isInterrupted() || err.isOutOfMemory()) {
                    throw new GuestFailure(classify(err, false));
                }
                return NOT_PLAIN; // a function, accessor, proxy, Map, ...: the codec decides
            }
            JsValue buffer = written.value();
            // Checked before copying: the binary form is at most ~3x the codec's size.
            if (ctx.arrayBufferLength(buffer) > Transport.binaryBound(max)) {
                return NOT_PLAIN;
            }
            read = Transport.decodeBinary(ctx.toByteArray(buffer), max);
        }
        if (read == null) {
            return NOT_PLAIN; // not plain data, or near the limit: the codec measures exactly
        }
        if (read.plan().length > 0) {
            try (JsValue plan = ctx.newArrayBuffer(read.plan());
                    JsResult ok = ctx.call(protoCheckFn, ctx.undefined(), v, plan)) {
                if (!ok.isOk()) {
                    JsError err = ok.error();
                    if (err.isInterrupted() || err.isOutOfMemory()) {
                        throw new GuestFailure(classify(err, false));
                    }
                    return NOT_PLAIN;
                }
                if (!ctx.toBoolean(ok.value())) {
                    return NOT_PLAIN;
                }
            }
        }
        return read.value();
    }

    /** The object-valued globals the request injected, read back after a successful run. */
    private Map<String, Object> syncGlobals() {
        Map<String, Object> out = new LinkedHashMap<>();
        if (request.globals().isEmpty()) {
            return out;
        }
        try (JsValue global = ctx.global()) {
            for (Map.Entry<String, Object> g : request.globals().entrySet()) {
                if (isPrimitive(g.getValue()) || request.inputs().contains(g.getKey())) {
                    continue;
                }
                try (JsValue v = global.get(g.getKey())) {
                    out.put(g.getKey(), encode(v, g.getKey(), false).value);
                } catch (JsException e) {
                    throw new GuestFailure(classify(e.error(), false));
                }
            }
        }
        return out;
    }

    private static boolean isPrimitive(Object v) {
        return v == null
                || v instanceof Boolean
                || v instanceof Number && !(v instanceof java.math.BigDecimal)
                || v instanceof String
                || v instanceof Character
                || v instanceof BigInteger
                || v == Undefined.INSTANCE;
    }

    // ---------------------------------------------------------------------------------------
    // Errors.

    private static final Pattern POSITION = Pattern.compile(":(\\d+):(\\d+)");

    /** Maps a guest error to a run error; {@code compiling} marks errors of the entry's compile. */
    /**
     * A heap so full that QuickJS could not even allocate its out-of-memory error throws a bare
     * null; it is the heap's doing when the engine refused to grow during this run.
     */
    private boolean exhaustedHeap(JsError e) {
        return e.name().equals("object")
                && e.message().equals("null")
                && engine != null
                && engine.refusedGrowths() > refusedGrowthsAtStart;
    }

    private RunError classify(JsError e, boolean compiling) {
        if (e.isInterrupted() && budget.reason() != null) {
            return budget.error();
        }
        if (exhaustedHeap(e)) {
            return RunError.of(
                    RunError.Kind.MEMORY,
                    "InternalError",
                    "out of memory: the heap was too full for the engine to make its error object"
                            + " (the guest heap limit, heapBytes, is "
                            + limits.heapBytes()
                            + ")");
        }
        if (e.isOutOfMemory()) {
            return withPosition(
                    RunError.Kind.MEMORY,
                    e.name(),
                    e.message()
                            + " (the guest heap limit, heapBytes, is "
                            + limits.heapBytes()
                            + ")",
                    e.stack());
        }
        if (e.isStackOverflow()) {
            return withPosition(
                    RunError.Kind.STACK,
                    e.name(),
                    e.message() + " (the stack limit, stackBytes, is " + limits.stackBytes() + ")",
                    e.stack());
        }
        if (e.name().equals("ReferenceError") && e.message().startsWith("cannot import")) {
            return withPosition(RunError.Kind.IMPORT, e.name(), e.message(), e.stack());
        }
        if (compiling && e.name().equals("SyntaxError")) {
            return withPosition(RunError.Kind.SYNTAX, e.name(), e.message(), e.stack());
        }
        return withPosition(RunError.Kind.EXCEPTION, e.name(), e.message(), e.stack());
    }

    /**
     * An error whose stack positions in the user's file are mapped back to the user's own columns
     * (line 1 moved right by the wrapper), with the first such position as line and column.
     */
    private RunError withPosition(RunError.Kind kind, String name, String message, String stack) {
        String file = request.filename();
        stack = userFrames(stack);
        Matcher m = Pattern.compile(Pattern.quote(file) + POSITION.pattern()).matcher(stack);
        StringBuilder mapped = new StringBuilder();
        int line = 0;
        int column = 0;
        while (m.find()) {
            int l = Integer.parseInt(m.group(1));
            int c = Integer.parseInt(m.group(2));
            if (l == 1) {
                c = Math.max(1, c - line1Shift);
            }
            if (line == 0) {
                line = l;
                column = c;
            }
            m.appendReplacement(mapped, Matcher.quoteReplacement(file + ":" + l + ":" + c));
        }
        m.appendTail(mapped);
        return new RunError(kind, name, message, mapped.toString(), line, column);
    }

    /**
     * The stack without the sandbox's own frames: the prelude and codec ({@code sandjar:} files)
     * and the wrapper's call of the user's function (past the user's last line).
     */
    private String userFrames(String stack) {
        if (stack.isEmpty()) {
            return stack;
        }
        String file = request.filename();
        Pattern own = Pattern.compile("\\(?" + Pattern.quote(file) + ":(\\d+):\\d+\\)?\\s*$");
        StringBuilder out = new StringBuilder();
        for (String frame : stack.split("\n")) {
            if (frame.contains("sandjar:")) {
                continue;
            }
            Matcher m = own.matcher(frame);
            if (m.find() && Integer.parseInt(m.group(1)) > userLines) {
                continue;
            }
            out.append(frame).append('\n');
        }
        return out.toString();
    }

    private RunResult failure(RunError error) {
        return new RunResult(
                runId,
                null,
                error,
                false,
                logs.entries(),
                Map.of(),
                limits,
                stats(System.nanoTime() - receivedNanos));
    }

    private RunResult internal(Throwable e) {
        boolean broken = engine != null && engine.isBroken();
        if (!(e instanceof EngineFailureException)) {
            LOG.log(Level.WARNING, "run " + runId + " failed inside the sandbox", e);
        }
        String message =
                e instanceof QuickJsException || e instanceof IllegalStateException
                        ? e.getMessage()
                        : e.getClass().getSimpleName() + ": " + e.getMessage();
        return failure(
                RunError.of(
                        RunError.Kind.INTERNAL,
                        broken ? "EngineFailure" : "InternalError",
                        message + (broken ? " (the engine instance was replaced)" : "")));
    }

    private RunStats stats(long wall) {
        long guestCpu =
                guestCpuStart == 0 || engine == null ? 0 : Math.max(0, cpuSinceGuestStart());
        long pages = engine == null ? 0 : engine.currentPages();
        long grown = pagesAtStart < 0 ? 0 : pages - pagesAtStart;
        return new RunStats(
                queueNanos,
                phases[0],
                phases[1],
                phases[2],
                phases[3],
                phases[4],
                setupNanos,
                setupCpuNanos,
                guestCpu,
                wall,
                bridgeCalls,
                pages * 65536,
                grown * 65536);
    }

    private long cpuSinceGuestStart() {
        try {
            return budget.cpuNow() - guestCpuStart;
        } catch (RuntimeException e) {
            return 0;
        }
    }

    // ---------------------------------------------------------------------------------------
    // The end of a run: cancel what is in flight, run end actions, free the runtime.

    private void end() {
        ended = true;
        budget.cancel();
        for (Pending p : pending.values()) {
            p.work().cancel(true);
        }
        pending.clear();
        completions.clear();
        runEndActions();
        if (template != null) {
            // The runtime stays as the run left it: the next run restores the snapshot over it.
            template.route.current = null;
            QuickJsEngine.OpenObjects left = engine.openObjects();
            if (left.runtimes() != 1 || left.contexts() != 1) {
                LOG.warning("run " + runId + " left " + left + " open; the engine is retired");
                leaked = true;
                sandbox.countLeak();
            }
        }
        runtime = null;
    }

    private void runEndActions() {
        List<Runnable> actions;
        synchronized (endActions) {
            ended = true;
            actions = List.copyOf(endActions);
            endActions.clear();
        }
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                // Whatever one action throws, the others run and the run still ends.
                LOG.log(Level.WARNING, "run " + runId + ": an end action failed", e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // RunSession.

    @Override
    public String runId() {
        return runId;
    }

    @Override
    public Limits limits() {
        return limits;
    }

    @Override
    public boolean isCancelled() {
        return ended || budget.cancelRequested();
    }

    @Override
    public void holdResultUntil(CompletionStage<?> delivery) {
        // Any stage will do (not only a CompletableFuture), and how it completes does not matter.
        CompletableFuture<Void> f = new CompletableFuture<>();
        delivery.whenComplete((v, t) -> f.complete(null));
        synchronized (endActions) {
            if (!holdsClosed && !f.isDone()) {
                holds.add(f);
            }
        }
    }

    @Override
    public void onEnd(Runnable action) {
        synchronized (endActions) {
            if (!ended) {
                endActions.add(action);
                return;
            }
        }
        action.run();
    }

    @Override
    public void log(LogEntry.Level level, String message) {
        logs.add(level, message, "guest");
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T state(Object key, Supplier<T> create) {
        return (T) state.computeIfAbsent(key, k -> create.get());
    }

    @Override
    public Executor executor() {
        return sandbox.blockingExecutor();
    }

    @Override
    public CompletableFuture<Void> delay(Duration delay) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ScheduledFuture<?> timer =
                sandbox.timer()
                        .schedule(
                                () -> done.complete(null),
                                Math.max(0, delay.toNanos()),
                                TimeUnit.NANOSECONDS);
        onEnd(
                () -> {
                    timer.cancel(false);
                    done.completeExceptionally(
                            new BridgeException(
                                    "CancelledError", "CANCELLED", "the run ended during a delay"));
                });
        return done;
    }

    // ---------------------------------------------------------------------------------------
    // The module loader: the enforcement point for imports.

    private final class Loader implements ModuleLoader {
        @Override
        public String normalize(String importer, String specifier) {
            if (!linking) {
                throw new ModuleRefusedException(
                        "dynamic import() is not allowed in the sandbox; import it statically at"
                                + " the top of the code");
            }
            if (specifier.startsWith(BRIDGE_MODULE)) {
                return bridgeModule(importer, specifier.substring(BRIDGE_MODULE.length()));
            }
            ModuleResolution resolution = request.modules();
            if (resolution == null) {
                throw new ModuleRefusedException("this run declares no modules");
            }
            ModuleResolution.Module m;
            try {
                m = resolution.resolve(importer, specifier);
            } catch (ModuleResolution.Refused e) {
                throw new ModuleRefusedException(e.getMessage());
            }
            if (m == null) {
                throw new ModuleRefusedException("no module is available under that name");
            }
            if (m.name().equals(request.filename())) {
                throw new ModuleRefusedException("a module cannot take the run's own filename");
            }
            ModuleResolution.Module known = modulesByName.putIfAbsent(m.name(), m);
            if (known != null && !known.equals(m)) {
                throw new ModuleRefusedException(
                        "module " + m.name() + " resolved to two different modules in one run");
            }
            moduleSources.put(m.name(), m.source());
            return m.name();
        }

        /**
         * {@code sandjar:bridge/<name>}, for the module that declared that bridge only. The host
         * object waits under a registry symbol until the synthetic module, which evaluates before
         * any module that imports it and long before the user's code, takes it and deletes it.
         */
        private String bridgeModule(String importer, String name) {
            ModuleResolution.Module owner = modulesByName.get(importer);
            Bridge bridge =
                    owner == null
                            ? null
                            : owner.bridges().stream()
                                    .filter(b -> b.name().equals(name))
                                    .findFirst()
                                    .orElse(null);
            if (bridge == null) {
                throw new ModuleRefusedException(
                        "a bridge module can only be imported by the module that declares it");
            }
            String moduleName = BRIDGE_MODULE + name;
            if (moduleSources.containsKey(moduleName)) {
                if (!bridges.contains(bridge)) {
                    throw new ModuleRefusedException(
                            "two different bridges are named '" + name + "' in this run");
                }
                return moduleName;
            }
            for (Bridge b : bridges) {
                if (b.name().equals(name) && b != bridge) {
                    throw new ModuleRefusedException(
                            "two different bridges are named '" + name + "' in this run");
                }
            }
            int index = bridges.indexOf(bridge);
            if (index < 0) {
                bridges.add(bridge);
                index = bridges.size() - 1;
            }
            String key = "sandjar.bridge." + name;
            try (JsValue global = ctx.global();
                    JsValue symbol = ctx.newSymbol(key, true);
                    JsValue i = ctx.newNumber(index);
                    JsValue n = ctx.newString(name);
                    JsValue host = checkedCall(makeHostFn, i, n)) {
                ctx.setPropertyByKey(global, symbol, host);
            }
            moduleSources.put(
                    moduleName,
                    "const key = Symbol.for("
                            + "\""
                            + key
                            + "\""
                            + ");\nconst host = globalThis[key];\ndelete globalThis[key];\n"
                            + "export default host;\n");
            return moduleName;
        }

        @Override
        public String load(String moduleName) {
            String source = moduleSources.get(moduleName);
            if (source == null) {
                throw new ModuleRefusedException("module " + moduleName + " was not resolved");
            }
            return source;
        }
    }
}
