package dev.sandjar.host;

import dev.sandjar.quickjs.EngineFailureException;
import dev.sandjar.quickjs.EnginePool;
import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsMemoryException;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.ModuleLoader;
import dev.sandjar.quickjs.QuickJsEngine;
import dev.sandjar.quickjs.QuickJsException;
import dev.sandjar.transport.codec.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One run, start to finish, on its engine's thread (docs/sandbox.md, "A run, in order"): the
 * coordinator of the run's parts. {@link RunSetup} restores the prepared template and defines the
 * globals, the entry module is evaluated here, {@link EventLoop} drives it to its result with
 * {@link BridgeDispatcher} serving host calls and {@link RunModuleLoader} imports, {@link
 * ValueTransfer} moves values across, {@link ErrorClassifier} maps what the guest threw, and {@link
 * RunStatsRecorder} counts the cost; {@link ExecutionSession} is the run as bridges see it.
 * Everything that touches the engine runs on the engine thread; {@link #cancel()} and the event
 * loop's completion queue are the thread-safe edges.
 */
final class RunExecution {
    private static final Logger LOG = Logger.getLogger(RunExecution.class.getName());

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
    private final Redactions redactions = new Redactions();
    private final ExecutionSession session;
    private final EventLoop loop;
    private final RunStatsRecorder stats;
    private final RunModuleLoader loader;
    private final SessionCall sessionCall; // a session's call or a warm lambda's, else null
    private final LambdaCall lambda; // null unless the run calls an exported function
    private volatile boolean started;
    private volatile Watchdog.Watch watch; // from execute until the run returns from the guest
    private boolean leaked;

    /** The bridges of this run: the request's, then those modules declared, by dispatch index. */
    private final List<Bridge> bridges = new ArrayList<>();

    // Engine thread only.
    private QuickJsEngine engine;
    private int refusedGrowthsAtStart;
    private Template template;
    private ErrorClassifier errors; // once the entry is built: it knows the wrapper's shift
    private ValueTransfer values;
    private BridgeDispatcher dispatcher;

    /** Stops the run with an error from deep inside a step. */
    static final class GuestFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient RunError error;

        GuestFailure(RunError error) {
            super(error.toString(), null, false, false);
            this.error = error;
        }

        RunError error() {
            return error;
        }
    }

    RunExecution(
            Sandbox sandbox,
            RunRequest request,
            Limits limits,
            String runId,
            Transport.Encoded globals,
            byte[] binaryGlobals,
            CompletableFuture<RunResult> result,
            SessionCall sessionCall,
            LambdaCall lambda) {
        this.sandbox = sandbox;
        this.sessionCall = sessionCall;
        this.lambda = lambda;
        this.request = request;
        this.limits = limits;
        this.runId = runId;
        this.receivedNanos = System.nanoTime();
        this.globals = globals;
        this.binaryGlobals = binaryGlobals;
        this.result = result;
        this.budget = new RunBudget(limits, request.clock(), receivedNanos);
        this.logs =
                new LogCollector(
                        limits.logLines(), limits.logChars(), request.logListener(), redactions);
        this.session =
                new ExecutionSession(
                        sandbox,
                        runId,
                        limits,
                        budget,
                        logs,
                        redactions,
                        this::wakeLoop,
                        request.hostMemories());
        this.loop = new EventLoop(budget, e -> classify(e, false));
        this.stats = new RunStatsRecorder(budget);
        this.loader = new RunModuleLoader(request, bridges);
    }

    // ---------------------------------------------------------------------------------------
    // Thread-safe edges.

    /** Wakes the event loop so it looks at the budget now (host work spent it). */
    private void wakeLoop() {
        loop.wake();
    }

    /** Cancels from any thread: a queued run never starts, a running one is interrupted. */
    void cancel() {
        budget.cancel();
        Watchdog.Watch w = watch;
        if (w != null) {
            w.cancelled(); // a run stuck in native code ignores the flag: interrupt it
        }
        loop.wake();
        if (!started) {
            finishUnstarted(budget.cancelRequested() ? cancelledResult() : null);
        }
    }

    /** Completes the result of a run that never reached an engine. */
    void finishUnstarted(RunResult r) {
        if (r != null) {
            session.runEndActions();
            result.complete(r);
        }
    }

    RunResult cancelledResult() {
        return failure(
                RunError.of(RunError.Kind.CANCELLED, "CancelledError", "the run was cancelled"));
    }

    // ---------------------------------------------------------------------------------------
    // The run, on the engine thread. Completes the result, then returns the lease.

    void execute(QuickJsEngine engine, EnginePool.Lease lease) {
        try {
            executeOnEngine(engine, lease);
        } catch (Throwable t) {
            // Out of memory in host code on this thread, or a defect past every other catch: the
            // engine's state is unknown. Whatever happened, no interrupt of this run's watch may
            // reach the thread's next task, the engine is replaced, and the caller gets a result.
            abandon(engine, lease, t);
        }
    }

    private void abandon(QuickJsEngine engine, EnginePool.Lease lease, Throwable t) {
        Watchdog.Watch w = watch;
        if (w != null) {
            w.close();
        }
        Thread.interrupted();
        try {
            lease.retire();
        } catch (IllegalStateException alreadyReturned) {
            // the run had returned its engine before it failed
        }
        sandbox.templates().forget(engine);
        try {
            session.runEndActions();
        } catch (Throwable ignored) {
            // the end actions ran already, or cannot run now; the engine is replaced either way
        }
        if (!result.isDone()) {
            String what =
                    t instanceof OutOfMemoryError
                            ? "the host ran out of memory during the run"
                            : "the run failed inside the sandbox ("
                                    + t.getClass().getSimpleName()
                                    + ")";
            result.complete(
                    failure(
                            RunError.of(
                                    RunError.Kind.INTERNAL,
                                    "InternalError",
                                    what + "; the engine instance was replaced")));
        }
        try {
            lease.close();
        } catch (IllegalStateException alreadyReturned) {
            // returned before the failure
        }
        if (!(t instanceof VirtualMachineError)) {
            LOG.log(Level.WARNING, "run " + runId + " failed inside the sandbox", t);
        }
    }

    private void executeOnEngine(QuickJsEngine engine, EnginePool.Lease lease) {
        started = true;
        this.engine = engine;
        stats.started(engine, System.nanoTime() - receivedNanos);
        session.host().engineThread(Thread.currentThread());
        watch = sandbox.watchdog().watch(budget, runId);
        if (budget.cancelRequested()) {
            watch.cancelled(); // cancel() ran before it could see the watch
        }
        RunResult r;
        try {
            r = budget.cancelRequested() ? cancelledResult() : runOnEngine();
        } catch (InvalidRequestException | SessionException e) {
            watch.close();
            end();
            result.completeExceptionally(e);
            lease.close();
            return;
        } catch (RuntimeException | StackOverflowError e) {
            // The watchdog's interrupt unwinds the engine (ChicoryInterruptedException, or an
            // engine failure when it crossed a host import): the budget's error, not a defect.
            r = budget.watchdogFired() ? null : internal(e);
        }
        // No interrupt reaches this thread after this, and one that did is cleared.
        boolean interrupted = watch.close();
        if (interrupted || r == null) {
            budget.expired(); // true: the watchdog's reason sticks
            r = failure(budget.error());
        }
        end();
        if (sessionCall != null) {
            r = keepSessionState(r, interrupted);
        }
        RunResult done = r;
        CompletableFuture<Void> held = session.heldBy();
        if (held == null) {
            result.complete(done);
        }
        try {
            if (interrupted) {
                // Interrupted anywhere inside the engine, its memory is in an unknown state.
                lease.retire();
                sandbox.templates().forget(engine);
            } else if (leaked
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
     * A session call's end: the engine's state becomes the session's when the engine is consistent
     * (the guest ran to a result or an error QuickJS unwound from: a throw, a timeout at an
     * interrupt check, out of memory); otherwise the session keeps its state from before the call
     * and the result says so.
     */
    private RunResult keepSessionState(RunResult r, boolean interrupted) {
        String lost = null;
        if (template == null) {
            return r; // the call never reached the engine's state: nothing changed
        } else if (interrupted) {
            lost = "the engine was stopped inside native code";
        } else if (engine.isBroken()) {
            lost = "the engine failed";
        } else if (leaked) {
            lost = "the call left engine objects open";
        } else {
            try {
                sessionCall.after = engine.captureImage(template.snapshot);
                return r;
            } catch (RuntimeException e) {
                lost = "its state could not be taken (" + e.getMessage() + ")";
            }
        }
        sessionCall.lost = lost;
        String note = lost + "; the session was reset to its state before this call";
        RunError e = r.error();
        RunError noted =
                e == null
                        ? RunError.of(RunError.Kind.INTERNAL, "SessionReset", note)
                        : new RunError(
                                e.kind(),
                                e.name(),
                                e.message() + " (" + note + ")",
                                e.stack(),
                                e.line(),
                                e.column());
        return failure(noted);
    }

    /**
     * Completes the result once the bridges' deliveries are done, or after {@link
     * RunSession#MAX_RESULT_HOLD}. The engine is free already. The result completes on the
     * sandbox's executor, never on the JDK's shared timeout thread, so a caller's blocking callback
     * cannot stall other runs' holds.
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
        held.orTimeout(RunSession.MAX_RESULT_HOLD.toMillis(), TimeUnit.MILLISECONDS)
                .whenCompleteAsync(
                        (v, t) -> {
                            if (t instanceof TimeoutException) {
                                LOG.warning(
                                        "run "
                                                + runId
                                                + ": bridge deliveries still pending "
                                                + RunSession.MAX_RESULT_HOLD.toSeconds()
                                                + " s after the run ended; the result"
                                                + " completes without them");
                            }
                            result.complete(done);
                        },
                        executor);
    }

    private RunResult runOnEngine() {
        long t0 = System.nanoTime();
        EntryModule.Built entry = null;
        SessionEntry.Built sessionEntry = null;
        if (lambda != null && lambda.loaded()) {
            // a warm lambda's later call: its module is in the session image already
        } else if (sessionCall != null && lambda == null) {
            CodeAnalyzer.SessionPlan plan = sandbox.analyzer().sessionPlan(request.code());
            if (plan.syntaxError() != null) {
                return failure(plan.syntaxError());
            }
            sessionEntry = SessionEntry.build(plan, sessionCall.known);
        } else {
            entry =
                    EntryModule.build(
                            request.code(), () -> sandbox.analyzer().parse(request.code()));
        }
        stats.phases().analysisNanos = System.nanoTime() - t0;
        if (entry != null && entry.syntaxError() != null) {
            return failure(entry.syntaxError());
        }
        if (entry != null && lambda != null && (entry.wrapped() || entry.script())) {
            return failure(
                    RunError.of(
                            RunError.Kind.EXCEPTION,
                            "TypeError",
                            "a lambda's code is a module that exports the function '"
                                    + lambda.function
                                    + "'; this code has no export"));
        }
        int userLines =
                entry == null || entry.wrapped()
                        ? request.code().split("\r\n|\r|\n|\u2028|\u2029", -1).length
                        : Integer.MAX_VALUE;
        errors =
                new ErrorClassifier(
                        request.filename(),
                        entry != null
                                ? entry.line1Shift()
                                : sessionEntry != null ? sessionEntry.line1Shift() : 0,
                        userLines,
                        limits.heapBytes(),
                        limits.stackBytes());
        try {
            RunSetup setup = new RunSetup(sandbox, limits, budget, stats.phases());
            bridges.addAll(request.bridges());
            template =
                    setup.restore(
                            engine, this, bridges, sessionCall == null ? null : sessionCall.before);
            refusedGrowthsAtStart = engine.refusedGrowths();
            values =
                    new ValueTransfer(
                            template,
                            limits.outputBytes(),
                            e -> classify(e, false),
                            this::backFromGuest);
            dispatcher =
                    new BridgeDispatcher(template.context, bridges, session, budget, values, loop);
            loader.attach(template, values);
            if (sessionCall != null) {
                setup.removeGlobals(template, this, sessionCall.previousGlobals);
            }
            setup.defineGlobals(template, values, this, globals, binaryGlobals);
            stats.guestStarts();
            if (sessionEntry != null) {
                return evaluateSession(sessionEntry);
            }
            if (entry == null) {
                bridges.addAll(lambda.linked);
                try (JsValue global = template.context.global()) {
                    return callExport(global.get(LambdaCall.MODULE_GLOBAL));
                }
            }
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

    /** Evaluates the entry, drives it to its result, and reads the result and synced globals. */
    private RunResult evaluate(EntryModule.Built entry) {
        JsContext ctx = template.context;
        JsValue evaluated;
        loader.linking(!entry.script());
        try (JsResult r =
                entry.script()
                        ? ctx.evalScript(entry.source(), request.filename())
                        : ctx.evalModule(entry.source(), request.filename())) {
            loader.linking(false);
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
            evaluated = r.orThrow();
        } finally {
            loader.linking(false);
        }
        if (entry.script()) {
            // The script's value is the user's async function: call it, as the module would, with
            // this undefined; what it returns is the promise of the result.
            try (JsValue fn = evaluated;
                    JsResult called = ctx.call(fn, ctx.undefined())) {
                if (!called.isOk()) {
                    return failure(classify(called.error(), true));
                }
                evaluated = called.orThrow();
            }
        }
        if (lambda != null) {
            JsValue namespace = settle(evaluated);
            if (lambda.keep) {
                try (JsValue global = template.context.global()) {
                    template.context.setProperty(global, LambdaCall.MODULE_GLOBAL, namespace);
                }
                lambda.linkedAfter =
                        List.copyOf(bridges.subList(request.bridges().size(), bridges.size()));
                lambda.kept = true;
            }
            return callExport(namespace);
        }
        ValueTransfer.Encoded out;
        try (JsValue settled = settle(evaluated);
                JsValue v = entry.script() ? settled.dup() : settled.get("default")) {
            FaultPoints.at(FaultPoints.RESULT);
            backFromGuest();
            out = values.encode(v, "result", request.truncateOutput());
        }
        Map<String, Object> synced = values.syncGlobals(request);
        return new RunResult(
                runId,
                out.value(),
                null,
                out.truncated(),
                logs.entries(),
                synced,
                limits,
                runStats());
    }

    /** Calls the lambda's export with its arguments and drives what it returns to the result. */
    private RunResult callExport(JsValue namespace) {
        JsContext ctx = template.context;
        JsValue promise;
        try (JsValue ns = namespace;
                JsValue fn = ns.get(lambda.function)) {
            String type = fn.typeOf();
            if (!type.equals("function")) {
                return failure(
                        RunError.of(
                                RunError.Kind.EXCEPTION,
                                "TypeError",
                                "the module has no exported function '"
                                        + lambda.function
                                        + "' (that export is "
                                        + type
                                        + ")"));
            }
            JsValue[] args = new JsValue[lambda.args.size()];
            try {
                for (int i = 0; i < args.length; i++) {
                    args[i] = values.toGuest(lambda.args.get(i), "args[" + i + "]");
                }
                try (JsResult called = ctx.call(fn, ctx.undefined(), args)) {
                    if (!called.isOk()) {
                        return failure(classify(called.error(), false));
                    }
                    promise = called.orThrow();
                }
            } finally {
                for (JsValue a : args) {
                    if (a != null) {
                        a.close();
                    }
                }
            }
        }
        return settledResult(promise);
    }

    /**
     * Drives {@code promise} (the value a session call's body or a lambda returned) to the run's
     * result, closing every handle on the way: a session's engine is imaged afterwards.
     */
    private RunResult settledResult(JsValue promise) {
        JsValue settled = null;
        try {
            settled = settle(promise);
        } finally {
            if (settled != promise) {
                promise.close();
            }
        }
        ValueTransfer.Encoded out;
        try (JsValue v = settled) {
            backFromGuest();
            out = values.encode(v, "result", request.truncateOutput());
        }
        return new RunResult(
                runId,
                out.value(),
                null,
                out.truncated(),
                logs.entries(),
                values.syncGlobals(request),
                limits,
                runStats());
    }

    /**
     * Evaluates a session call: its declarations at global scope (they stay declared even when the
     * body then fails), then its body, driven to its result like a script entry's.
     */
    private RunResult evaluateSession(SessionEntry.Built entry) {
        JsContext ctx = template.context;
        JsValue binder;
        try (JsResult d = ctx.evalScript(entry.declarations(), SessionEntry.DECLARATIONS_FILE)) {
            if (!d.isOk()) {
                return failure(classify(d.error(), true));
            }
            binder = d.orThrow();
        }
        sessionCall.declared(entry.declared());
        JsValue promise;
        try (JsValue b = binder) {
            try (JsResult r = ctx.evalScript(entry.body(), request.filename())) {
                if (!r.isOk()) {
                    return failure(classify(r.error(), true));
                }
                try (JsValue fn = r.orThrow();
                        JsResult called = ctx.call(fn, ctx.undefined(), b)) {
                    if (!called.isOk()) {
                        return failure(classify(called.error(), true));
                    }
                    promise = called.orThrow();
                }
            }
        }
        return settledResult(promise);
    }

    /** Drives the entry; a thrown object that is not an Error is named by its class. */
    private JsValue settle(JsValue entry) {
        try {
            return loop.settle(template.context, template.runtime, entry, dispatcher);
        } catch (GuestFailure f) {
            JsError named =
                    f.error.kind() == RunError.Kind.EXCEPTION
                            ? ThrownValues.named(template, entry)
                            : null;
            throw named == null ? f : new GuestFailure(classify(named, false));
        }
    }

    // ---------------------------------------------------------------------------------------
    // The template's host callbacks land here (Template.Route), and go to the run's parts.

    ModuleLoader loader() {
        return loader;
    }

    boolean shouldInterrupt() {
        return budget.expired();
    }

    JsValue dispatch(JsContext c, JsValue self, List<JsValue> args) {
        if (dispatcher == null) {
            // Only a bridge's guest code calling the host while its template is built gets here.
            throw new EngineException(
                    "no host call is possible while the sandbox builds the bridges' guest code");
        }
        return dispatcher.dispatch(args);
    }

    /** A failure of host-supplied code during setup (the codec, the prelude, globals). */
    RuntimeException setupFailure(JsError err) {
        if (err.isInterrupted() || err.isOutOfMemory()) {
            return new GuestFailure(classify(err, false));
        }
        return new EngineException("sandbox setup failed: " + err + "\n" + err.stack());
    }

    // ---------------------------------------------------------------------------------------
    // Outcomes.

    /**
     * Control is back from guest code. A native call (a built-in walking a huge array-like) runs
     * without polling the interrupt handler and can overshoot the budget and still return: a run
     * whose budget is spent here is stopped with the budget's error, whatever the guest produced.
     */
    private void backFromGuest() {
        if (budget.expired()) {
            throw new GuestFailure(budget.error());
        }
    }

    /**
     * Maps a guest error to a run error; {@code compiling} marks errors of the entry's compile. A
     * spent budget wins over what the guest threw (an allocation loop that overran its CPU budget
     * before its out-of-memory error is a TIMEOUT): the guest's error is then a consequence of the
     * run going on past its bound.
     */
    private RunError classify(JsError e, boolean compiling) {
        // A spent budget wins, cancellation included: the guest may meet a cancel as an uncaught
        // CancelledError from a host call before any interrupt check (SandboxRun.cancel).
        if (budget.expired()) {
            return budget.error();
        }
        boolean growthRefused =
                ErrorClassifier.isBareNull(e)
                        && engine != null
                        && engine.refusedGrowths() > refusedGrowthsAtStart;
        return errors.classify(e, compiling, null, growthRefused); // the budget is not spent
    }

    private RunResult failure(RunError error) {
        return new RunResult(
                runId,
                null,
                redactions.apply(error),
                false,
                logs.entries(),
                Map.of(),
                limits,
                runStats());
    }

    private RunStats runStats() {
        return stats.stats(
                System.nanoTime() - receivedNanos,
                dispatcher == null ? 0 : dispatcher.calls(),
                dispatcher == null ? Map.of() : dispatcher.callsByBridge());
    }

    private RunResult internal(Throwable e) {
        boolean broken = engine != null && engine.isBroken();
        if (!(e instanceof EngineFailureException)) {
            LOG.log(Level.WARNING, "run " + runId + " failed inside the sandbox", e);
        }
        String message =
                e instanceof QuickJsException
                                || e instanceof EngineException
                                || e instanceof IllegalStateException
                        ? e.getMessage()
                        : e.getClass().getSimpleName() + ": " + e.getMessage();
        return failure(
                RunError.of(
                        RunError.Kind.INTERNAL,
                        broken ? "EngineFailure" : "InternalError",
                        message + (broken ? " (the engine instance was replaced)" : "")));
    }

    /** The end of a run: cancel what is in flight, run end actions, check nothing leaked. */
    private void end() {
        session.markEnded();
        budget.cancel();
        if (dispatcher != null) {
            dispatcher.cancelAll();
        }
        loop.clear();
        session.runEndActions();
        if (template != null && !engine.isBroken()) {
            // The runtime stays as the run left it: the next run restores the snapshot over it.
            template.route.current = null;
            QuickJsEngine.OpenObjects left = engine.openObjects();
            if (left.runtimes() != 1 || left.contexts() != 1) {
                LOG.warning("run " + runId + " left " + left + " open; the engine is retired");
                leaked = true;
                sandbox.countLeak();
            }
        }
    }
}
