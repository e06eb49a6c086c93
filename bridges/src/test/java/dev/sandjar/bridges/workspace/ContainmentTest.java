package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Fixtures.assertCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No path, {@code ..} or symbolic link reaches outside the root, and links inside it are not
 * followed either. Layout: {@code tmp/root} is the workspace, {@code tmp/outside} (a sibling) holds
 * {@code secret.txt}.
 */
@Timeout(10)
class ContainmentTest {
    static final String SECRET = "SECRET-OUTSIDE-THE-ROOT";

    @TempDir Path tmp;
    Path root;
    Path outside;
    Workspace ws;

    @BeforeEach
    void open() throws IOException {
        root = Files.createDirectory(tmp.resolve("root"));
        outside = Files.createDirectory(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), SECRET);
        Files.createDirectory(root.resolve("data"));
        Files.writeString(root.resolve("data/f.txt"), "inside");
        ws = Workspace.builder(root).build();
    }

    @AfterEach
    void outsideIsUntouched() throws IOException {
        ws.close();
        assertEquals(SECRET, Files.readString(outside.resolve("secret.txt")));
        try (var entries = Files.list(outside)) {
            assertEquals(List.of(outside.resolve("secret.txt")), entries.toList());
        }
        assertEquals(List.of(), Fixtures.strays(root));
        assertEquals(List.of(), Fixtures.openFilesUnder(tmp), "file descriptors leaked");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "../outside/secret.txt",
                "data/../../outside/secret.txt",
                "/workspace/../outside/secret.txt",
                "/etc/passwd",
                "/"
            })
    void pathsThatLeaveTheRootAreRefused(String path) {
        assertCode(Code.OUTSIDE_ROOT, root, () -> ws.read(path));
        assertCode(Code.OUTSIDE_ROOT, root, () -> ws.write(path, "x"));
        assertCode(Code.OUTSIDE_ROOT, root, () -> ws.copy("data/f.txt", path, true));
        assertCode(Code.OUTSIDE_ROOT, root, () -> ws.move("data/f.txt", path, true));
        assertCode(Code.OUTSIDE_ROOT, root, () -> ws.list(path));
    }

    @Test
    void absoluteHostPathsAreRefused() {
        String hostPath = outside.resolve("secret.txt").toString();
        assertCode(Code.OUTSIDE_ROOT, root, () -> ws.read(hostPath));
        // Even the root's own host path is not a guest path. (The message echoes what the guest
        // wrote, so it is not checked for the root's path here.)
        assertCode(Code.OUTSIDE_ROOT, () -> ws.read(root.resolve("data/f.txt").toString()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"data\\f.txt", "data\0f.txt", "data//f.txt", ""})
    void malformedPathsAreRefused(String path) {
        assertCode(Code.INVALID_PATH, root, () -> ws.read(path));
        assertCode(Code.INVALID_PATH, root, () -> ws.write(path, "x"));
    }

    @Test
    void overlongPathsAndNamesAreRefused() {
        assertCode(Code.INVALID_PATH, root, () -> ws.write("n".repeat(256), "x"));
        assertCode(Code.INVALID_PATH, root, () -> ws.read("d/".repeat(2048) + "x"));
        ws.write("n".repeat(255), "x"); // the longest name is fine
        assertEquals("x", ws.read("n".repeat(255)));
    }

    @Test
    void linkToAFileOutside() throws IOException {
        Files.createSymbolicLink(root.resolve("leak"), outside.resolve("secret.txt"));
        assertCode(Code.SYMLINK, root, () -> ws.read("leak"));
        assertCode(Code.SYMLINK, root, () -> ws.readBytes("leak"));
        assertCode(Code.SYMLINK, root, () -> ws.write("leak", "pwned"));
        assertCode(Code.SYMLINK, root, () -> ws.copy("leak", "copied", false));
        assertCode(Code.SYMLINK, root, () -> ws.copy("data/f.txt", "leak", true));
        assertEquals(EntryType.SYMLINK, ws.stat("leak").type());
        assertFalse(Files.exists(root.resolve("copied")));
    }

    @Test
    void linkToADirectoryOutside() throws IOException {
        Files.createSymbolicLink(root.resolve("out"), outside);
        assertCode(Code.SYMLINK, root, () -> ws.read("out/secret.txt"));
        assertCode(Code.SYMLINK, root, () -> ws.stat("out/secret.txt"));
        assertCode(Code.SYMLINK, root, () -> ws.list("out"));
        assertCode(Code.SYMLINK, root, () -> ws.list("out/"));
        assertCode(Code.SYMLINK, root, () -> ws.write("out/new.txt", "x"));
        assertCode(Code.SYMLINK, root, () -> ws.writeBytes("out/secret.txt", new byte[1]));
        assertCode(Code.SYMLINK, root, () -> ws.mkdir("out/d", false));
        assertCode(Code.SYMLINK, root, () -> ws.mkdir("out/d/e", true));
        assertCode(Code.SYMLINK, root, () -> ws.remove("out/secret.txt", false));
        assertCode(Code.SYMLINK, root, () -> ws.move("out/secret.txt", "stolen", false));
        assertCode(Code.SYMLINK, root, () -> ws.move("data/f.txt", "out/planted", false));
        assertCode(Code.SYMLINK, root, () -> ws.copy("out/secret.txt", "stolen", false));
        assertCode(Code.SYMLINK, root, () -> ws.copy("data", "out/planted", false));
        assertCode(Code.SYMLINK, root, () -> ws.copy("out", "stolen", false));
        assertFalse(Files.exists(root.resolve("stolen")));
    }

    @Test
    void linkChainThatEndsOutside() throws IOException {
        // a -> b (inside), b -> ../outside: every hop is refused, the first one already.
        Files.createSymbolicLink(root.resolve("b"), Path.of("../outside"));
        Files.createSymbolicLink(root.resolve("a"), Path.of("b"));
        assertCode(Code.SYMLINK, root, () -> ws.read("a/secret.txt"));
        assertCode(Code.SYMLINK, root, () -> ws.read("b/secret.txt"));
        assertCode(Code.SYMLINK, root, () -> ws.write("a/x", "x"));
    }

    @Test
    void symlinkedParentDeepInThePath() throws IOException {
        Files.createDirectories(root.resolve("d1"));
        Files.createSymbolicLink(root.resolve("d1/d2"), outside);
        WorkspaceException e = assertCode(Code.SYMLINK, root, () -> ws.read("d1/d2/secret.txt"));
        assertTrue(e.getMessage().contains("/workspace/d1/d2 is a symbolic link"), e.getMessage());
        assertCode(Code.SYMLINK, root, () -> ws.write("d1/d2/planted", "x"));
        assertCode(Code.SYMLINK, root, () -> ws.mkdir("d1/d2/sub", true));
    }

    @Test
    void linkToEtc() throws IOException {
        Files.createSymbolicLink(root.resolve("etc"), Path.of("/etc"));
        assertCode(Code.SYMLINK, root, () -> ws.read("etc/passwd"));
        assertCode(Code.SYMLINK, root, () -> ws.read("etc/hostname"));
        assertCode(Code.SYMLINK, root, () -> ws.list("etc"));
        assertCode(Code.SYMLINK, root, () -> ws.stat("etc/passwd"));
        ws.remove("etc", false); // the link, not /etc
        assertTrue(Files.isDirectory(Path.of("/etc")));
    }

    @Test
    void linkToASiblingOfTheRoot() throws IOException {
        Files.createSymbolicLink(root.resolve("sib"), Path.of("../outside/secret.txt"));
        Files.createSymbolicLink(root.resolve("sibdir"), Path.of("../outside"));
        assertCode(Code.SYMLINK, root, () -> ws.read("sib"));
        assertCode(Code.SYMLINK, root, () -> ws.read("sibdir/secret.txt"));
    }

    @Test
    void linksInsideTheRootAreNotFollowedEither() throws IOException {
        Files.createSymbolicLink(root.resolve("alias"), Path.of("data"));
        Files.createSymbolicLink(root.resolve("file-alias"), Path.of("data/f.txt"));
        Files.createSymbolicLink(root.resolve("abs-alias"), root.resolve("data"));
        assertCode(Code.SYMLINK, root, () -> ws.read("alias/f.txt"));
        assertCode(Code.SYMLINK, root, () -> ws.read("file-alias"));
        assertCode(Code.SYMLINK, root, () -> ws.read("abs-alias/f.txt"));
        assertCode(Code.SYMLINK, root, () -> ws.list("alias"));
        Stat stat = ws.stat("alias");
        assertEquals(EntryType.SYMLINK, stat.type());
        // A link can be renamed and removed as itself; its target is never touched.
        ws.move("alias", "alias2", false);
        assertTrue(Files.isSymbolicLink(root.resolve("alias2")));
        ws.remove("alias2", true);
        assertFalse(Files.exists(root.resolve("alias2"), LinkOption.NOFOLLOW_LINKS));
        assertEquals("inside", ws.read("data/f.txt"));
    }

    @Test
    void danglingLinks() throws IOException {
        Files.createSymbolicLink(root.resolve("dangling"), Path.of("nowhere"));
        assertEquals(EntryType.SYMLINK, ws.stat("dangling").type());
        assertCode(Code.SYMLINK, root, () -> ws.read("dangling"));
        assertCode(Code.SYMLINK, root, () -> ws.write("dangling", "x"));
        assertFalse(Files.exists(root.resolve("nowhere"), LinkOption.NOFOLLOW_LINKS));
        assertCode(Code.EXISTS, root, () -> ws.mkdir("dangling", false));
    }

    @Test
    void recursiveRemoveDeletesLinksNotTheirTargets() throws IOException {
        Files.createDirectories(root.resolve("tree/sub"));
        Files.createSymbolicLink(root.resolve("tree/out"), outside);
        Files.createSymbolicLink(root.resolve("tree/sub/secret"), outside.resolve("secret.txt"));
        ws.remove("tree", true);
        assertFalse(Files.exists(root.resolve("tree"), LinkOption.NOFOLLOW_LINKS));
        // @AfterEach checks the outside directory is intact.
    }

    @Test
    void copyingATreeWithALinkLeavesNothingBehind() throws IOException {
        Files.createDirectories(root.resolve("tree/sub"));
        Files.writeString(root.resolve("tree/a.txt"), "a");
        Files.createSymbolicLink(root.resolve("tree/sub/out"), outside);
        assertCode(Code.SYMLINK, root, () -> ws.copy("tree", "copy", false));
        assertFalse(Files.exists(root.resolve("copy"), LinkOption.NOFOLLOW_LINKS));
    }
}
