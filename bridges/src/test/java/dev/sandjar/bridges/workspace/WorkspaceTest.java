package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Fixtures.assertCode;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import dev.sandjar.host.EngineException;
import dev.sandjar.host.InvalidRequestException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Every operation's happy path and its error codes, in contained mode. */
@Timeout(10)
class WorkspaceTest {
    @TempDir Path tmp;
    Path root;
    Workspace ws;

    @BeforeEach
    void open() throws IOException {
        root = Files.createDirectory(tmp.resolve("root"));
        ws = Workspace.builder(root).build();
    }

    @AfterEach
    void noLeaks() {
        ws.close();
        assertEquals(List.of(), Fixtures.strays(root), "temporary files left behind");
        assertEquals(List.of(), Fixtures.openFilesUnder(tmp), "file descriptors leaked");
    }

    @Test
    void rootIsVirtual() {
        assertEquals("/workspace", ws.root());
        assertEquals(EntryType.DIRECTORY, ws.stat("/workspace").type());
        assertEquals(EntryType.DIRECTORY, ws.stat(".").type());
    }

    @Test
    void writeThenReadText() throws IOException {
        ws.write("hello.txt", "héllo € \uD83D\uDE00\n");
        assertEquals("héllo € \uD83D\uDE00\n", ws.read("hello.txt"));
        assertEquals("héllo € \uD83D\uDE00\n", Files.readString(root.resolve("hello.txt")));
        assertEquals("héllo € \uD83D\uDE00\n", ws.read("/workspace/hello.txt"));
        ws.write("empty.txt", "");
        assertEquals("", ws.read("empty.txt"));
    }

