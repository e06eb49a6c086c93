package dev.sandjar.bench;

import dev.sandjar.host.RunStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * A fresh isolated run of {@code return 1 + 1}, one caller: the setup a caller waits for plus a
 * trivial statement, end to end. Besides JMH's timing it records, per measured call, the latency
 * and the CPU the run cost, and for Sandjar its {@link RunStats} setup phases, into the file the
 * system property {@code sandjar.bench.samples} names (one CSV line per call).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Thread)
public class SetupBench {
    /** Columns of the samples file. */
    public static final String HEADER =
            "system,latency,cpu,runtime,context,bridges,prelude,setup,setupCpu";

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Param({"sandjar", "graaljs", "rhino", "quickjs4j"})
    public String system;

    private JsSystem js;
    private String body;
    private boolean measuring;
    private final StringBuilder samples = new StringBuilder();

    @Setup(Level.Trial)
    public void start() {
        js = JsSystem.create(system, 1);
        body = Workloads.body("trivial");
    }

    @Setup(Level.Iteration)
    public void iteration(IterationParams params) {
        measuring = params.getType() == IterationType.MEASUREMENT;
    }

    @TearDown(Level.Trial)
    public void stop() {
        js.close();
        String path = System.getProperty("sandjar.bench.samples");
        if (path != null && samples.length() > 0) {
            try {
                Files.writeString(
                        Path.of(path),
                        samples,
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Benchmark
    public void trivialRun(Blackhole bh) {
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        bh.consume(js.eval(body));
        long latency = System.nanoTime() - t0;
        long cpu = THREADS.getCurrentThreadCpuTime() - cpu0;
        if (measuring) {
            record(latency, cpu);
        }
    }

    private void record(long latency, long callerCpu) {
        samples.append(system).append(',').append(latency).append(',');
        if (js instanceof SandjarSystem s) {
            // The run's CPU is spent on the engine thread, not the caller's.
            RunStats st = s.lastStats();
            long engineCpu = st.setupCpuNanos() < 0 ? -1 : st.setupCpuNanos() + st.guestCpuNanos();
            samples.append(engineCpu)
                    .append(',')
                    .append(st.runtimeNanos())
                    .append(',')
                    .append(st.contextNanos())
                    .append(',')
                    .append(st.bridgesNanos())
                    .append(',')
                    .append(st.preludeNanos())
                    .append(',')
                    .append(st.setupNanos())
                    .append(',')
                    .append(st.setupCpuNanos());
        } else {
            samples.append(callerCpu).append(",,,,,,");
        }
        samples.append('\n');
    }
}
