package dev.sandjar.bridges.progress;

/**
 * Receives a run's progress reports. Called off the engine thread, on the sandbox's executor, one
 * report at a time per run and in the order the run made them; reports of different runs may arrive
 * concurrently. Every report the run accepted has been delivered by the time the run's result
 * completes: the end of the run waits for delivery, so a listener should return quickly. An
 * exception it throws is logged and does not reach the run.
 */
@FunctionalInterface
public interface ProgressListener {
    void onProgress(ProgressReport report);
}
