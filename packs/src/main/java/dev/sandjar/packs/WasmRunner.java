package dev.sandjar.packs;

import com.dylibso.chicory.runtime.Instance;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunSession;
import dev.sandjar.transport.Undefined;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs calls into checked pack WebAssembly: each call instantiates the module fresh (Chicory's
 * interpreter, no imports), calls the export on a worker thread, and drops the instance, so no
 * memory or global survives a call. Arguments are checked by the host against the export's
 * signature before anything runs: an {@code i32} must be an integer in int32 range (nothing wraps),
 * {@code f32}/{@code f64} any number. A call past its timeout is interrupted (the interpreter
 * checks for interruption as it runs) and fails with {@code WASM_TIMEOUT}.
 */
final class WasmRunner {
    private static final ExecutorService POOL =
            new ThreadPoolExecutor(
                    WasmBudgets.POOL_SIZE,
                    WasmBudgets.POOL_SIZE,
                    0,
                    TimeUnit.MILLISECONDS,
                    new LinkedBlockingQueue<>(),
                    daemon("sandjar-wasm"));
    private static final ScheduledThreadPoolExecutor TIMER =
            new ScheduledThreadPoolExecutor(1, daemon("sandjar-wasm-timer"));

    static {
        TIMER.setRemoveOnCancelPolicy(true);
    }

    private WasmRunner() {}

    /**
     * The bridge a WASM module's facade imports: one operation per declared export, named by its
     * JavaScript name.
     */
    static Bridge bridge(
            String bridgeName, String specifier, WasmCheck.Checked wasm, WasmBudgets budgets) {
        Bridge.Builder b = Bridge.builder(bridgeName).guest("(host) => ({})");
        for (WasmCheck.Function f : wasm.functions()) {
            Operation.Builder op = Operation.builder(f.as());
            for (int i = 0; i < f.params().size(); i++) {
                String name = "arg" + i + ":" + f.params().get(i).wat();
                op.param(
                        f.params().get(i) == WasmCheck.Scalar.I32
                                ? Param.integer(name).range(Integer.MIN_VALUE, Integer.MAX_VALUE)
                                : Param.any(name));
            }
            op.handler(call -> call(call, specifier, wasm, f, budgets));
            b.operation(op.build());
        }
        return b.build();
    }

    private static Object call(
            OperationCall call,
            String specifier,
            WasmCheck.Checked wasm,
            WasmCheck.Function f,
            WasmBudgets budgets) {
        String where = specifier + " " + f.as();
        long[] args = new long[f.params().size()];
        for (int i = 0; i < args.length; i++) {
            Object v = call.arg(i);
            switch (f.params().get(i)) {
                case I32 -> args[i] = (Long) v;
                case F32 -> args[i] = Float.floatToRawIntBits((float) number(where, i, v));
                case F64 -> args[i] = Double.doubleToRawLongBits(number(where, i, v));
            }
        }
        RunState state =
                call.session().state(budgets, () -> RunState.open(budgets, call.session()));
        return state.submit(new Call(where, wasm, f, args));
    }

    private static double number(String where, int index, Object v) {
        if (v instanceof Long l) {
            return l.doubleValue();
        }
        if (v instanceof Double d) {
            return d;
        }
        throw BridgeException.invalidArgument(
                where + ": argument " + (index + 1) + " must be a number");
    }

    /** One pending or running call. */
    private static final class Call {
        final String where;
        final WasmCheck.Checked wasm;
        final WasmCheck.Function function;
        final long[] args;
        final CompletableFuture<Object> result = new CompletableFuture<>();
        // Guarded by this: the worker running it, and whether it may still be interrupted.
        private Thread worker;
        private boolean finished;
        private String stopReason;

        Call(String where, WasmCheck.Checked wasm, WasmCheck.Function function, long[] args) {
            this.where = where;
            this.wasm = wasm;
            this.function = function;
            this.args = args;
        }

        /** The worker taking the call; a stop that came first interrupts it at once. */
        synchronized void started(Thread t) {
            worker = t;
            if (stopReason != null) {
                t.interrupt();
            }
        }

        /** Interrupts the worker if the call is still running; the reason names the failure. */
        synchronized void stop(String reason) {
            if (!finished && stopReason == null) {
                stopReason = reason;
                if (worker != null) {
                    worker.interrupt();
                }
            }
        }

        /** Ends interruption; after this the worker's interrupt flag is cleared for good. */
        synchronized String finish() {
            finished = true;
            Thread.interrupted();
            return stopReason;
        }
    }

    /** A run's WebAssembly budget: calls made, calls running, time used, calls waiting. */
    private static final class RunState {
        private final WasmBudgets budgets;
        private int calls;
        private int running;
        private long usedNanos;
        private boolean ended;
        private final Deque<Call> waiting = new ArrayDeque<>();
        private final java.util.Set<Call> active = new java.util.HashSet<>();

