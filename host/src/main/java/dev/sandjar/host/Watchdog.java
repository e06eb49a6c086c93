package dev.sandjar.host;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Stops runs the interrupt handler cannot (docs/sandbox.md, "Limits"). QuickJS polls its interrupt
 * handler only from the bytecode interpreter, so a native built-in walking a huge length ({@code
 * Array.prototype.includes.call({length: 2 ** 53 - 1})}, a join or sort of a huge sparse
 * array-like) never sees its budget run out. A run {@link #GRACE} past its CPU budget, its wall
 * bound or its cancellation gets its engine thread interrupted: the AOT-compiled engine checks the
 * thread's interrupt status before every call and on every loop's back edge (Chicory's {@code
 * checkInterruption}) and unwinds with {@code ChicoryInterruptedException}. The engine's memory is
 * then in an unknown state, so the run retires its instance.
 *
 * <p>Checks run on the sandbox's timer thread, each scheduled for the earliest moment a bound could
 * be {@link #GRACE} behind (CPU time never runs faster than wall time), so a run that ends in time
 * costs one scheduled task and no polling.
 */
final class Watchdog {
    /**
     * How long past a bound the interrupt handler has to stop a run before the watchdog interrupts
     * its thread. The handler runs every few thousand bytecodes, so an interpreted run stops within
     * milliseconds of its bound; 200 ms leaves room for a slow native call that does end (and is
     * then reported as a timeout when it returns) before the instance is discarded.
     */
    static final Duration GRACE = Duration.ofMillis(200);

    private static final Logger LOG = Logger.getLogger(Watchdog.class.getName());
    private static final long MIN_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final ScheduledExecutorService timer;
    private volatile long graceNanos = GRACE.toNanos();

    Watchdog(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /**
     * A longer grace for runs watched from now on; for tests that need a run's own return, not the
     * watchdog, to end an overshoot.
     */
    void withGrace(Duration grace) {
        graceNanos = grace.toNanos();
    }

    /** Starts watching the run of {@code budget} on the calling thread (its engine thread). */
    Watch watch(RunBudget budget, String runId) {
        Watch w = new Watch(budget, Thread.currentThread(), runId);
        w.scheduleFirst();
        return w;
    }

    /**
     * One run under watch. {@link #close()} on the engine thread ends it: after it returns no
     * interrupt from the watchdog can reach the thread, and any that did is cleared.
     */
    final class Watch {
        private final RunBudget budget;
        private final Thread thread;
        private final String runId;
        private final long grace = graceNanos;
        private boolean closed; // guarded by this
        private boolean fired; // guarded by this
        private ScheduledFuture<?> next; // guarded by this

        private Watch(RunBudget budget, Thread thread, String runId) {
            this.budget = budget;
            this.thread = thread;
            this.runId = runId;
        }

        /** A cancellation arrived: check again once the grace has passed. Thread-safe. */
        synchronized void cancelled() {
            if (!closed) {
                reschedule(grace);
            }
        }

        private synchronized void scheduleFirst() {
            reschedule(Math.max(grace - budget.overrunNanos(thread), MIN_DELAY_NANOS));
        }

        private void reschedule(long delayNanos) {
            if (next != null) {
                next.cancel(false);
            }
            try {
                next = timer.schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closing) {
                next = null; // the sandbox is closing; the run ends with it
            }
        }

        private synchronized void check() {
            if (closed) {
                return;
            }
            long over = budget.overrunNanos(thread);
            if (over < grace) {
                reschedule(Math.max(grace - over, MIN_DELAY_NANOS));
                return;
            }
            if (!fired) {
                fired = true;
                RunBudget.Reason why = budget.overrunReason(thread, grace);
                budget.stoppedByWatchdog(why);
                LOG.warning(
                        "run "
                                + runId
                                + " is "
                                + over / 1_000_000
                                + " ms past its bound ("
                                + why
                                + ") in code its interrupt handler cannot stop; interrupting"
                                + " its engine thread "
                                + thread.getName()
                                + " (the instance is replaced)");
            }
            thread.interrupt();
            // Again after another grace if the thread swallowed the interrupt.
            reschedule(grace);
        }

        /**
         * Stops watching; engine thread only. Clears the thread's interrupt status: an interrupt
         * left set would stop the next task on the thread (its queue's take, the pool's waits).
         *
         * @return whether the watchdog interrupted the run
         */
        synchronized boolean close() {
            closed = true;
            if (next != null) {
                next.cancel(false);
                next = null;
            }
            Thread.interrupted();
            return fired;
        }
    }
}
