package dev.sandjar.host;

import java.util.Map;

/**
 * What a run cost, for monitoring and benchmarks. Times are in nanoseconds.
 *
 * <p>Setup is everything before the first user statement: restoring the engine to a prepared
 * template (a runtime and context with the codec, the bridges' guest code and the prelude already
 * built and snapshotted; built first when the engine has none for this set of bridges), the run's
 * limits, and the injected globals. {@code setupNanos} is the latency the caller waited for it;
 * {@code setupCpuNanos} is the CPU the engine thread spent on it.
 *
 * @param queueNanos waiting for an engine instance
 * @param analysisNanos building the entry module (parsing the code when it has imports or exports;
 *     near zero when the analysis was cached or not needed)
 * @param runtimeNanos restoring the prepared template (and building it, the first time on an engine
 *     for a set of bridges)
 * @param contextNanos setting the run's limits on the restored runtime
 * @param bridgesNanos always 0 now: bridges are installed when a template is built (kept for
 *     comparisons with earlier measurements)
 * @param preludeNanos defining the injected globals
 * @param setupNanos the sum of the setup phases, as elapsed time
 * @param setupCpuNanos the engine thread's CPU time for setup (-1 where the JVM cannot tell)
 * @param guestCpuNanos the engine thread's CPU time from the first user statement to the result
 * @param hostCpuNanos the CPU time of the host work the run started (host modules, media, canvas;
 *     docs/sandbox.md, "Host work"), in this JVM and in worker processes; it counts against the
 *     run's {@code timeout} together with {@code guestCpuNanos}
 * @param wallNanos from the request reaching the sandbox to the result
 * @param bridgeCalls host operations the guest called
 * @param memoryBytes the engine instance's WebAssembly memory after the run: everything the guest
 *     held fit in it (memory never shrinks, so this is a high-water mark, also of earlier runs on
 *     the same instance)
 * @param memoryGrowthBytes how much this run grew that memory
 * @param watchdogFired whether the sandbox's watchdog had to interrupt the engine thread: the run
 *     was stuck in native code its interrupt handler cannot stop, past its bound by the grace
 *     (docs/sandbox.md, "Limits"); its instance was replaced
 * @param bridgeCallsByBridge {@code bridgeCalls} by bridge name (the capability: {@code console},
 *     {@code fetch}, ...), only the bridges called
 */
public record RunStats(
        long queueNanos,
        long analysisNanos,
        long runtimeNanos,
        long contextNanos,
        long bridgesNanos,
        long preludeNanos,
        long setupNanos,
        long setupCpuNanos,
        long guestCpuNanos,
        long hostCpuNanos,
        long wallNanos,
        long bridgeCalls,
        long memoryBytes,
        long memoryGrowthBytes,
        boolean watchdogFired,
        Map<String, Long> bridgeCallsByBridge) {

    public RunStats {
        bridgeCallsByBridge = Map.copyOf(bridgeCallsByBridge);
    }

    /** A one-line summary in milliseconds, as the command line prints it. */
    public String summary() {
        return String.format(
                java.util.Locale.ROOT,
                "wall %.2f ms, setup %.2f ms (runtime %.2f, context %.2f, bridges %.2f, prelude"
                        + " %.2f, cpu %.2f), analysis %.2f ms, guest cpu %.2f ms, host cpu %.2f ms,"
                        + " queue %.2f ms,"
                        + " bridge calls %d, memory %d KiB (grew %d KiB)%s",
                wallNanos / 1e6,
                setupNanos / 1e6,
                runtimeNanos / 1e6,
                contextNanos / 1e6,
                bridgesNanos / 1e6,
                preludeNanos / 1e6,
                setupCpuNanos / 1e6,
                analysisNanos / 1e6,
                guestCpuNanos / 1e6,
                hostCpuNanos / 1e6,
                queueNanos / 1e6,
                bridgeCalls,
                memoryBytes >> 10,
                memoryGrowthBytes >> 10,
                watchdogFired ? ", stopped by the watchdog" : "");
    }
}
