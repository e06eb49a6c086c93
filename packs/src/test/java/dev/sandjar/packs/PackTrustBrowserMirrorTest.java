package dev.sandjar.packs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The browser runner ({@code server/src/main/runner/runner.js}) guards untrusted pack code with its
 * own copies of {@link PackTrust}'s names: a capability added to the withheld set, or a built-in
 * added to the safe global, must reach the page too, or the page would hand an untrusted pack what
 * the JVM withholds.
 */
class PackTrustBrowserMirrorTest {
    private static final Path RUNNER =
            Path.of("..", "server", "src", "main", "runner", "runner.js");

    private static String runner() throws IOException {
        assertTrue(Files.isRegularFile(RUNNER), "the browser runner's source at " + RUNNER);
        return Files.readString(RUNNER, StandardCharsets.UTF_8);
    }

    /** The string literals of {@code const NAME = [...]}. */
    private static List<String> array(String source, String name) {
        Matcher m =
                Pattern.compile("const " + name + " = \\[(.*?)\\];", Pattern.DOTALL)
                        .matcher(source);
        assertTrue(m.find(), "runner.js declares " + name);
        List<String> out = new ArrayList<>();
        Matcher s = Pattern.compile("\"([^\"]*)\"").matcher(m.group(1));
        while (s.find()) {
            out.add(s.group(1));
        }
        return out;
    }

    @Test
    void theWithheldNamesAreTheJvmsOwn() throws IOException {
        Set<String> page = new TreeSet<>(array(runner(), "WITHHELD"));
        assertEquals(new TreeSet<>(PackTrust.DEFAULT_WITHHELD), page);
    }

    @Test
    void theGlobalObjectNamesAndTheSafeGlobalAreTheJvmsOwn() throws IOException {
        String source = runner();
        assertEquals(PackTrust.GLOBAL_OBJECT_NAMES, array(source, "GLOBAL_OBJECT_NAMES"));
        // the guard's text is built from this list in the same order on both sides
        assertEquals(PackTrust.STANDARD_GLOBALS, array(source, "STANDARD_GLOBALS"));
        assertTrue(
                source.contains("const GUARD_MODULE = \"" + PackTrust.GUARD_MODULE + "\";"),
                "runner.js names the guard module " + PackTrust.GUARD_MODULE);
    }

    @Test
    void theGuardsFixedLinesAreTheJvmsOwn() throws IOException {
        String source = runner();
        // every fixed line of the JVM's guard (all but the safe global's entries) appears in
        // runner.js as a JavaScript string literal
        for (String line : PackTrust.GUARD_SOURCE.split("\n")) {
            if (line.startsWith("  ")) {
                continue;
            }
            String literal = "\"" + line.replace("\\", "\\\\").replace("\"", "\\\"") + "\\n\"";
            assertTrue(source.contains(literal), "runner.js holds the guard line " + literal);
        }
    }
}
