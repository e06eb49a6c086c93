package dev.sandjar.host;

/**
 * What a run cost, for monitoring and benchmarks. Times are in nanoseconds.
 *
 * <p>Setup is everything before the first user statement: a fresh runtime and context, the codec,
 * the bridges and prelude, and the injected globals. {@code setupNanos} is the latency the caller
 * waited for it; {@code setupCpuNanos} is the CPU the engine thread spent on it.
 *
 * @param queueNanos waiting for an engine instance
 * @param analysisNanos building the entry module (parsing the code when it has imports or exports;
 *     near zero when the analysis was cached or not needed)
 * @param runtimeNanos creating the runtime and setting its limits
 * @param contextNanos creating the context
 * @param bridgesNanos loading the codec and the bridges' guest code, and installing their globals
 * @param preludeNanos hardening and the injected globals
 * @param setupNanos the sum of the setup phases, as elapsed time
 * @param setupCpuNanos the engine thread's CPU time for setup (-1 where the JVM cannot tell)
 * @param guestCpuNanos the engine thread's CPU time from the first user statement to the result
 * @param wallNanos from the request reaching the sandbox to the result
 * @param bridgeCalls host operations the guest called
 * @param memoryBytes the engine instance's WebAssembly memory after the run: everything the guest
 *     held fit in it (memory never shrinks, so this is a high-water mark, also of earlier runs on
 *     the same instance)
 * @param memoryGrowthBytes how much this run grew that memory
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
        long wallNanos,
        long bridgeCalls,
        long memoryBytes,
        long memoryGrowthBytes) {

    /** A one-line summary in milliseconds, as the command line prints it. */
    public String summary() {
        return String.format(
                java.util.Locale.ROOT,
                "wall %.2f ms, setup %.2f ms (runtime %.2f, context %.2f, bridges %.2f, prelude"
                        + " %.2f, cpu %.2f), analysis %.2f ms, guest cpu %.2f ms, queue %.2f ms,"
                        + " bridge calls %d, memory %d KiB (grew %d KiB)",
                wallNanos / 1e6,
                setupNanos / 1e6,
                runtimeNanos / 1e6,
                contextNanos / 1e6,
                bridgesNanos / 1e6,
                preludeNanos / 1e6,
                setupCpuNanos / 1e6,
                analysisNanos / 1e6,
                guestCpuNanos / 1e6,
                queueNanos / 1e6,
                bridgeCalls,
                memoryBytes >> 10,
                memoryGrowthBytes >> 10);
    }
}
