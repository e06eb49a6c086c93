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

/** Guest compute, a fresh isolated run each time (setup included, and small beside the work). */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class GuestBench {
    @Param({"sandjar", "graaljs", "rhino", "quickjs4j"})
    public String system;

    @Param({"fib", "strings", "json", "regex"})
    public String workload;

    private JsSystem js;
    private String body;

    @Setup(Level.Trial)
    public void start() {
        js = JsSystem.create(system, 1);
        body = Workloads.body(workload);
    }

    @TearDown(Level.Trial)
    public void stop() {
        js.close();
    }

    @Benchmark
    public Object compute() {
        return js.eval(body);
    }
}
