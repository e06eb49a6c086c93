package dev.sandjar.quickjs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandjar.quickjs.JitFlags;
import dev.sandjar.quickjs.testing.NewerJdk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The warning a JVM on JDK 24+ gets when only {@link RawAccess#ALLOW_FLAG} keeps the engine off its
 * faster path: decided right for every JDK and property value, and given (once, or not at all) by a
 * real JDK 24+ JVM where one is installed beside this one.
 */
class RawAccessTest {
    @Test
    void onlyJdk24AndLaterNeedTheFlag() {
        assertFalse(RawAccess.allowFlagMissing(17, null));
        assertFalse(RawAccess.allowFlagMissing(23, null));
        assertTrue(RawAccess.allowFlagMissing(24, null));
        assertTrue(RawAccess.allowFlagMissing(25, null));
        assertTrue(RawAccess.allowFlagMissing(25, "warn"));
        assertTrue(RawAccess.allowFlagMissing(25, "deny"));
        assertFalse(RawAccess.allowFlagMissing(25, "allow"));
    }

    @Test
    void thisJvmsAnswerFollowsFromItsJdkAndFlags() {
        assumeTrue(supportedPlatform(), "the portable path is the only one here");
        // Stated again here, not through allowFlagMissing: the oracle must not be the code.
        boolean expected =
                !"varhandle".equals(System.getProperty(RawAccess.PROPERTY, "auto"))
                        && Runtime.version().feature() >= 24
                        && !"allow".equals(System.getProperty("sun.misc.unsafe.memory.access"));
        assertEquals(expected, RawAccess.ALLOW_FLAG_MISSING);
        if (RawAccess.ALLOW_FLAG_MISSING) {
            assertFalse(RawAccess.ENABLED);
            assertTrue(RawAccess.REASON.contains(RawAccess.ALLOW_FLAG), RawAccess.REASON);
        }
    }

    @Test
    void theWarningNamesTheFlagTheCostAndTheWayOut() {
        String w = RawAccess.allowFlagWarning(25);
        assertTrue(w.contains("JDK 25"), w);
        assertTrue(w.contains(RawAccess.ALLOW_FLAG), w);
        assertTrue(w.contains("1.2-1.4x slower"), w);
        assertTrue(w.contains("-D" + RawAccess.PROPERTY + "=varhandle"), w);
    }

    /**
     * A JDK 24+ JVM warns once without the flag, and is silent (and fast) with it or with {@code
     * varhandle} chosen; with {@code unsafe} asked for, it gives that request's one warning, not
     * two. The JDK is {@link NewerJdk}'s; the test is skipped where there is none.
     */
    @Test
    void aJdk25JvmWarnsOnlyWhenTheFlagIsAllItLacks() throws Exception {
        assumeTrue(supportedPlatform(), "the portable path is the only one here");
        Optional<Path> java = NewerJdk.java(24);
        assumeTrue(java.isPresent(), NewerJdk.why(24));
        String warning = "was started without " + RawAccess.ALLOW_FLAG;

        String plain = run(java.get());
        assertTrue(plain.contains("ENABLED=false"), plain);
        assertTrue(plain.contains("REASON=JDK "), plain);
        assertEquals(1, count(plain, warning), plain);

        String allowed = run(java.get(), RawAccess.ALLOW_FLAG);
        assertTrue(allowed.contains("ENABLED=true"), allowed);
        assertTrue(allowed.contains("REASON=none"), allowed);
        assertFalse(allowed.contains(warning), allowed);
        assertFalse(allowed.contains("WARNING"), allowed);

        String portable = run(java.get(), "-D" + RawAccess.PROPERTY + "=varhandle");
        assertTrue(portable.contains("ENABLED=false"), portable);
        assertTrue(portable.contains("REASON=" + RawAccess.PROPERTY + "=varhandle"), portable);
        assertFalse(portable.contains(warning), portable);

        String asked = run(java.get(), "-D" + RawAccess.PROPERTY + "=unsafe");
        assertTrue(asked.contains("ENABLED=false"), asked);
        assertEquals(1, count(asked, "WARNING"), asked);
        assertTrue(asked.contains(RawAccess.PROPERTY + "=unsafe, but the portable path"), asked);
    }

    private static boolean supportedPlatform() {
        String arch = System.getProperty("os.arch", "");
        return java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN
                && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"));
    }

    /** Run in a new JVM: loads {@link RawAccess} and prints what it decided. */
    public static final class Probe {
        private Probe() {}

        public static void main(String[] args) {
            System.out.println("ENABLED=" + RawAccess.ENABLED);
            // Asked again, through the public API: still one warning.
            System.out.println("REASON=" + JitFlags.portableMemoryReason().orElse("none"));
        }
    }

    private static String run(Path java, String... flags) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(List.of(flags));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Probe.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out;
        try {
            out = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the probe JVM did not finish");
        } finally {
            p.destroyForcibly();
        }
        String printed = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), printed);
        return printed;
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }
}
