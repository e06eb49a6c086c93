package dev.sandjar.bench;

import java.time.Duration;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * How long {@code bench/run.sh} measures. Every JMH fork is one JVM per system that first runs
 * every workload round robin for {@link #sharedWarmup} (Sandjar's AOT-compiled wasm is thousands of
 * large JVM methods, and C2 needs tens of seconds to compile the hot ones), then runs all of that
 * system's benchmarks in process, each with a short warm-up of its own. {@link #cliSeconds} is how
 * long each side of the command line's speed check ({@link CliSpeed}) runs its fib(25) loop: long
 * enough for C2's code for the interpreter loop to arrive on a busy 2-core machine (10-45 s);
 * {@link #cliDraws} is how many times both sides run, in a new pair of JVMs each (the report gives
 * the median draw: one JVM's time to speed is one draw of C2's compile order). {@link
 * #jitProofSeconds} is how long each side of {@link GraalJit}'s proof runs fib(25).
 */
record BenchMode(
        String name,
        int forks,
        Duration sharedWarmup,
        int warmups,
        TimeValue warmupTime,
        int iterations,
        TimeValue iterationTime,
        int coldRuns,
        int nodeWarmupMs,
        int nodeMeasureMs,
        int busySeconds,
        int cliSeconds,
        int cliDraws,
        int jitProofSeconds) {

    static final BenchMode QUICK =
            new BenchMode(
                    "quick",
                    1,
                    Duration.ofSeconds(40),
                    0,
                    TimeValue.seconds(1),
                    3,
                    TimeValue.seconds(1),
                    3,
                    500,
                    1_500,
                    2,
                    60,
                    1,
                    15);

    static final BenchMode FULL =
            new BenchMode(
                    "full",
                    3,
                    Duration.ofSeconds(60),
                    2,
                    TimeValue.seconds(2),
                    6,
                    TimeValue.seconds(2),
                    20,
                    5_000,
                    10_000,
                    5,
                    90,
                    3,
                    20);

    /**
     * Checks the harness end to end in a couple of minutes: tiny workloads, numbers meaningless.
     */
    static final BenchMode SMOKE =
            new BenchMode(
                    "smoke",
                    1,
                    Duration.ZERO,
                    1,
                    TimeValue.milliseconds(200),
                    1,
                    TimeValue.milliseconds(200),
                    1,
                    100,
                    200,
                    1,
                    10,
                    1,
                    5);

    static BenchMode of(String name) {
        return switch (name) {
            case "quick" -> QUICK;
            case "full" -> FULL;
            case "smoke" -> SMOKE;
            default -> throw new IllegalArgumentException("mode must be quick, full or smoke");
        };
    }
}
