package dev.sandjar.bridges.progress;

/**
 * Receives a run's progress reports. Called off the engine thread, on the sandbox's executor, one
 * report at a time per run and in the order the run made them; reports of different runs may arrive
 * concurrently. The run's result waits until every report it accepted has been delivered (the
 * engine does not: it serves the next run meanwhile), for at most {@code
 * RunSession.MAX_RESULT_HOLD} (5 s) after the run ends; a listener slower than that may receive a
 * run's last reports after its result. An exception it throws is logged and does not reach the run.
 */
@FunctionalInterface
public interface ProgressListener {
    void onProgress(ProgressReport report);
}
