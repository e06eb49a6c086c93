package dev.sandjar.bridges.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.testing.Fuzz;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzzing of the workspace path resolver (docs/workspace.md "Paths", "Containment"): paths built
 * from pieces ({@code ..}, {@code .}, {@code /}, {@code /workspace}, NUL, backslash, unicode, lone
 * surrogates, long names) through {@link GuestPath#parse} against an independent normalisation, and
 * through a real {@link Workspace} whose root holds a link to a secret outside it. A refusal is a
 * {@link WorkspaceException}; nothing resolves outside the root, reads the secret or writes
 * outside. Tries: {@link Fuzz}.
 */
class PathFuzzTest {
    private static final List<String> PIECES =
            List.of(
                    "..",
                    "../",
                    "/..",
                    ".",
                    "./",
                    "/",
                    "//",
                    "/workspace",
                    "/workspace/",
                    "/workspacex",
                    "a",
                    "b/",
                    "dir",
                    "link",
                    "link/",
                    "file.txt",
                    "\u0000",
                    "\\",
                    "\u00e9",
                    "\uD800",
                    "\uD83D\uDE00",
                    "%2e%2e",
                    "x".repeat(256),
                    "\u00e9".repeat(128));

    private static final List<String> SEEDS =
            List.of("a/b", "/workspace/dir/file.txt", "dir/../file.txt", "link/secret.txt", "");

    private static String path(java.util.Random r) {
        StringBuilder s = new StringBuilder();
        for (int i = r.nextInt(6); i >= 0; i--) {
            s.append(Fuzz.pick(r, PIECES));
            if (r.nextBoolean()) {
                s.append('/');
            }
        }
        return r.nextInt(3) == 0 ? Fuzz.mutate(r, Fuzz.pick(r, SEEDS), PIECES) : s.toString();
    }

    @Test
    void parseStaysInsideTheRootByAnIndependentNormalisation() {
        Fuzz.run(
                "GuestPath.parse",
                5000,
                PathFuzzTest::path,
                raw -> {
                    GuestPath p;
                    try {
                        p = GuestPath.parse("read", raw);
                    } catch (WorkspaceException e) {
                        assertTrue(
                                e.code() == WorkspaceException.Code.INVALID_PATH
                                        || e.code() == WorkspaceException.Code.OUTSIDE_ROOT,
                                e.toString());
                        return;
                    }
                    for (String name : p.names()) {
                        assertFalse(
                                name.isEmpty()
                                        || name.equals(".")
                                        || name.equals("..")
                                        || name.contains("/")
                                        || name.contains("\0")
                                        || name.contains("\\"),
                                "name " + Fuzz.show(name));
                        assertTrue(GuestPath.utf8Length(name) <= GuestPath.MAX_NAME_BYTES);
                    }
                    // The same walk, done by java.nio on a Unix path under a fake root.
                    String rest =
                            raw.equals("/workspace") || raw.startsWith("/workspace/")
                                    ? raw.substring("/workspace".length())
                                    : "/" + raw;
                    Path normal = Path.of("/workspace" + rest).normalize();
                    assertTrue(normal.startsWith("/workspace"), "nio leaves the root: " + normal);
                    assertEquals(normal.toString(), p.canonical(), "resolves elsewhere");
                    assertEquals(
                            p.names(),
                            GuestPath.parse("read", p.canonical()).names(),
                            "the canonical path parses differently");
                });
    }

    @Test
    void workspaceNeverReachesOutsideItsRoot(@TempDir Path tmp) throws IOException {
        Path root = Files.createDirectories(tmp.resolve("root"));
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "SECRET");
        Files.createDirectories(root.resolve("dir"));
        Files.writeString(root.resolve("dir/file.txt"), "inside");
        Files.createSymbolicLink(root.resolve("link"), outside);
        Files.createSymbolicLink(root.resolve("dir/up"), Path.of("../../outside/secret.txt"));
        List<Path> before = tree(tmp, outside);
        try (Workspace ws = Workspace.builder(root).build()) {
            Fuzz.run(
                    "Workspace paths",
                    1500,
                    PathFuzzTest::path,
                    raw -> {
                        try {
                            switch (Math.floorMod(raw.hashCode(), 4)) {
                                case 0 -> assertFalse(ws.read(raw).contains("SECRET"), raw);
                                case 1 -> ws.list(raw);
                                case 2 -> ws.stat(raw);
                                default -> ws.write(raw, "written");
                            }
                        } catch (WorkspaceException refused) {
                            // the documented refusal
                        }
                    });
        }
        assertEquals(before, tree(tmp, outside), "something changed outside the root");
        assertEquals("SECRET", Files.readString(outside.resolve("secret.txt")));
        try (Stream<Path> all = Files.walk(tmp)) {
            for (Path p : all.toList()) {
                assertTrue(
                        p.startsWith(root) || p.startsWith(outside) || p.equals(tmp),
                        "written outside the root: " + p);
            }
        }
    }

    private static List<Path> tree(Path tmp, Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(tmp::relativize).sorted().toList();
        }
    }

    @Test
    void regressionPathsStayRefused() {
        for (String raw :
                List.of("..", "a/../..", "/workspace/..", "/etc/passwd", "/workspacex/a", "a\0b")) {
            try {
                GuestPath.parse("read", raw);
                throw new AssertionError("accepted " + Fuzz.show(raw));
            } catch (WorkspaceException expected) {
                assertTrue(expected.getMessage().getBytes(StandardCharsets.UTF_8).length > 0);
            }
        }
    }
}
