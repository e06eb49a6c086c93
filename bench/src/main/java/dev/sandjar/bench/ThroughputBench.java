package dev.sandjar.bench;

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
import org.openjdk.jmh.annotations.Threads;

/**
 * Trivial runs from one caller thread per core, each a fresh isolated run; Sandjar's pool has one
 * instance per core, GraalJS's threads share one engine.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(Threads.MAX)
@State(Scope.Benchmark)
public class ThroughputBench {
    @Param({"sandjar", "graaljs", "rhino", "quickjs4j"})
    public String system;

    private JsSystem js;
    private String body;

    @Setup(Level.Trial)
    public void start() {
        js = JsSystem.create(system, Runtime.getRuntime().availableProcessors());
        body = Workloads.body("trivial");
    }

    @TearDown(Level.Trial)
    public void stop() {
        js.close();
    }

    @Benchmark
    public Object trivialRuns() {
        return js.eval(body);
    }
}
