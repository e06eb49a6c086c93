package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Fixtures.assertCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link FilesystemAccess#HOST}: containment lifted for trusted callers, the rest kept. */
@Timeout(10)
class HostAccessTest {
    @TempDir Path tmp;
    Path root;
    Path outside;
    Workspace ws;

    @BeforeEach
    void open() throws IOException {
        root = Files.createDirectory(tmp.resolve("root"));
        outside = Files.createDirectory(tmp.resolve("outside"));
        Files.writeString(outside.resolve("o.txt"), "outside");
        ws =
                Workspace.builder(root)
                        .withFilesystemAccess(FilesystemAccess.HOST)
                        .withLimits(WorkspaceLimits.builder().withMaxReadBytes(100).build())
                        .build();
    }

    @AfterEach
    void noLeaks() {
        ws.close();
        assertEquals(List.of(), Fixtures.strays(tmp));
        assertEquals(List.of(), Fixtures.openFilesUnder(tmp), "file descriptors leaked");
    }

    @Test
    void pathsAreHostPaths() throws IOException {
        assertEquals(root.toRealPath().toString(), ws.root());
        assertEquals(FilesystemAccess.HOST, ws.access());
        assertEquals("outside", ws.read(outside.resolve("o.txt").toString()));
        assertEquals("outside", ws.read("../outside/o.txt")); // relative to the root
        ws.write("here.txt", "x");
        assertEquals("x", Files.readString(root.resolve("here.txt")));
        ws.write(outside.resolve("new.txt").toString(), "y");
        assertEquals("y", Files.readString(outside.resolve("new.txt")));
    }

    @Test
    void symlinksAreFollowed() throws IOException {
        Files.createSymbolicLink(root.resolve("out"), outside);
        Files.createSymbolicLink(root.resolve("file-link"), outside.resolve("o.txt"));
        assertEquals("outside", ws.read("out/o.txt"));
        assertEquals("outside", ws.read("file-link"));
        assertEquals(EntryType.FILE, ws.stat("file-link").type());
        assertEquals(List.of(new Entry("o.txt", EntryType.FILE, 7)), ws.list("out"));
        ws.write("file-link", "changed"); // writes the target, keeps the link
        assertTrue(Files.isSymbolicLink(root.resolve("file-link")));
        assertEquals("changed", Files.readString(outside.resolve("o.txt")));
    }

    @Test
    void directoriesCopiesMovesAndRemoval() throws IOException {
        String dir = outside.resolve("a/b").toString();
        ws.mkdir(dir, true);
        ws.write(dir + "/f", "f");
        ws.copy(outside.resolve("a").toString(), "a-copy", false);
        assertEquals("f", Files.readString(root.resolve("a-copy/b/f")));
        ws.move("a-copy", outside.resolve("moved").toString(), false);
        assertEquals("f", ws.read(outside.resolve("moved/b/f").toString()));
        ws.mkdir(outside.resolve("single").toString(), false);
        assertTrue(Files.isDirectory(outside.resolve("single")));
        ws.remove(outside.resolve("moved").toString(), true);
        assertTrue(Files.notExists(outside.resolve("moved")));
    }

    @Test
    void limitsAndErrorsStillApply() throws IOException {
        Files.write(outside.resolve("big"), new byte[101]);
        assertCode(Code.TOO_LARGE, () -> ws.readBytes(outside.resolve("big").toString()));
        assertCode(Code.NOT_FOUND, () -> ws.read(outside.resolve("nope").toString()));
        assertCode(Code.NOT_FOUND, () -> ws.write(outside.resolve("no/dir").toString(), "x"));
        assertCode(Code.INVALID_PATH, () -> ws.read("a\0b"));
        assertCode(Code.IS_A_DIRECTORY, () -> ws.read(outside.toString()));
    }
}
