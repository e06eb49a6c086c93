package dev.sandjar.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GraalJS (JIT) column's setup and proof, on the test's JVM: a stock JDK with GraalJS 23.1.8,
 * where Truffle has no compiler, so the column's engine must refuse to start. That the column runs
 * on Temurin 25 is shown by {@code bench/run.sh smoke} (docs/performance.md, "The systems").
 */
class GraalJitTest {
    @TempDir Path dir;

    @Test
    void theJitColumnsEngineRefusesAnInterpretedTruffleAndSaysWhy() {
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> new GraalSystem(true).close());
        assertTrue(
                e.getMessage()
                        .startsWith("Truffle runs interpreted, not with the Graal compiler: "),
                e.getMessage());
        // The engine's own warning follows, naming the cause (here: no JVMCI).
        assertTrue(e.getMessage().contains("JVMCI"), e.getMessage());
    }

    @Test
    void theInterpretedColumnStillStartsAndSaysItIsInterpreted() {
        try (GraalSystem g = new GraalSystem(false)) {
            assertEquals(GraalSystem.INTERPRETED, g.implementation());
            assertEquals("graaljs", g.name());
            assertEquals("2", g.eval("return 1 + 1;"));
        }
    }

    @Test
    void theVerdictAcceptsOnlyACompilingRuntimeWithASpeedUp() {
        Map<String, Object> ok =
                Map.of("implementation", "GraalVM CE", "interpretedMs", 60.0, "compiledMs", 5.0);
        assertNull(GraalJit.verdict(ok));
        Map<String, Object> justAtBound =
                Map.of("implementation", "GraalVM CE", "interpretedMs", 60.0, "compiledMs", 30.0);
        assertNull(GraalJit.verdict(justAtBound));

        String slow =
                GraalJit.verdict(
                        Map.of(
                                "implementation",
                                "GraalVM CE",
                                "interpretedMs",
                                60.0,
                                "compiledMs",
                                30.1));
        assertTrue(slow.startsWith("no speed-up from the compiler: fib(25) 30.1 ms"), slow);
        assertTrue(slow.contains("at least 2x"), slow);

        String interpreted =
                GraalJit.verdict(
                        Map.of(
                                "implementation",
                                "Interpreted",
                                "interpretedMs",
                                60.0,
                                "compiledMs",
                                5.0));
        assertEquals("Truffle runs interpreted (implementation Interpreted)", interpreted);

        assertEquals("boom", GraalJit.verdict(Map.of("error", "boom")));
    }

    @Test
    void setupNamesWhatIsMissing() throws IOException {
        String unset =
                assertThrows(IllegalStateException.class, () -> GraalJit.of(null, "x", "y"))
                        .getMessage();
        assertTrue(unset.contains(GraalJit.JAVA), unset);

        String noJdk =
                assertThrows(
                                IllegalStateException.class,
                                () -> GraalJit.of(dir.resolve("java").toString(), "x", "y"))
                        .getMessage();
        assertEquals("no JDK 25 at " + dir.resolve("java"), noJdk);

        Path java = executable("java");
        String noJars =
                assertThrows(
                                IllegalStateException.class,
                                () -> GraalJit.of(java.toString(), dir.toString(), "y"))
                        .getMessage();
        assertTrue(noJars.contains(dir.resolve("upgrade") + " is missing"), noJars);

        Files.createDirectories(dir.resolve("upgrade"));
        Files.createDirectories(dir.resolve("modules"));
        String noClassPath =
                assertThrows(
                                IllegalStateException.class,
                                () ->
                                        GraalJit.of(
                                                java.toString(),
                                                dir.toString(),
                                                dir.resolve("cp.txt").toString()))
                        .getMessage();
        assertEquals("no class path file " + dir.resolve("cp.txt"), noClassPath);
    }

    @Test
    void itsJvmsRunOnItsJavaWithTheCompilerUpgradedInAndGraalJs25OnTheModulePath()
            throws IOException {
        Path java = executable("java");
        Files.createDirectories(dir.resolve("upgrade"));
        Files.createDirectories(dir.resolve("modules"));
        Files.writeString(dir.resolve("upgrade/compiler-25.0.3.jar"), "");
        Files.writeString(dir.resolve("upgrade/word-25.0.3.jar"), "");
        Files.writeString(dir.resolve("modules/polyglot-25.0.3.jar"), "");
        Files.writeString(dir.resolve("cp.txt"), "/m2/jmh.jar:/m2/jackson.jar\n");
        GraalJit jit =
                GraalJit.of(java.toString(), dir.toString(), dir.resolve("cp.txt").toString());

        assertEquals("25.0.3", jit.version());
        List<String> cmd = jit.command(List.of("-Xss4m"), "a.Main", List.of("x", "y"));
        assertEquals(java.toString(), cmd.get(0));
        assertEquals("-Xss4m", cmd.get(1));
        assertTrue(cmd.contains("-XX:+EnableJVMCI"), cmd.toString());
        assertTrue(
                cmd.contains(
                        "--upgrade-module-path="
                                + dir.resolve("upgrade/compiler-25.0.3.jar").toAbsolutePath()
                                + ":"
                                + dir.resolve("upgrade/word-25.0.3.jar").toAbsolutePath()),
                cmd.toString());
        assertTrue(
                cmd.contains(
                        "--module-path="
                                + dir.resolve("modules/polyglot-25.0.3.jar").toAbsolutePath()),
                cmd.toString());
        int cp = cmd.indexOf("-cp");
        assertTrue(
                cmd.get(cp + 1).endsWith("bench/target/classes:/m2/jmh.jar:/m2/jackson.jar"),
                cmd.get(cp + 1));
        assertEquals(List.of("a.Main", "x", "y"), cmd.subList(cp + 2, cmd.size()));
        // The Unsafe flag once, whether or not the fork flags (a bench on JDK 24+) have it.
        assertEquals(1, cmd.stream().filter(BenchMain.UNSAFE_FLAG::equals).count(), cmd.toString());
        List<String> withIt =
                jit.command(List.of("-Xss4m", BenchMain.UNSAFE_FLAG), "a.Main", List.of());
        assertEquals(
                1,
                withIt.stream().filter(BenchMain.UNSAFE_FLAG::equals).count(),
                withIt.toString());
    }

    private Path executable(String name) throws IOException {
        Path f = Files.writeString(dir.resolve(name), "#!/bin/sh\n");
        assertTrue(f.toFile().setExecutable(true));
        return f;
    }
}