    @Test
    void writeThenReadBytes() {
        byte[] bytes = new byte[200_000]; // several chunks
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 31);
        }
        ws.mkdir("bin", false);
        ws.writeBytes("bin/data", bytes);
        assertArrayEquals(bytes, ws.readBytes("bin/data"));
        assertEquals(bytes.length, ws.bytesRead());
        assertEquals(bytes.length, ws.bytesWritten());
    }

    @Test
    void writeReplacesAndKeepsPermissions() throws IOException {
        Path file = root.resolve("run.sh");
        Files.writeString(file, "old");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-x---"));
        ws.write("run.sh", "new");
        assertEquals("new", Files.readString(file));
        assertEquals(
                "rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void writeErrors() throws IOException {
        Files.createDirectory(root.resolve("dir"));
        Files.writeString(root.resolve("file"), "x");
        assertCode(Code.NOT_FOUND, root, () -> ws.write("missing/a.txt", "x"));
        assertCode(Code.IS_A_DIRECTORY, root, () -> ws.write("dir", "x"));
        assertCode(Code.IS_A_DIRECTORY, root, () -> ws.write("/workspace", "x"));
        assertCode(Code.NOT_A_DIRECTORY, root, () -> ws.write("file/a.txt", "x"));
        assertCode(Code.INVALID_TEXT, root, () -> ws.write("bad.txt", "a\uDC00b"));
        assertCode(Code.INVALID_TEXT, root, () -> ws.write("null.txt", null));
        assertFalse(Files.exists(root.resolve("bad.txt")));
    }

    @Test
    void readErrors() throws IOException {
        Files.createDirectory(root.resolve("dir"));
        Files.write(root.resolve("latin1.txt"), new byte[] {'o', 'k', (byte) 0xE9, '!'});
        assertCode(Code.NOT_FOUND, root, () -> ws.read("nope.txt"));
        assertCode(Code.NOT_FOUND, root, () -> ws.read("nodir/nope.txt"));
        assertCode(Code.IS_A_DIRECTORY, root, () -> ws.read("dir"));
        assertCode(Code.IS_A_DIRECTORY, root, () -> ws.readBytes("/workspace"));
        WorkspaceException e = assertCode(Code.INVALID_TEXT, root, () -> ws.read("latin1.txt"));
        assertTrue(e.getMessage().contains("at byte 2"), e.getMessage());
        assertArrayEquals(new byte[] {'o', 'k', (byte) 0xE9, '!'}, ws.readBytes("latin1.txt"));
    }

    @Test
    void readOfAFifoIsRefusedWithoutBlocking() throws Exception {
        Path fifo = root.resolve("pipe");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        org.junit.jupiter.api.Assumptions.assumeTrue(mkfifo.waitFor() == 0, "mkfifo unavailable");
        assertCode(Code.NOT_A_FILE, root, () -> ws.read("pipe"));
        assertCode(Code.NOT_A_FILE, root, () -> ws.write("pipe", "x"));
        assertCode(Code.NOT_A_DIRECTORY, root, () -> ws.list("pipe"));
        assertEquals(EntryType.OTHER, ws.stat("pipe").type());
        ws.remove("pipe", false);
        assertFalse(Files.exists(fifo, java.nio.file.LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void listReportsSortedEntriesWithTypesAndSizes() throws IOException {
        Files.writeString(root.resolve("b.txt"), "12345");
        Files.createDirectory(root.resolve("a-dir"));
        Files.createSymbolicLink(root.resolve("c-link"), Path.of("b.txt"));
        Files.writeString(root.resolve("a-dir/inner"), "x");
        List<Entry> entries = ws.list("/workspace");
        assertEquals(
                List.of("a-dir", "b.txt", "c-link"), entries.stream().map(Entry::name).toList());
        assertEquals(EntryType.DIRECTORY, entries.get(0).type());
        assertEquals(new Entry("b.txt", EntryType.FILE, 5), entries.get(1));
        assertEquals(EntryType.SYMLINK, entries.get(2).type());
        assertEquals(List.of(new Entry("inner", EntryType.FILE, 1)), ws.list("a-dir/"));
        assertEquals(entries, ws.list("a-dir/.."));
        assertThrows(UnsupportedOperationException.class, () -> entries.add(entries.get(0)));
    }

    @Test
    void listErrors() throws IOException {
        Files.writeString(root.resolve("file"), "x");
        assertCode(Code.NOT_FOUND, root, () -> ws.list("nope"));
        assertCode(Code.NOT_A_DIRECTORY, root, () -> ws.list("file"));
    }

    @Test
    void statReportsTypeSizeAndTime() throws IOException {
        Instant before = Instant.now().minus(Duration.ofSeconds(5));
        ws.write("f.txt", "abc");
        Stat stat = ws.stat("f.txt");
        assertEquals(EntryType.FILE, stat.type());
        assertEquals(3, stat.size());
        assertTrue(stat.modified().isAfter(before), stat.toString());
        ws.mkdir("d", false);
        assertEquals(EntryType.DIRECTORY, ws.stat("d").type());
        assertCode(Code.NOT_FOUND, root, () -> ws.stat("nope"));
        assertCode(Code.NOT_A_DIRECTORY, root, () -> ws.stat("f.txt/x"));
    }

    @Test
    void mkdir() throws IOException {
        ws.mkdir("a", false);
        assertTrue(Files.isDirectory(root.resolve("a")));
        assertCode(Code.EXISTS, root, () -> ws.mkdir("a", false));
        assertCode(Code.EXISTS, root, () -> ws.mkdir("/workspace", false));
        assertCode(Code.NOT_FOUND, root, () -> ws.mkdir("x/y", false));
        ws.mkdir("a/b/c/d", true);
        assertTrue(Files.isDirectory(root.resolve("a/b/c/d")));
        ws.mkdir("a/b/c/d", true); // existing directory: fine
        ws.mkdir("/workspace", true);
        ws.write("a/file", "x");
        assertCode(Code.NOT_A_DIRECTORY, root, () -> ws.mkdir("a/file/sub", true));
        assertCode(Code.EXISTS, root, () -> ws.mkdir("a/file", true));
        assertCode(Code.EXISTS, root, () -> ws.mkdir("a/file", false));
    }

    @Test
    void remove() throws IOException {
        ws.write("f", "x");
        ws.remove("f", false);
        assertFalse(Files.exists(root.resolve("f")));
        ws.mkdir("empty", false);
        ws.remove("empty", false);
        assertFalse(Files.exists(root.resolve("empty")));
        ws.mkdir("tree/a/b", true);
        ws.write("tree/a/b/f", "x");
        ws.write("tree/g", "y");
        assertCode(Code.NOT_EMPTY, root, () -> ws.remove("tree", false));
        ws.remove("tree", true);
        assertFalse(Files.exists(root.resolve("tree")));
        assertCode(Code.NOT_FOUND, root, () -> ws.remove("tree", true));
        assertCode(Code.INVALID_PATH, root, () -> ws.remove("/workspace", true));
        assertCode(Code.INVALID_PATH, root, () -> ws.remove("a/..", true));
        assertTrue(Files.isDirectory(root));
    }

    @Test
    void copyFile() throws IOException {
        ws.write("src.txt", "content");
        ws.copy("src.txt", "dst.txt", false);
        assertEquals("content", ws.read("dst.txt"));
        ws.write("src.txt", "changed");
        assertCode(Code.EXISTS, root, () -> ws.copy("src.txt", "dst.txt", false));
        assertEquals("content", ws.read("dst.txt"));
        ws.copy("src.txt", "dst.txt", true);
        assertEquals("changed", ws.read("dst.txt"));
        ws.mkdir("dir", false);
        assertCode(Code.IS_A_DIRECTORY, root, () -> ws.copy("src.txt", "dir", true));
        assertCode(Code.NOT_FOUND, root, () -> ws.copy("nope", "x", false));
        assertCode(Code.NOT_FOUND, root, () -> ws.copy("src.txt", "nodir/x", false));
        assertCode(Code.INVALID_PATH, root, () -> ws.copy("src.txt", "src.txt", true));
        assertCode(Code.INVALID_PATH, root, () -> ws.copy("/workspace", "x", false));
        assertCode(Code.INVALID_PATH, root, () -> ws.copy("src.txt", "/workspace", true));
    }

    @Test
    void copyTree() throws IOException {
        ws.mkdir("src/a/b", true);
        ws.write("src/top.txt", "top");
        ws.write("src/a/b/deep.txt", "deep");
        ws.mkdir("src/empty", false);
        ws.copy("src", "dst", false);
        assertEquals("top", ws.read("dst/top.txt"));
        assertEquals("deep", ws.read("dst/a/b/deep.txt"));
        assertEquals(EntryType.DIRECTORY, ws.stat("dst/empty").type());
        assertEquals("deep", ws.read("src/a/b/deep.txt"));
        assertCode(Code.EXISTS, root, () -> ws.copy("src", "dst", false));
        assertCode(Code.IS_A_DIRECTORY, root, () -> ws.copy("src", "dst", true));
        ws.write("file", "x");
        assertCode(Code.EXISTS, root, () -> ws.copy("src", "file", true));
        assertCode(Code.INVALID_PATH, root, () -> ws.copy("src", "src/a/inside", false));
        assertFalse(Files.exists(root.resolve("src/a/inside")));
    }

    @Test
    void move() throws IOException {
        ws.write("a.txt", "a");
        ws.move("a.txt", "b.txt", false);
        assertFalse(Files.exists(root.resolve("a.txt")));
        assertEquals("a", ws.read("b.txt"));
        ws.mkdir("dir/sub", true);
        ws.write("dir/sub/f", "f");
        ws.move("dir", "renamed", false);
        assertEquals("f", ws.read("renamed/sub/f"));
        ws.move("b.txt", "renamed/sub/b.txt", false);
        assertEquals("a", ws.read("renamed/sub/b.txt"));
        ws.write("c.txt", "c");
        assertCode(Code.EXISTS, root, () -> ws.move("c.txt", "renamed/sub/b.txt", false));
        ws.move("c.txt", "renamed/sub/b.txt", true);
        assertEquals("c", ws.read("renamed/sub/b.txt"));
        ws.mkdir("other", false);
        assertCode(Code.IS_A_DIRECTORY, root, () -> ws.move("renamed", "other", true));
        ws.write("plain", "p");
        assertCode(Code.EXISTS, root, () -> ws.move("renamed", "plain", true));
        assertCode(Code.INVALID_PATH, root, () -> ws.move("renamed", "renamed/sub/x", false));
        ws.move("renamed", "renamed/", false); // the same path: nothing to do
        assertCode(Code.NOT_FOUND, root, () -> ws.move("nope", "x", false));
        assertCode(Code.INVALID_PATH, root, () -> ws.move("/workspace", "x", false));
        assertCode(Code.INVALID_PATH, root, () -> ws.move("other", ".", true));
    }

    @Test
    void concurrentCallsFromSeveralThreads() throws Exception {
        int threads = 4;
        int rounds = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                done.add(
                        pool.submit(
                                () -> {
                                    for (int i = 0; i < rounds; i++) {
                                        // All threads race to create the same fresh directories.
                                        ws.mkdir("shared/r" + i + "/deep", true);
                                        ws.write("shared/r" + i + "/deep/t" + id, "v" + i);
                                        ws.write("shared/last", "t" + id);
                                    }
                                    return null;
                                }));
            }
            for (Future<?> f : done) {
                f.get(10, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        for (int i = 0; i < rounds; i++) {
            assertEquals(threads, ws.list("shared/r" + i + "/deep").size(), "lost files in r" + i);
        }
        assertTrue(ws.read("shared/last").matches("t[0-3]"));
    }

    @Test
    void messagesNameTheGuestPathAndNeverTheHostRoot() {
        WorkspaceException e = assertCode(Code.NOT_FOUND, root, () -> ws.read("a/../nope.txt"));
        assertEquals("read \"a/../nope.txt\": /workspace/nope.txt does not exist", e.getMessage());
        e = assertCode(Code.NOT_FOUND, root, () -> ws.read("d/x.txt"));
        assertEquals("read \"d/x.txt\": /workspace/d does not exist", e.getMessage());
    }

    @Test
    void closedWorkspaceRefusesCalls() {
        ws.close();
        assertThrows(EngineException.class, () -> ws.read("x"));
        ws.close(); // idempotent
    }

    @Test
    void buildRefusesARootThatIsNotADirectory() throws IOException {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertThrows(InvalidRequestException.class, () -> Workspace.builder(file).build());
        assertThrows(
                InvalidRequestException.class,
                () -> Workspace.builder(tmp.resolve("missing")).build());
    }

    @Test
    void readsAreChargedAndUtf8IsCountedInBytes() {
        ws.write("e.txt", "€");
        assertEquals(3, ws.bytesWritten());
        ws.read("e.txt");
        assertEquals(3, ws.bytesRead());
        assertArrayEquals("€".getBytes(UTF_8), ws.readBytes("e.txt"));
    }
}
