package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Fixtures.assertCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GuestPathTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "a|a",
                "a/b/c.txt|a/b/c.txt",
                "a/|a",
                "./a/./b|a/b",
                "a/../b|b",
                "a/b/../../c|c",
                "/workspace/a/b|a/b",
                "/workspace/a/|a",
                "workspace/a|workspace/a",
                "...|...",
                "a b/ü.txt|a b/ü.txt",
            })
    void normalizesToNamesUnderTheRoot(String raw, String names) {
        assertEquals(List.of(names.split("/")), GuestPath.parse("op", raw).names());
    }

    @ParameterizedTest
    @ValueSource(strings = {".", "./", "/workspace", "/workspace/", "a/..", "/workspace/a/.."})
    void spellingsOfTheRoot(String raw) {
        assertTrue(GuestPath.parse("op", raw).isRoot());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "..",
                "../x",
                "a/../../x",
                "./..",
                "/workspace/..",
                "/workspace/../workspace/a",
                "/",
                "/etc/passwd",
                "/workspaces/a",
                "/tmp",
                "//workspace/a"
            })
    void refusesPathsOutsideTheRoot(String raw) {
        WorkspaceException e = assertCode(Code.OUTSIDE_ROOT, () -> GuestPath.parse("read", raw));
        assertTrue(
                e.getMessage().startsWith("read " + GuestPath.quote(raw) + ": "), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a//b", "a//", "/workspace//a", "a\\b", "..\\x", "a\0b"})
    void refusesMalformedPaths(String raw) {
        assertCode(Code.INVALID_PATH, () -> GuestPath.parse("read", raw));
    }

    @Test
    void refusesNull() {
        assertCode(Code.INVALID_PATH, () -> GuestPath.parse("read", null));
    }

    @Test
    void refusesUnpairedSurrogates() {
        assertCode(Code.INVALID_PATH, () -> GuestPath.parse("read", "a\ud800b"));
    }

    @Test
    void pathLengthIsCountedInUtf8Bytes() {
        String ok = "a/".repeat(2047) + "bc"; // 4096 bytes
        assertEquals(4096, ok.length());
        assertEquals(2048, GuestPath.parse("op", ok).names().size());
        assertCode(Code.INVALID_PATH, () -> GuestPath.parse("op", ok + "d"));
        // 1366 three-byte characters: under 4096 UTF-16 units, 4098 UTF-8 bytes.
        String wide = "\u20ac".repeat(1366);
        WorkspaceException e = assertCode(Code.INVALID_PATH, () -> GuestPath.parse("op", wide));
        assertTrue(e.getMessage().contains("4098 bytes"), e.getMessage());
    }

    @Test
    void nameLengthIsCountedInUtf8Bytes() {
        assertEquals(1, GuestPath.parse("op", "x".repeat(255)).names().size());
        assertCode(Code.INVALID_PATH, () -> GuestPath.parse("op", "x".repeat(256)));
        assertCode(Code.INVALID_PATH, () -> GuestPath.parse("op", "d/" + "\u00e9".repeat(128)));
        // A long name that '..' later removes is still refused: names are checked as written.
        assertCode(Code.INVALID_PATH, () -> GuestPath.parse("op", "x".repeat(256) + "/.."));
    }

    @Test
    void canonicalSpelling() {
        GuestPath ab = GuestPath.parse("op", "a/./b/");
        assertEquals("/workspace/a/b", ab.canonical());
        assertEquals("/workspace/a", ab.prefix(1));
    }

    @Test
    void quotingEscapesControlCharactersAndCutsLongPaths() {
        assertEquals("\"a\\u000ab\\\"c\"", GuestPath.quote("a\nb\"c"));
        String quoted = GuestPath.quote("x".repeat(1000));
        assertTrue(quoted.length() < 210 && quoted.endsWith("...\""), quoted);
    }
}
