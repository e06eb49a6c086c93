package dev.sandjar.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * One fork of the comparison, run in a new JVM by the harness: every benchmark of one system in
 * this JVM. It first runs every workload round robin for the mode's shared warm-up, then JMH runs
 * the benchmarks in process ({@code forks(0)}), each with the mode's own warm-up (none in quick
 * mode): a JIT warmed once serves them all, where a JVM per benchmark would pay Sandjar's long
 * warm-up every time. Benchmarks later in the JVM also profit from the earlier ones' runs.
 *
 * <p>usage: {@code SystemFork MODE SYSTEM FORK WORK_DIR}; writes {@code
 * WORK_DIR/fork-SYSTEM-FORK.json}, the JMH number of each table (ms, or runs/s for throughput). The
 * setup benchmark appends its samples to the file the property {@code sandjar.bench.samples} names.
 */
public final class SystemFork {
    private SystemFork() {}

    public static void main(String[] args) throws Exception {
        BenchMode mode = BenchMode.of(args[0]);
        String system = args[1];
        String fork = args[2];
        Path work = Path.of(args[3]);
        boolean bytes;
        long warmupRuns;
        long t0 = System.nanoTime();
        try (JsSystem js = JsSystem.create(system, 1)) {
            bytes = js.bytesUnsupported() == null;
            warmupRuns = warmUp(js, mode.sharedWarmup().toNanos(), bytes);
        }
        double warmupSeconds = (System.nanoTime() - t0) / 1e9;
        // JMH would run the throughput benchmark first; it goes last, after the most warm-up,
        // since it is the one most sensitive to C2 still compiling (two threads, short runs).
        String throughput = "^dev\\.sandjar\\.bench\\.ThroughputBench\\.";
        ChainedOptionsBuilder first =
                options(mode, system, work.resolve("jmh-" + system + "-" + fork + ".log"));
        first.exclude(throughput);
        if (!bytes) {
            first.exclude("^dev\\.sandjar\\.bench\\.TransportBench\\.bytes$");
        }
        first.include("^dev\\.sandjar\\.bench\\.");
        List<RunResult> results = new ArrayList<>(new Runner(first.build()).run());
        ChainedOptionsBuilder last =
                options(
                        mode,
                        system,
                        work.resolve("jmh-" + system + "-" + fork + "-throughput.log"));
        last.include(throughput);
        results.addAll(new Runner(last.build()).run());
        Map<String, Object> out = new LinkedHashMap<>();
        for (RunResult r : results) {
            String method = r.getParams().getBenchmark();
            String table =
                    switch (method.substring(
                            method.lastIndexOf('.', method.lastIndexOf('.') - 1) + 1)) {
                        case "SetupBench.trivialRun" -> "trivial";
                        case "ThroughputBench.trivialRuns" -> "throughput";
                        case "GuestBench.compute" -> r.getParams().getParam("workload");
                        case "TransportBench.rows" -> "rows";
                        case "TransportBench.bytes" -> "bytes";
                        default -> throw new IllegalStateException("unknown benchmark " + method);
                    };
            out.put(
                    table,
                    table.equals("throughput")
                            ? r.getPrimaryResult().getScore()
                            : r.getPrimaryResult().getStatistics().getPercentile(50.0));
        }
        out.put("sharedWarmupRuns", warmupRuns);
        out.put("sharedWarmupSeconds", warmupSeconds);
        Files.writeString(work.resolve("fork-" + system + "-" + fork + ".json"), Json.write(out));
        // JMH in process may leave its own threads behind.
        System.exit(0);
    }

    private static ChainedOptionsBuilder options(BenchMode mode, String system, Path log) {
        return new OptionsBuilder()
                .param("system", system)
                .forks(0)
                .warmupIterations(mode.warmups())
                .warmupTime(mode.warmupTime())
                .measurementIterations(mode.iterations())
                .measurementTime(mode.iterationTime())
                .shouldFailOnError(false)
                .output(log.toString());
    }

    /**
     * Runs every workload the benchmarks run, round robin (trivial runs twenty at a time, being
     * short), until {@code nanos} have passed; at least one round. Returns the number of runs.
     */
    static long warmUp(JsSystem js, long nanos, boolean bytes) {
        List<Runnable> round = new ArrayList<>();
        String trivial = Workloads.body("trivial");
        for (int i = 0; i < 20; i++) {
            round.add(() -> js.eval(trivial));
        }
        for (String w : Workloads.COMPUTE) {
            String body = Workloads.body(w);
            round.add(() -> js.eval(body));
        }
        List<Map<String, Object>> rows = Workloads.rows();
        round.add(() -> js.rows(rows));
        if (bytes) {
            byte[] data = Workloads.bytes();
            round.add(() -> js.bytes(data));
        }
        long end = System.nanoTime() + nanos;
        long runs = 0;
        do {
            for (Runnable r : round) {
                r.run();
                runs++;
            }
        } while (System.nanoTime() < end);
        return runs;
    }
}
