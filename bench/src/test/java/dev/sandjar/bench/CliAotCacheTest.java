package dev.sandjar.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandjar.quickjs.testing.NewerJdk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./sandjar} on JDK 25 and later makes an AOT cache with a training run after a build and
 * starts every later JVM with it (docs/jvm-flags.md, "JDK 25's AOT cache"). Runs the real script on
 * a real JDK 25 where one is installed beside this JVM's ({@link NewerJdk}); needs the server
 * packaged, which {@code mvn verify} does before this module's tests.
 */
class CliAotCacheTest {
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Path TARGET = REPO.resolve("server/target");

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void onJdk25TheScriptMakesItsAotCacheOnceAndStartsWithIt() throws Exception {
        Optional<Path> java = NewerJdk.java(25);
        assumeTrue(java.isPresent(), NewerJdk.why(25));
        assertTrue(
                Files.isDirectory(TARGET.resolve("lib")),
                "the server is not packaged: " + TARGET.resolve("lib") + " is missing");
        for (Path old : files(".aot")) {
            Files.delete(old);
        }

        // No cache yet: the script trains, then runs the example on the cache it just made.
        assertRanHello(start(java.get()));
        List<Path> caches = files(".aot");
        assertEquals(1, caches.size(), caches.toString());
        assertTrue(Files.size(caches.get(0)) > 1_000_000, caches + " is too small to be a cache");
        assertEquals(List.of(), files(".tmp"), "a temporary file was left behind");
        assertEquals(List.of(), files(".config"), "the cache's configuration was left behind");
        long made = Files.getLastModifiedTime(caches.get(0)).toMillis();

        Process second = start(java.get());
        assertEquals(caches.get(0).toString(), CliSpeed.archiveOf(second));
        assertRanHello(second);
        assertEquals(caches, files(".aot"), "the second start made another cache");
        assertEquals(made, Files.getLastModifiedTime(caches.get(0)).toMillis(), "it was remade");
    }

    private static Process start(Path java) throws IOException {
        ProcessBuilder pb =
                new ProcessBuilder(
                        REPO.resolve("sandjar").toString(),
                        "run",
                        REPO.resolve("examples/hello.js").toString());
        pb.environment().put("JAVA", java.toString());
        pb.environment().remove("SANDJAR_CDS");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        return pb.redirectErrorStream(true).start();
    }

    private static void assertRanHello(Process p) throws Exception {
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(240, TimeUnit.SECONDS), "./sandjar did not finish");
        String printed = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), printed);
        assertTrue(printed.contains("\"greeting\":\"Hello, Sandjar!\""), printed);
    }

    /** The server target's files whose names start with "sandjar-" and end so. */
    private static List<Path> files(String suffix) throws IOException {
        try (Stream<Path> all = Files.list(TARGET)) {
            return all.filter(
                            f -> {
                                String n = f.getFileName().toString();
                                return n.startsWith("sandjar-") && n.endsWith(suffix);
                            })
                    .sorted()
                    .toList();
        }
    }
}
