package dev.sandjar.bridges.progress;

import java.time.Instant;
import java.util.Objects;

/**
 * One progress report a run delivered.
 *
 * @param runId the run that reported, as {@code RunResult.runId()} names it
 * @param percent from 0 to 100
 * @param message the guest's message, or null when it gave none
 * @param sequence 1 for the run's first delivered report, then 2, 3, ...
 * @param dropped how many of the run's calls were dropped (rate limit or cap) before this one
 * @param timestamp when the host accepted it
 */
public record ProgressReport(
        String runId,
        double percent,
        String message,
        int sequence,
        long dropped,
        Instant timestamp) {
    public ProgressReport {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(timestamp, "timestamp");
    }
}
