package dev.sandjar.bridges.progress;

/**
 * Receives a run's progress reports. Called off the engine thread, on the sandbox's executor, one
 * report at a time per run and in the order the run made them; reports of different runs may arrive
 * concurrently. An exception it throws is logged and does not reach the run.
 */
@FunctionalInterface
public interface ProgressListener {
    void onProgress(ProgressReport report);
}
