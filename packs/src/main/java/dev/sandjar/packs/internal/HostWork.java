package dev.sandjar.packs.internal;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.RunSession;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Runs a host module's work for one guest call off the engine thread, bounded and counted against
 * the run. Every call may use {@link #CALL_CPU} of CPU and produce {@link #CALL_OUTPUT} units of
 * output (characters or bytes, as the module counts them); all host-module calls of one run
 * together may use as much CPU as the run's own CPU budget ({@code limits().timeout()}) and produce
 * {@link #RUN_OUTPUT} units. The guest waits for the call, so its wall time counts against the
 * run's wall bound as well. Work checks its budget with {@link Work#check()} between units (a row,
 * an entry, a page) and stops when the run ends.
 *
 * <p>Public only for the modules in sibling {@code internal} packages; not API.
 */
public final class HostWork {
    /** CPU one call may use. */
    public static final Duration CALL_CPU = Duration.ofSeconds(10);

    /** Output one call may produce (characters of text or bytes). */
    public static final long CALL_OUTPUT = 64L << 20;

    /** Host-module calls of one run that work at once; later ones wait for a free slot. */
    public static final int CONCURRENT_CALLS = 2;

    /** Output all host-module calls of one run may produce together. */
    public static final long RUN_OUTPUT = 256L << 20;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean THREAD_CPU =
            THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();

    private HostWork() {}

    /**
     * Runs {@code task} on the session's executor; the guest sees a promise of its result. A {@link
     * BridgeException} it throws reaches the guest as is.
     */
    public static <T> CompletableFuture<T> submit(OperationCall call, Function<Work, T> task) {
        RunSession session = call.session();
        Ledger ledger = session.state(Ledger.class, () -> new Ledger(session.limits().timeout()));
        ledger.admit(call.where());
        CompletableFuture<T> result = new CompletableFuture<>();
        ledger.start(
                () -> {
                    Work w = new Work(call.where(), session, ledger);
                    try {
                        T value = task.apply(w);
                        w.check();
                        result.complete(value);
                    } catch (RuntimeException | Error e) {
                        result.completeExceptionally(e);
                    } finally {
                        w.close();
                        ledger.finished(session.executor());
                    }
                },
                session.executor());
        return result;
    }

    /** A {@code RangeError} with code {@code INPUT_TOO_LARGE}. */
    public static BridgeException tooLarge(String where, String message) {
        return new BridgeException("RangeError", "INPUT_TOO_LARGE", where + ": " + message);
    }

    /** A {@code TypeError} with code {@code INVALID_ARGUMENT}. */
    public static BridgeException invalid(String where, String message) {
        return BridgeException.invalidArgument(where + ": " + message);
    }

    /** One call's work: its CPU clock, its output count, and the run it belongs to. */
    public static final class Work {
        private final String where;
        private final RunSession session;
        private final Ledger ledger;
        private final long startCpu;
        private final long startNanos;
        private long output;
        private int checks;

        Work(String where, RunSession session, Ledger ledger) {
            this.where = where;
            this.session = session;
            this.ledger = ledger;
            this.startCpu = cpuNow();
            this.startNanos = System.nanoTime();
        }

        /**
         * Work outside any run, bounded by the per-call caps only: for a module's own tests, which
         * drive its streaming code with inputs no guest could send.
         */
        public static Work detached(String where) {
            return new Work(where, null, new Ledger(Duration.ofDays(1)));
        }

        public String where() {
            return where;
        }

        /**
         * Throws when the run ended, this call used {@link #CALL_CPU}, or the run's host calls used
         * the run's CPU budget. Cheap: the clock is read every 16th call.
         */
        public void check() {
            if (session != null && session.isCancelled()) {
                throw BridgeException.cancelled(where + ": the run has ended");
            }
            if ((checks++ & 15) != 0) {
                return;
            }
            long used = used();
            if (used > CALL_CPU.toNanos()) {
                throw new BridgeException(
                        "RangeError",
                        "HOST_CPU_LIMIT",
                        where + ": the call used more than " + CALL_CPU.toMillis() + " ms of CPU");
            }
            if (ledger.cpu + used > ledger.cpuBudget) {
                throw ledger.cpuExhausted(where);
            }
        }

        /** Counts {@code units} of output; throws {@code OUTPUT_TOO_LARGE} past a cap. */
        public void output(long units) {
            output += units;
            if (output > CALL_OUTPUT) {
                throw new BridgeException(
                        "RangeError",
                        "OUTPUT_TOO_LARGE",
                        where + ": the result is larger than " + CALL_OUTPUT + " characters/bytes");
            }
            if (ledger.output + output > RUN_OUTPUT) {
                throw new BridgeException(
                        "RangeError",
                        "OUTPUT_TOO_LARGE",
                        where
                                + ": the run's host calls produced more than "
                                + RUN_OUTPUT
                                + " characters/bytes together");
            }
        }

        private long used() {
            return THREAD_CPU ? cpuNow() - startCpu : System.nanoTime() - startNanos;
        }

        void close() {
            ledger.charge(used(), output);
        }
    }

    private static long cpuNow() {
        return THREAD_CPU ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /**
     * What a run's host-module calls used together, and which of them run: at most {@link
     * #CONCURRENT_CALLS} at once (each may hold tens of MiB while it works), the rest wait in
     * order.
     */
    private static final class Ledger {
        final long cpuBudget;
        volatile long cpu;
        volatile long output;
        private int running;
        private final java.util.ArrayDeque<Runnable> waiting = new java.util.ArrayDeque<>();

        void start(Runnable work, java.util.concurrent.Executor executor) {
            synchronized (this) {
                if (running >= CONCURRENT_CALLS) {
                    waiting.add(work);
                    return;
                }
                running++;
            }
            executor.execute(work);
        }

        void finished(java.util.concurrent.Executor executor) {
            Runnable next;
            synchronized (this) {
                next = waiting.poll();
                if (next == null) {
                    running--;
                    return;
                }
            }
            executor.execute(next);
        }

        Ledger(Duration runCpu) {
            this.cpuBudget = runCpu == null ? Long.MAX_VALUE : runCpu.toNanos();
        }

        synchronized void admit(String where) {
            if (cpu >= cpuBudget) {
                throw cpuExhausted(where);
            }
            if (output >= RUN_OUTPUT) {
                throw new BridgeException(
                        "RangeError",
                        "OUTPUT_TOO_LARGE",
                        where
                                + ": the run's host calls produced more than "
                                + RUN_OUTPUT
                                + " characters/bytes together");
            }
        }

        synchronized void charge(long cpuNanos, long units) {
            cpu += cpuNanos;
            output += units;
        }

        BridgeException cpuExhausted(String where) {
            return new BridgeException(
                    "RangeError",
                    "HOST_CPU_BUDGET",
                    where
                            + ": the run's host calls used the run's CPU budget ("
                            + cpuBudget / 1_000_000
                            + " ms) together");
        }
    }
}
