package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Fixtures.assertCode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Size caps, run totals, cancellation, and that a failed write leaves nothing half-done. */
@Timeout(20)
class LimitsAndAtomicityTest {
    static final int MIB = 1 << 20;

    @TempDir Path tmp;
    Path root;
    final List<Workspace> opened = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        root = Files.createDirectory(tmp.resolve("root"));
    }

    @AfterEach
    void noLeaks() {
        opened.forEach(Workspace::close);
        assertEquals(List.of(), Fixtures.strays(root), "temporary files left behind");
        assertEquals(List.of(), Fixtures.openFilesUnder(tmp), "file descriptors leaked");
    }

    Workspace open(WorkspaceLimits limits, BooleanSupplier cancelled) {
        Workspace ws =
                Workspace.builder(root).withLimits(limits).withCancellation(cancelled).build();
        opened.add(ws);
        return ws;
    }

    Workspace open(WorkspaceLimits limits) {
        return open(limits, () -> false);
    }

    /**
     * Fires on the {@code n}th poll, and at that moment records how many bytes the temporary files
     * under the root hold: proof that the operation was cancelled midway, not before it began
     * writing.
     */
    final class CancelOnPoll implements BooleanSupplier {
        final int n;
        final AtomicInteger polls = new AtomicInteger();
        final AtomicLong tempBytesWhenFired = new AtomicLong(-1);

        CancelOnPoll(int n) {
            this.n = n;
        }

        @Override
        public boolean getAsBoolean() {
            if (polls.incrementAndGet() < n) {
                return false;
            }
            if (tempBytesWhenFired.get() < 0) {
                tempBytesWhenFired.set(
                        Fixtures.strays(root).stream().mapToLong(this::sizeOf).sum());
            }
            return true;
        }

        private long sizeOf(Path p) {
            try {
                return Files.isRegularFile(p) ? Files.size(p) : 0;
            } catch (IOException e) {
                return 0;
            }
        }
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * seed);
        }
        return b;
    }

    @Test
    void writeCancelledMidStreamKeepsTheOldFileAndLeavesNoTemp() throws IOException {
        Files.writeString(root.resolve("f.bin"), "old content");
        CancelOnPoll cancel = new CancelOnPoll(6);
        Workspace ws = open(WorkspaceLimits.defaults(), cancel);
        assertCode(Code.CANCELLED, root, () -> ws.writeBytes("f.bin", bytes(MIB, 7)));
        assertTrue(cancel.tempBytesWhenFired.get() > 0, "cancelled before anything was written");
        assertTrue(cancel.tempBytesWhenFired.get() < MIB, "cancelled after everything was written");
        assertEquals("old content", Files.readString(root.resolve("f.bin")));
    }

    @Test
    void newFileCancelledMidStreamDoesNotAppear() {
        CancelOnPoll cancel = new CancelOnPoll(6);
        Workspace ws = open(WorkspaceLimits.defaults(), cancel);
        assertCode(Code.CANCELLED, root, () -> ws.write("new.txt", "x".repeat(MIB)));
        assertTrue(cancel.tempBytesWhenFired.get() > 0);
        assertFalse(Files.exists(root.resolve("new.txt")));
    }

    @Test
    void copyCancelledMidStreamLeavesNothing() throws IOException {
        Files.write(root.resolve("big.bin"), bytes(MIB, 3));
        CancelOnPoll cancel = new CancelOnPoll(6);
        Workspace ws = open(WorkspaceLimits.defaults(), cancel);
        assertCode(Code.CANCELLED, root, () -> ws.copy("big.bin", "copy.bin", false));
        assertTrue(cancel.tempBytesWhenFired.get() > 0);
        assertFalse(Files.exists(root.resolve("copy.bin")));
    }

    @Test
    void treeCopyCancelledMidwayLeavesNothing() throws IOException {
        Files.createDirectories(root.resolve("src/a/b"));
        for (int i = 0; i < 20; i++) {
            Files.writeString(root.resolve("src/a/b/f" + i), "x");
        }
        CancelOnPoll cancel = new CancelOnPoll(12);
        Workspace ws = open(WorkspaceLimits.defaults(), cancel);
        assertCode(Code.CANCELLED, root, () -> ws.copy("src", "dst", false));
        assertFalse(Files.exists(root.resolve("dst")));
        try (Stream<Path> files = Files.list(root.resolve("src/a/b"))) {
            assertEquals(20, files.count());
        }
    }

    @Test
    void interruptedThreadIsCancelledAndLeavesNothing() {
        Workspace ws = open(WorkspaceLimits.defaults());
        Thread.currentThread().interrupt();
        try {
            assertCode(Code.CANCELLED, root, () -> ws.writeBytes("f.bin", bytes(MIB, 5)));
        } finally {
            Thread.interrupted();
        }
        assertFalse(Files.exists(root.resolve("f.bin")));
    }

    @Test
    void everyOperationChecksCancellationFirst() throws IOException {
        Files.writeString(root.resolve("f"), "x");
        Workspace ws = open(WorkspaceLimits.defaults(), () -> true);
        assertCode(Code.CANCELLED, root, () -> ws.read("f"));
        assertCode(Code.CANCELLED, root, () -> ws.readBytes("f"));
        assertCode(Code.CANCELLED, root, () -> ws.write("g", "x"));
        assertCode(Code.CANCELLED, root, () -> ws.writeBytes("g", new byte[1]));
        assertCode(Code.CANCELLED, root, () -> ws.list("."));
        assertCode(Code.CANCELLED, root, () -> ws.stat("f"));
        assertCode(Code.CANCELLED, root, () -> ws.copy("f", "g", false));
        assertCode(Code.CANCELLED, root, () -> ws.move("f", "g", false));
        assertCode(Code.CANCELLED, root, () -> ws.mkdir("d", true));
        assertCode(Code.CANCELLED, root, () -> ws.remove("f", false));
        assertTrue(Files.exists(root.resolve("f")));
        assertFalse(Files.exists(root.resolve("g")));
    }

    @Test
    void writeOverTheCapIsRefusedBeforeAnythingIsWritten() throws IOException {
        Files.writeString(root.resolve("f"), "old");
        Workspace ws = open(WorkspaceLimits.builder().withMaxWriteBytes(10).build());
        WorkspaceException e =
                assertCode(Code.TOO_LARGE, root, () -> ws.writeBytes("f", new byte[11]));
        assertTrue(e.getMessage().contains("11 bytes, over maxWriteBytes (10)"), e.getMessage());
        assertCode(Code.TOO_LARGE, root, () -> ws.write("f", "x".repeat(11)));
        assertCode(Code.TOO_LARGE, root, () -> ws.write("f", "€".repeat(4))); // 12 bytes
        ws.write("f", "€".repeat(3)); // 9 bytes
        assertEquals(9, ws.bytesWritten());
        assertEquals("€€€", Files.readString(root.resolve("f")));
    }

    @Test
    void zeroWriteCapAllowsOnlyEmptyWrites() {
        Workspace ws = open(WorkspaceLimits.builder().withMaxWriteBytes(0).build());
        ws.write("empty", "");
        assertCode(Code.TOO_LARGE, root, () -> ws.write("one", "x"));
    }

    @Test
    void readOverTheCapIsRefusedWithoutReading() throws IOException {
        try (RandomAccessFile sparse = new RandomAccessFile(root.resolve("huge").toFile(), "rw")) {
            sparse.setLength(1L << 30); // 1 GiB, sparse: costs nothing on disk
        }
        Workspace ws = open(WorkspaceLimits.defaults());
        WorkspaceException e = assertCode(Code.TOO_LARGE, root, () -> ws.readBytes("huge"));
        assertEquals(
                "readBytes \"huge\": /workspace/huge is 1073741824 bytes, over maxReadBytes"
                        + " (16777216)",
                e.getMessage());
        assertEquals(0, ws.bytesRead());
    }

    /** A channel that claims {@code claimed} bytes but delivers {@code actual}. */
    static final class LyingChannel implements SeekableByteChannel {
        final long claimed;
        final long actual;
        long delivered;

        LyingChannel(long claimed, long actual) {
            this.claimed = claimed;
            this.actual = actual;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (delivered >= actual) {
                return -1;
            }
            int n = (int) Math.min(dst.remaining(), actual - delivered);
            dst.position(dst.position() + n);
            delivered += n;
            return n;
        }

        @Override
        public long size() {
            return claimed;
        }

        @Override
        public int write(ByteBuffer src) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long position() {
            return delivered;
        }

        @Override
        public SeekableByteChannel position(long newPosition) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SeekableByteChannel truncate(long size) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }

    @Test
    void aFileThatGrowsIsNeverReadPastTheCap() throws IOException {
        Budget budget = new Budget(WorkspaceLimits.defaults(), () -> false);
        LyingChannel endless = new LyingChannel(10, Long.MAX_VALUE);
        assertCode(
                Code.TOO_LARGE,
                root,
                () ->
                        BoundedReader.readBounded(
                                budget, "read", "\"f\"", "/workspace/f", endless, 1000));
        assertEquals(1001, endless.delivered, "read more than the cap plus one probe byte");
        // Growth under the cap is read whole; shrinking is fine too.
        assertEquals(
                700,
                BoundedReader.readBounded(
                                budget, "read", "\"f\"", "f", new LyingChannel(0, 700), 1000)
                        .length);
        assertEquals(
                5,
                BoundedReader.readBounded(
                                budget, "read", "\"f\"", "f", new LyingChannel(100, 5), 1000)
                        .length);
    }

    @Test
    void runTotalForReads() throws IOException {
        Files.write(root.resolve("f"), new byte[60]);
        Workspace ws = open(WorkspaceLimits.builder().withMaxTotalReadBytes(100).build());
        ws.readBytes("f");
        WorkspaceException e = assertCode(Code.LIMIT, root, () -> ws.readBytes("f"));
        assertTrue(e.getMessage().contains("over maxTotalReadBytes (100)"), e.getMessage());
        assertEquals(60, ws.bytesRead());
    }

    @Test
    void runTotalForWritesCountsCopies() throws IOException {
        Workspace ws = open(WorkspaceLimits.builder().withMaxTotalWriteBytes(100).build());
        ws.writeBytes("f", new byte[60]);
        WorkspaceException e = assertCode(Code.LIMIT, root, () -> ws.copy("f", "g", false));
        assertTrue(e.getMessage().contains("over maxTotalWriteBytes (100)"), e.getMessage());
        assertCode(Code.LIMIT, root, () -> ws.writeBytes("h", new byte[41]));
        ws.writeBytes("h", new byte[40]);
        assertEquals(100, ws.bytesWritten());
        assertFalse(Files.exists(root.resolve("g")));
    }

    @Test
    void listCap() throws IOException {
        for (int i = 0; i < 5; i++) {
            Files.writeString(root.resolve("f" + i), "x");
        }
        assertEquals(
                5, open(WorkspaceLimits.builder().withMaxListEntries(5).build()).list(".").size());
        Workspace ws = open(WorkspaceLimits.builder().withMaxListEntries(4).build());
        WorkspaceException e = assertCode(Code.LIMIT, root, () -> ws.list("."));
        assertTrue(e.getMessage().contains("maxListEntries (4)"), e.getMessage());
    }

    @Test
    void copyCap() throws IOException {
        Files.write(root.resolve("f"), new byte[100]);
        Files.createDirectories(root.resolve("tree/sub"));
        Files.write(root.resolve("tree/a"), new byte[40]);
        Files.write(root.resolve("tree/sub/b"), new byte[40]);
        Workspace ws = open(WorkspaceLimits.builder().withMaxCopyBytes(50).build());
        WorkspaceException e = assertCode(Code.TOO_LARGE, root, () -> ws.copy("f", "g", false));
        assertTrue(e.getMessage().contains("over maxCopyBytes (50)"), e.getMessage());
        assertCode(Code.TOO_LARGE, root, () -> ws.copy("tree", "copy", false));
        assertFalse(Files.exists(root.resolve("g")));
        assertFalse(Files.exists(root.resolve("copy")));
        ws.copy("tree/a", "a-copy", false);
        assertArrayEquals(new byte[40], ws.readBytes("a-copy"));
    }

    @Test
    void treesDeeperThanTheDepthCapAreRefused() throws IOException {
        Path deep = root.resolve("a" + "/a".repeat(TreeOperations.MAX_TREE_DEPTH));
        Files.createDirectories(deep);
        Workspace ws = open(WorkspaceLimits.defaults());
        assertCode(Code.LIMIT, root, () -> ws.copy("a", "b", false));
        assertFalse(Files.exists(root.resolve("b")));
        assertCode(Code.LIMIT, root, () -> ws.remove("a", true));
        try (Stream<Path> left = Files.walk(root.resolve("a"))) {
            assertTrue(left.count() > 1);
        }
    }
}
