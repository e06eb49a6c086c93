package dev.sandjar.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Every benchmark method once, with every system and tiny workloads (the pom sets {@code
 * sandjar.bench.size=tiny}), so a broken benchmark fails the build. Times nothing.
 */
@Timeout(120)
@ExtendWith(EngineLeakCheck.class)
class BenchmarksSmokeTest {
    private static final Blackhole BH =
            new Blackhole(
                    "Today's password is swordfish. I understand instantiating Blackholes directly"
                            + " is dangerous.");

    @Test
    void runsTiny() {
        assertTrue(Workloads.tiny(), "the smoke test runs with sandjar.bench.size=tiny");
    }

    @Test
    void jmhGeneratedEveryBenchmark() throws IOException {
        Set<String> listed = new TreeSet<>();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/BenchmarkList")) {
            assertNotNull(in, "JMH's annotation processor wrote no BenchmarkList");
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                for (String m :
                        List.of(
                                "SetupBench.trivialRun",
                                "ThroughputBench.trivialRuns",
                                "GuestBench.compute",
                                "TransportBench.rows",
                                "TransportBench.bytes")) {
                    String[] cm = m.split("\\.");
                    if (line.contains(
                            "dev.sandjar.bench.jmh_generated."
                                    + cm[0]
                                    + "_"
                                    + cm[1]
                                    + "_jmhTest")) {
                        listed.add(m);
                    }
                }
            }
        }
        assertEquals(5, listed.size(), "benchmarks JMH knows: " + listed);
    }

    @Test
    void everyBenchmarkRunsOnceOnEverySystem() throws IOException {
        for (String system : JsSystem.NAMES) {
            SetupBench setup = new SetupBench();
            setup.system = system;
            setup.start();
            setup.iteration(
                    new IterationParams(IterationType.MEASUREMENT, 1, TimeValue.seconds(1), 1));
            setup.trivialRun(BH);
            setup.stop();

            ThroughputBench throughput = new ThroughputBench();
            throughput.system = system;
            throughput.start();
            assertEquals(2L, ((Number) value(throughput.trivialRuns())).longValue(), system);
            throughput.stop();

            for (String w : Workloads.COMPUTE) {
                GuestBench guest = new GuestBench();
                guest.system = system;
                guest.workload = w;
                guest.start();
                assertNotNull(guest.compute(), system + " " + w);
                guest.stop();
            }

            TransportBench transport = new TransportBench();
            transport.system = system;
            transport.start();
            assertEquals(Workloads.rowCount(), ((List<?>) transport.rows()).size(), system);
            try (JsSystem js = JsSystem.create(system, 1)) {
                if (js.bytesUnsupported() == null) {
                    assertArrayEquals(Workloads.bytes(), (byte[]) transport.bytes(), system);
                }
            }
            transport.stop();
        }
    }

    @Test
    void sharedWarmUpRunsEveryWorkloadAtLeastOnce() {
        try (JsSystem js = JsSystem.create("rhino", 1)) {
            // 20 trivial runs, the compute workloads, rows and bytes: one round, whatever the time.
            assertEquals(20 + Workloads.COMPUTE.size() + 2, SystemFork.warmUp(js, 0, true));
        }
    }

    private static Object value(Object result) {
        return result instanceof String s ? Long.valueOf(s) : result;
    }
}
