package dev.sandjar.bench;

import java.util.List;
import java.util.Map;
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

/**
 * Values across the boundary and back, a fresh isolated run each time: 5,000 rows of 10 fields
 * injected as a global and returned, and a 4 MiB {@code Uint8Array} each way. The host ends with
 * its own Java copy. quickjs4j has no typed-array transport: the harness leaves it out of {@link
 * #bytes} (its {@link JsSystem#bytesUnsupported} says why).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class TransportBench {
    @Param({"sandjar", "graaljs", "rhino", "quickjs4j"})
    public String system;

    private JsSystem js;
    private List<Map<String, Object>> rows;
    private byte[] bytes;

    @Setup(Level.Trial)
    public void start() {
        js = JsSystem.create(system, 1);
        rows = Workloads.rows();
        bytes = Workloads.bytes();
    }

    @TearDown(Level.Trial)
    public void stop() {
        js.close();
    }

    @Benchmark
    public Object rows() {
        return js.rows(rows);
    }

    @Benchmark
    public Object bytes() {
        return js.bytes(bytes);
    }
}
