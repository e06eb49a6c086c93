package dev.sandjar.host;

import java.util.concurrent.CompletableFuture;

/**
 * A run in progress, from {@link Sandbox#submit(RunRequest)}. Thread-safe.
 *
 * <p>{@link #result()} completes with a {@link RunResult} for every outcome of the guest code,
 * cancellation included; it completes exceptionally only when the request itself was bad ({@link
 * InvalidRequestException}) or the sandbox could not serve it ({@link EngineException}).
 */
public final class SandboxRun {
    private final String runId;
    private final CompletableFuture<RunResult> result;
    private final Runnable canceller;

    SandboxRun(String runId, CompletableFuture<RunResult> result, Runnable canceller) {
        this.runId = runId;
        this.result = result;
        this.canceller = canceller;
    }

    public String runId() {
        return runId;
    }

    /** The outcome. Cancelling this future does not stop the run; call {@link #cancel()}. */
    public CompletableFuture<RunResult> result() {
        return result;
    }

    /**
     * Cancels the run: a queued run never starts; a running one is interrupted even in a CPU-bound
     * loop, every further bridge call fails fast, host work in flight is cancelled, and the result
     * is a {@link RunError.Kind#CANCELLED} error. A no-op once the run has finished.
     */
    public void cancel() {
        canceller.run();
    }

    public boolean isDone() {
        return result.isDone();
    }
}
