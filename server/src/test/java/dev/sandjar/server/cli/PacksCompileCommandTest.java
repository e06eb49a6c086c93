package dev.sandjar.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code sandjar packs compile}'s usage checks, which need no network (the compiler itself is
 * tested in the packs module, against the registry once).
 */
class PacksCompileCommandTest {
    private static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                SandjarCli.run(
                        args,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[] {
            String.valueOf(code),
            out.toString(StandardCharsets.UTF_8),
            err.toString(StandardCharsets.UTF_8)
        };
    }

    @Test
    void aVersionRangeOrNoVersionIsBadUsage() {
        for (String spec : new String[] {"lodash-es", "lodash-es@^4.17.21", "@scope/x@latest"}) {
            String[] r = run("packs", "compile", spec);
            assertEquals("1", r[0], spec);
            assertTrue(
                    r[2].startsWith(
                            "error: usage: packs compile needs NAME@VERSION with an exact version"
                                    + " (1.2.3), got '"
                                    + spec
                                    + "'"),
                    r[2]);
        }
    }

    @Test
    void unknownOptionsAndMissingSpecAreBadUsage() {
        assertTrue(
                run("packs", "compile", "x@1.0.0", "--fast")[2].startsWith(
                        "error: usage: unknown option --fast"));
        assertTrue(
                run("packs", "compile")[2].startsWith(
                        "error: usage: packs compile needs NAME@VERSION"));
        assertTrue(
                run("packs", "compile", "x@1.0.0", "--out")[2].startsWith(
                        "error: usage: --out needs a value"));
    }
}
