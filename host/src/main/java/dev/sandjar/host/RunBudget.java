package dev.sandjar.host;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * A run's time: a CPU budget on the engine thread's own CPU clock, and a wall-clock bound that does
 * not count time a {@link SandboxClock} was suspended (up to the suspend allowance). Asked by the
 * interrupt handler while guest code runs and by the event loop while it waits. The first reason to
 * stop sticks. {@link #cancel()} is thread-safe; the rest runs on the engine thread.
 */
final class RunBudget {
    enum Reason {
        CPU,
        WALL,
        CANCELLED
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean THREAD_CPU =
            THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();

    /** Whether another thread can read the engine thread's CPU clock (the one start() read). */
    private static final boolean OTHER_THREAD_CPU =
            THREAD_CPU && THREADS.isThreadCpuTimeSupported();

    private final long cpuBudgetNanos;
    private final long wallBudgetNanos;
    private final long allowanceNanos;
    private final SandboxClock clock;
    private final long startWall;
    private volatile long startCpu;
    private volatile boolean armed; // the CPU budget counts only from start()
    private long waitedNanos;
    private volatile boolean cancelRequested;
    private volatile long cancelledAtNanos;
    private volatile Reason watchdogReason;
    private Reason reason;
    private volatile java.util.function.LongSupplier hostCpu = () -> 0L;

    RunBudget(Limits limits, SandboxClock clock, long startWall) {
        this.cpuBudgetNanos = limits.timeout().toNanos();
        this.wallBudgetNanos = limits.wallTimeout().toNanos();
        this.allowanceNanos = limits.suspendAllowance().toNanos();
        this.clock = clock;
        this.startWall = startWall;
    }

    /**
     * Starts the CPU budget; call on the engine thread. Until then only the wall bound and
     * cancellation can stop the run.
     */
    void start() {
        startCpu = cpuNow();
        armed = true;
    }

    /** The engine thread's CPU time, or elapsed time less waits where the JVM cannot tell. */
    long cpuNow() {
        return THREAD_CPU ? THREADS.getCurrentThreadCpuTime() : System.nanoTime() - waitedNanos;
    }

    static boolean measuresCpu() {
        return THREAD_CPU;
    }

    long cpuUsedNanos() {
        return cpuNow() - startCpu;
    }

    /**
     * Counts the CPU time of the run's host work ({@link HostAccount}) against the budget, besides
     * the engine thread's.
     */
    void countHostCpu(java.util.function.LongSupplier hostCpuNanos) {
        this.hostCpu = hostCpuNanos;
    }

    /** CPU time the run's host work used so far. */
    long hostCpuNanos() {
        return hostCpu.getAsLong();
    }

    /**
     * Whether the guest's CPU (read from {@code engineThread}'s clock) and the host work's together
     * passed the budget. Thread-safe. The watchdog does not use it: it interrupts an engine thread
     * stuck in native code, which host work on other threads cannot make it; the interrupt handler
     * and the event loop count the host work ({@link #expired()}).
     */
    boolean cpuSpent(Thread engineThread) {
        return armed && cpuUsedOn(engineThread) + hostCpu.getAsLong() > cpuBudgetNanos;
    }

    long cpuBudgetNanos() {
        return cpuBudgetNanos;
    }

    /**
     * The guest's CPU time so far, read from {@code engineThread}'s clock from any thread; 0 before
     * the budget starts or where the JVM cannot read another thread's clock.
     */
    long cpuUsedOn(Thread engineThread) {
        if (!armed || !OTHER_THREAD_CPU) {
            return 0;
        }
        long cpu = THREADS.getThreadCpuTime(engineThread.getId());
        return cpu < 0 ? 0 : cpu - startCpu;
    }

    /** Records time spent blocked waiting for host work (for the fallback CPU clock). */
    void waited(long nanos) {
        waitedNanos += nanos;
    }

    void cancel() {
        if (!cancelRequested) {
            cancelledAtNanos = System.nanoTime();
            cancelRequested = true;
        }
    }

    boolean cancelRequested() {
        return cancelRequested;
    }

    /** True once the run must stop; {@link #reason()} says why. */
    boolean expired() {
        if (reason != null) {
            return true;
        }
        Reason byWatchdog = watchdogReason;
        if (byWatchdog != null) {
            reason = byWatchdog; // what the watchdog saw, even if its interrupt then looks like a
            // cancellation to code that catches it
        } else if (cancelRequested) {
            reason = Reason.CANCELLED;
        } else if (armed && cpuUsedNanos() + hostCpu.getAsLong() > cpuBudgetNanos) {
            reason = Reason.CPU;
        } else if (wallRemainingNanos() <= 0) {
            reason = Reason.WALL;
        }
        return reason != null;
    }

    Reason reason() {
        return reason;
    }

    /**
     * How far past its first bound the run on {@code engineThread} is now, in nanoseconds: since a
     * cancellation, past the wall bound, or past the CPU budget (on that thread's CPU clock, where
     * the JVM can read another thread's). Negative while no bound is reached: then it is at least
     * minus the time until one can be (CPU time never runs faster than wall time). Thread-safe; the
     * {@link Watchdog} asks it.
     */
    long overrunNanos(Thread engineThread) {
        long now = System.nanoTime();
        long over = -wallRemainingNanos();
        if (cancelRequested) {
            over = Math.max(over, now - cancelledAtNanos);
        }
        if (armed && OTHER_THREAD_CPU) {
            long cpu = THREADS.getThreadCpuTime(engineThread.getId());
            if (cpu >= 0) {
                over = Math.max(over, cpu - startCpu - cpuBudgetNanos);
            }
        } else if (!armed) {
            over = Math.max(over, -cpuBudgetNanos);
        }
        return over;
    }

    /**
     * The bound the watchdog stopped the run for, once it is {@code graceNanos} past it: a
     * cancellation first, then the CPU budget, then the wall bound. Thread-safe.
     */
    Reason overrunReason(Thread engineThread, long graceNanos) {
        if (cancelRequested && System.nanoTime() - cancelledAtNanos >= graceNanos) {
            return Reason.CANCELLED;
        }
        if (armed && OTHER_THREAD_CPU) {
            long cpu = THREADS.getThreadCpuTime(engineThread.getId());
            if (cpu >= 0 && cpu - startCpu - cpuBudgetNanos >= graceNanos) {
                return Reason.CPU;
            }
        }
        return Reason.WALL;
    }

    /** The watchdog stopped the run for {@code why}; the run ends with that error. Thread-safe. */
    void stoppedByWatchdog(Reason why) {
        watchdogReason = why;
    }

    boolean watchdogFired() {
        return watchdogReason != null;
    }

    /** Wall-clock time left, with suspended time credited back up to the allowance. */
    long wallRemainingNanos() {
        long suspended = clock == null ? 0 : Math.min(clock.suspendedNanos(), allowanceNanos);
        return wallBudgetNanos - (System.nanoTime() - startWall - suspended);
    }

    /** The error a stopped run reports. */
    RunError error() {
        return switch (reason) {
            case CANCELLED ->
                    RunError.of(RunError.Kind.CANCELLED, "CancelledError", "the run was cancelled");
            case CPU -> {
                long host = hostCpu.getAsLong();
                yield RunError.of(
                        RunError.Kind.TIMEOUT,
                        "TimeoutError",
                        "the run used its CPU budget (timeout) of "
                                + cpuBudgetNanos / 1_000_000
                                + " ms"
                                + (host > 0
                                        ? " (" + host / 1_000_000 + " ms of it in host work)"
                                        : ""));
            }
            case WALL ->
                    RunError.of(
                            RunError.Kind.TIMEOUT,
                            "TimeoutError",
                            "the run took longer than its wall-clock bound (wallTimeout) of "
                                    + wallBudgetNanos / 1_000_000
                                    + " ms"
                                    + (clock == null ? "" : ", not counting suspended time"));
        };
    }
}
