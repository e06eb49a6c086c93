package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Fixtures.assertCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The workspace's entry and byte quotas: what the tree may hold across runs. */
@Timeout(20)
class QuotaTest {
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

    /** A new workspace over the root: what a new run gets. */
    Workspace open(long maxEntries, long maxBytes) {
        Workspace ws =
                Workspace.builder(root)
                        .withLimits(
                                WorkspaceLimits.builder()
                                        .withMaxWorkspaceEntries(maxEntries)
                                        .withMaxWorkspaceBytes(maxBytes)
                                        .build())
                        .build();
        opened.add(ws);
        return ws;
    }

    private static String text(int n) {
        return "x".repeat(n);
    }

    private List<String> tree() throws IOException {
        try (var all = Files.walk(root)) {
            return all.map(p -> root.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void theEntryQuotaCountsFilesAndDirectoriesAndNamesItself() throws IOException {
        Workspace ws = open(3, 1 << 20);
        ws.write("a.txt", "a");
        ws.mkdir("d", false);
        ws.write("d/b.txt", "b");
        WorkspaceException e = assertCode(Code.QUOTA, root, () -> ws.write("c.txt", "c"));
        assertEquals(
                "write \"c.txt\": the workspace would hold 4 entries, over maxWorkspaceEntries (3)",
                e.getMessage());
        assertCode(Code.QUOTA, () -> ws.mkdir("e", false));
        assertCode(Code.QUOTA, () -> ws.writeBytes("d/c.bin", new byte[1]));
        ws.write("a.txt", "a rewrite adds no entry");
        ws.remove("d/b.txt", false);
        ws.write("c.txt", "room again after a remove");
        assertEquals(List.of("", "a.txt", "c.txt", "d"), tree());
    }

    @Test
    void theByteQuotaCountsGrowthAndARewriteThatShrinksPassesAtTheQuota() throws IOException {
        Workspace ws = open(100, 100);
        ws.write("a.txt", text(60));
        WorkspaceException e = assertCode(Code.QUOTA, () -> ws.write("b.txt", text(41)));
        assertEquals(
                "write \"b.txt\": the workspace would hold 101 bytes, over maxWorkspaceBytes (100)",
                e.getMessage());
        assertFalse(Files.exists(root.resolve("b.txt")), "a refused write left a file");
        ws.write("b.txt", text(40)); // exactly at the quota
        assertCode(Code.QUOTA, () -> ws.write("a.txt", text(61)));
        assertEquals(text(60), ws.read("a.txt"), "a refused rewrite left the old content");
        ws.write("a.txt", text(10)); // shrinks
        ws.write("b.txt", text(90)); // back at the quota
        assertEquals(100, Files.size(root.resolve("a.txt")) + Files.size(root.resolve("b.txt")));
    }

    @Test
    void aWorkspaceAlreadyOverItsQuotaMayShrinkButNotGrow() throws IOException {
        Files.writeString(root.resolve("big.txt"), text(200)); // the host put it there
        Workspace ws = open(100, 100);
        ws.write("big.txt", text(150));
        assertCode(Code.QUOTA, () -> ws.write("big.txt", text(151)));
        ws.write("empty.txt", ""); // a new entry of no bytes adds no bytes
        assertCode(Code.QUOTA, () -> ws.write("new.txt", "x"));
    }

    @Test
    void usagePersistsAcrossRunsAndHostChangesAreSeenByTheNextRun() throws IOException {
        Workspace first = open(2, 1 << 20);
        first.write("a.txt", "a");
        first.write("b.txt", "b");
        first.close();
        Workspace second = open(2, 1 << 20);
        assertCode(Code.QUOTA, () -> second.write("c.txt", "c"));
        Files.delete(root.resolve("a.txt")); // the host cleans up between runs
        Workspace third = open(2, 1 << 20);
        third.write("c.txt", "c");
    }

    @Test
    void aTreeCopyOverTheQuotaFailsWholeAndLeavesNothing() throws IOException {
        Files.createDirectories(root.resolve("src/sub"));
        for (String f : List.of("src/a", "src/b", "src/sub/c")) {
            Files.writeString(root.resolve(f), text(30));
        }
        // 5 entries and 90 bytes: a second copy passes the byte quota at its third file.
        Workspace bytes = open(100, 150);
        assertCode(Code.QUOTA, () -> bytes.copy("src", "dst", false));
        assertFalse(Files.exists(root.resolve("dst")), "a partial tree was placed");
        bytes.write("after.txt", text(60)); // the failed copy gave its reservation back
        Files.delete(root.resolve("after.txt"));

        Workspace entries = open(9, 1 << 20);
        assertCode(Code.QUOTA, () -> entries.copy("src", "dst", false));
        assertFalse(Files.exists(root.resolve("dst")));
        Workspace enough = open(10, 1 << 20);
        enough.copy("src", "dst", false);
        assertEquals(text(30), Files.readString(root.resolve("dst/sub/c"), StandardCharsets.UTF_8));
    }

    @Test
    void aFileCopyOverTheQuotaLeavesTheTargetAsItWas() throws IOException {
        Workspace ws = open(100, 100);
        ws.write("small.txt", text(10));
        ws.write("big.txt", text(70));
        assertCode(Code.QUOTA, () -> ws.copy("big.txt", "copy.txt", false));
        assertFalse(Files.exists(root.resolve("copy.txt")));
        assertCode(Code.QUOTA, () -> ws.copy("big.txt", "small.txt", true)); // 10 -> 70: +60
        assertEquals(text(10), ws.read("small.txt"));
        ws.copy("small.txt", "big.txt", true); // shrinks big.txt
        assertEquals(text(10), ws.read("big.txt"));
    }

    @Test
    void aRecursiveMkdirThatWouldPassTheQuotaMakesNothing() throws IOException {
        Workspace ws = open(3, 1 << 20);
        ws.write("a.txt", "a");
        assertCode(Code.QUOTA, () -> ws.mkdir("x/y/z", true));
        assertFalse(Files.exists(root.resolve("x")), "a parent was made before the refusal");
        ws.mkdir("x/y", true);
        ws.mkdir("x/y", true); // exists: adds nothing
        assertCode(Code.QUOTA, () -> ws.mkdir("x/y/z", true));
        ws.remove("x", true); // gives back both directories
        ws.mkdir("p/q", true);
    }

    @Test
    void aMoveOverAFileGivesItsEntryBack() throws IOException {
        Workspace ws = open(2, 1 << 20);
        ws.write("a.txt", "a");
        ws.write("b.txt", "b");
        ws.move("a.txt", "b.txt", true);
        ws.write("c.txt", "the replaced file's entry is free again");
        assertTrue(Files.exists(root.resolve("c.txt")));
    }
}
