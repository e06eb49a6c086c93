package dev.sandjar.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Sandbox;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first console run after pack runs, in a JVM of its own started with {@link
 * Sandbox#jvmFlags()}. Without {@code -XX:-SplitIfBlocks} C2 on JDK 17 miscompiled the guest code
 * here in most fresh JVMs: {@code slice(0, 8192)} of an 18-character line returned 8,210
 * characters, and the console refused the piece (docs/jvm-flags.md, "A C2 miscompilation on JDK
 * 17"). It depends on what the JIT compiled before, so it needs a JVM no other test has warmed.
 */
class ConsoleInAFreshJvmTest {
    private static final String LINE = "[log] hi { a: [ 1, 2 ] }";

    @TempDir Path dir;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theFirstConsoleRunAfterPackRunsLogsItsLineIntact() throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xss4m");
        cmd.addAll(Sandbox.jvmFlags());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Sequence.class.getName());
        cmd.add(dir.toString());
        Path output = dir.resolve("output.txt");
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(output.toFile())
                        .start();
        try {
            assertTrue(p.waitFor(280, TimeUnit.SECONDS), "the fresh JVM did not finish");
        } finally {
            p.destroyForcibly();
        }
        String out = Files.readString(output);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains(LINE), out);
    }

    /** The sequence, run in the fresh JVM: the pack runs of SandjarCliTest, then console.log. */
    public static final class Sequence {
        private Sequence() {}

        public static void main(String[] args) throws IOException {
            Path dir = Path.of(args[0]);
            Path pack = Files.createDirectories(dir.resolve("packs/peek"));
            Files.writeString(
                    pack.resolve("package.json"),
                    "{\"name\": \"@acme/peek\", \"version\": \"1.0.0\", \"sandjar\":"
                            + " {\"apiVersion\": 1, \"sandboxModules\": [{\"name\": \".\","
                            + " \"kind\": \"js\", \"file\": \"index.js\"}]}}");
            Files.writeString(
                    pack.resolve("index.js"),
                    "export const peek = () => typeof getSecret === 'function' ? getSecret('K') :"
                            + " 'none';");
            String packs = dir.resolve("packs").toString();
            String peek = "import { peek } from '@acme/peek';\nreturn [peek(), getSecret('K')];";
            expect(0, run(dir, peek, "--secret", "K=v", "--packs", packs));
            expect(0, run(dir, peek, "--secret", "K=v", "--trust-packs", packs));
            expect(0, cli("packs", "list", "--trust-packs", packs));
            String[] console = run(dir, "console.log('hi', {a: [1, 2]});\nreturn 1;");
            System.out.println(console[1]);
            expect(0, console);
            System.exit(console[1].contains(LINE) ? 0 : 1);
        }

        private static void expect(int code, String[] result) {
            if (!result[0].equals(String.valueOf(code))) {
                System.out.println("exit " + result[0] + ": " + result[1]);
                System.exit(1);
            }
        }

        private static String[] run(Path dir, String source, String... flags) throws IOException {
            Path file = dir.resolve("main.js");
            Files.writeString(file, source);
            String[] args = new String[flags.length + 2];
            args[0] = "run";
            args[1] = file.toString();
            System.arraycopy(flags, 0, args, 2, flags.length);
            return cli(args);
        }

        /** Exit code and stderr. */
        private static String[] cli(String... args) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code =
                    SandjarCli.run(
                            args,
                            new PrintStream(out, true, StandardCharsets.UTF_8),
                            new PrintStream(err, true, StandardCharsets.UTF_8));
            return new String[] {String.valueOf(code), err.toString(StandardCharsets.UTF_8)};
        }
    }
}