        private RunState(WasmBudgets budgets) {
            this.budgets = budgets;
        }

        static RunState open(WasmBudgets budgets, RunSession session) {
            RunState s = new RunState(budgets);
            session.onEnd(s::end);
            return s;
        }

        CompletableFuture<Object> submit(Call call) {
            synchronized (this) {
                if (ended) {
                    throw BridgeException.cancelled(call.where + ": the run has ended");
                }
                if (calls >= budgets.callsPerRun()) {
                    throw new BridgeException(
                            "WasmBudgetError",
                            "WASM_CALL_LIMIT",
                            call.where
                                    + ": a run may make at most "
                                    + budgets.callsPerRun()
                                    + " WebAssembly calls");
                }
                if (usedNanos >= budgets.runTime().toNanos()) {
                    throw timeBudget(call.where);
                }
                calls++;
                waiting.add(call);
            }
            pump();
            return call.result;
        }

        private BridgeException timeBudget(String where) {
            return new BridgeException(
                    "WasmBudgetError",
                    "WASM_TIME_BUDGET",
                    where
                            + ": the run's WebAssembly calls used their "
                            + budgets.runTime().toMillis()
                            + " ms together");
        }

        private void pump() {
            while (true) {
                Call next;
                synchronized (this) {
                    if (ended || running >= budgets.concurrentCalls() || waiting.isEmpty()) {
                        return;
                    }
                    next = waiting.poll();
                    running++;
                    active.add(next);
                }
                try {
                    POOL.execute(() -> execute(next));
                } catch (RuntimeException e) {
                    done(next, 0);
                    next.result.completeExceptionally(e);
                }
            }
        }

        private void execute(Call call) {
            long timeout;
            synchronized (this) {
                if (ended) {
                    done(call, 0);
                    call.result.completeExceptionally(
                            BridgeException.cancelled(call.where + ": the run ended"));
                    return;
                }
                long remaining = budgets.runTime().toNanos() - usedNanos;
                if (remaining <= 0) {
                    done(call, 0);
                    call.result.completeExceptionally(timeBudget(call.where));
                    return;
                }
                timeout = Math.min(budgets.callTimeout().toNanos(), remaining);
            }
            call.started(Thread.currentThread());
            String timeoutReason = "timeout";
            ScheduledFuture<?> killer =
                    TIMER.schedule(() -> call.stop(timeoutReason), timeout, TimeUnit.NANOSECONDS);
            long start = System.nanoTime();
            Object value = null;
            Throwable failure = null;
            try {
                value = invoke(call);
            } catch (Throwable t) { // traps, interruption, stack and memory exhaustion
                failure = t;
            }
            killer.cancel(false);
            String stopped = call.finish();
            long used = System.nanoTime() - start;
            done(call, used);
            if (stopped != null) {
                call.result.completeExceptionally(
                        stopped.equals(timeoutReason)
                                ? new BridgeException(
                                        "TimeoutError",
                                        "WASM_TIMEOUT",
                                        call.where
                                                + ": ran longer than "
                                                + TimeUnit.NANOSECONDS.toMillis(timeout)
                                                + " ms and was stopped")
                                : BridgeException.cancelled(call.where + ": the run ended"));
            } else if (failure != null) {
                call.result.completeExceptionally(failed(call.where, failure));
            } else {
                call.result.complete(value);
            }
        }

        private void done(Call call, long usedNanos) {
            synchronized (this) {
                running--;
                active.remove(call);
                this.usedNanos += usedNanos;
            }
            pump();
        }

        private void end() {
            List<Call> stop;
            synchronized (this) {
                ended = true;
                stop = List.copyOf(active);
                for (Call c : waiting) {
                    c.result.completeExceptionally(
                            BridgeException.cancelled(c.where + ": the run ended"));
                }
                waiting.clear();
            }
            stop.forEach(c -> c.stop("cancelled"));
        }
    }

    private static Object invoke(Call call) {
        Instance instance = Instance.builder(call.wasm.module()).build();
        long[] out = instance.export(call.function.wasm()).apply(call.args);
        WasmCheck.Scalar result = call.function.result();
        if (result == null) {
            return Undefined.INSTANCE;
        }
        return switch (result) {
            case I32 -> (long) (int) out[0];
            case F32 -> (double) Float.intBitsToFloat((int) out[0]);
            case F64 -> Double.longBitsToDouble(out[0]);
        };
    }

    private static BridgeException failed(String where, Throwable t) {
        if (t instanceof StackOverflowError) {
            return new BridgeException(
                    "WasmTrap", "WASM_TRAP", where + ": trapped: call stack exhausted");
        }
        if (t instanceof OutOfMemoryError) {
            return new BridgeException(
                    "WasmTrap", "WASM_MEMORY", where + ": the host ran out of memory for the call");
        }
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return new BridgeException("WasmTrap", "WASM_TRAP", where + ": trapped: " + message);
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
