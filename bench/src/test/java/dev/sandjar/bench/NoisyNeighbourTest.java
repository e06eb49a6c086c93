package dev.sandjar.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34's noisy neighbour at small size ({@link NoisyNeighbour}): a real server with -Xmx1g and
 * a pool of two, one tenant sending every bomb of the review in a loop, another ordinary runs. The
 * ordinary runs all succeed, every bomb meets its named limit (never a host error, an internal
 * error or a success), the server logs no OutOfMemoryError and is still up. Latency is the bench's
 * to report (bench/noisy-neighbour.sh), not asserted here.
 */
class NoisyNeighbourTest {
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void anotherTenantsBombsNeitherFailNorStopOrdinaryRuns(@TempDir Path dir) throws Exception {
        NoisyNeighbour.Report r = new NoisyNeighbour().run(dir, Duration.ofSeconds(8), 1, s -> {});
        assertEquals(0, r.quietFailures(), "ordinary runs failed: " + r.quietFailureSamples());
        assertTrue(r.noisyNanos().length > 0, "ordinary runs were served beside the bombs");
        assertTrue(r.serverUp(), "the server is up:\n" + r.serverLogTail());
        assertFalse(r.serverOutOfMemory(), "the server ran out of memory:\n" + r.serverLogTail());
        for (Map.Entry<String, String> e : NoisyNeighbour.expected().entrySet()) {
            Map<String, Integer> met = r.bombOutcomes().get(e.getKey());
            assertTrue(met != null && !met.isEmpty(), e.getKey() + " was sent");
            assertEquals(
                    java.util.Set.of(e.getValue()),
                    met.keySet(),
                    e.getKey() + " met only its named limit: " + met);
        }
    }
}
