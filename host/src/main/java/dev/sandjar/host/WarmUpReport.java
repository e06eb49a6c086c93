package dev.sandjar.host;

import java.time.Duration;

/**
 * What {@link Sandbox#warmUp} did.
 *
 * @param runs warm-up runs completed through the pool
 * @param parses pieces of module code parsed by the analysis engine
 * @param elapsed from the call to its return
 * @param interrupted true when the caller was interrupted and the warm-up stopped early
 */
public record WarmUpReport(long runs, long parses, Duration elapsed, boolean interrupted) {}
