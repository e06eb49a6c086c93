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
    void noFlagIsAskedForButTheJdk17PrecautionUnlessTheServiceAskedForTheTunedMode() {
        List<String> none = List.of("-Xmx1g");
        // JDK 21 and later: nothing to say without flags
        assertEquals(java.util.Optional.empty(), JitFlags.warning(none, 25, ""));
        assertEquals(java.util.Optional.empty(), JitFlags.warning(none, 21, ""));
        // JDK 17: only the correctness precaution, named
        String w17 = JitFlags.warning(none, 17, "").orElseThrow();
        assertTrue(w17.contains("-XX:-SplitIfBlocks"), w17);
        assertTrue(!w17.contains("DontCompileHugeMethods"), w17);
        assertEquals(
                java.util.Optional.empty(),
                JitFlags.warning(List.of("-XX:-SplitIfBlocks"), 17, ""));
        // the tuned mode: every missing flag named, on any JDK
        String tuned = JitFlags.warning(List.of("-XX:-SplitIfBlocks"), 25, "tuned").orElseThrow();
        assertTrue(tuned.contains("-XX:-DontCompileHugeMethods"), tuned);
        assertTrue(tuned.contains("-XX:MaxNodeLimit=600000"), tuned);
        assertEquals(java.util.Optional.empty(), JitFlags.warning(JitFlags.REQUIRED, 17, "tuned"));
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
