package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

class JitFlagsTest {
    @Test
    void theFlagsComeFromTheParentPom() {
        // The resource is filtered from sandjar.jit.flags: an unfiltered or empty one fails load.
        assertTrue(
                JitFlags.REQUIRED.contains("-XX:-DontCompileHugeMethods"),
                JitFlags.REQUIRED.toString());
        // Not a speed flag: without it C2 on JDK 17 miscompiles guest code (docs/jvm-flags.md,
        // and server's ConsoleInAFreshJvmTest).
        assertTrue(JitFlags.REQUIRED.contains("-XX:-SplitIfBlocks"), JitFlags.REQUIRED.toString());
        assertTrue(
                JitFlags.REQUIRED.stream().allMatch(f -> f.startsWith("-XX:")),
                JitFlags.REQUIRED.toString());
    }

    @Test
    void theTestJvmRunsWithTheFlags() {
        // Surefire's argLine carries the same property; a test JVM without them would measure
        // and time an interpreted engine.
        assertEquals(
                List.of(),
                JitFlags.missing(),
                "test JVM arguments: " + ManagementFactory.getRuntimeMXBean().getInputArguments());
    }
}
