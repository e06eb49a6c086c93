package dev.sandjar.host;

import java.time.Duration;

/**
 * A clock a caller can pause while a run waits on something that is not the guest's doing, such as
 * a person answering a prompt. Thread-safe; one clock may be shared by the runs of one turn.
 *
 * <p>While suspended, time does not count against a run's wall-clock bound, up to the run's {@code
 * suspendAllowance} in total; the CPU budget is untouched (a waiting guest burns no CPU, and a
 * guest that computes while suspended is still cut at its CPU budget). Suspensions nest: the clock
 * runs again when the last one is closed.
 *
 * <pre>{@code
 * try (SandboxClock.Suspension s = clock.suspend()) {
 *     answer = askTheUser(question);
 * }
 * }</pre>
 */
public final class SandboxClock {
    private int depth;
    private long suspendedSince;
    private long suspendedTotal;

    private SandboxClock() {}

    public static SandboxClock create() {
        return new SandboxClock();
    }

    /** Pauses the clock until the returned suspension is closed. */
    public synchronized Suspension suspend() {
        if (depth++ == 0) {
            suspendedSince = System.nanoTime();
        }
        return new Suspension();
    }

    private synchronized void resume() {
        if (--depth == 0) {
            suspendedTotal += System.nanoTime() - suspendedSince;
        }
    }

    public synchronized boolean isSuspended() {
        return depth > 0;
    }

    /** Suspended time so far, including a suspension still open. */
    public synchronized Duration suspended() {
        return Duration.ofNanos(suspendedNanos());
    }

    synchronized long suspendedNanos() {
        return suspendedTotal + (depth > 0 ? System.nanoTime() - suspendedSince : 0);
    }

    /** One suspension; closing it twice is a no-op. */
    public final class Suspension implements AutoCloseable {
        private boolean closed;

        private Suspension() {}

        @Override
        public void close() {
            synchronized (SandboxClock.this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            resume();
        }
    }
}
