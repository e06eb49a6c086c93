package dev.sandjar.bridges.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check-then-use race the reference sandbox accepts: a thread swaps {@code root/dir} for a
 * symlink to {@code outside} (which holds a file of the same name with a secret marker, and a file
 * only it has) and back, as fast as it can, while the main thread operates on paths through {@code
 * dir}. No operation may ever see or change the outside directory. Each test runs for a bounded
 * time and asserts that both outcomes (success and refusal) really occurred, so the race
 * demonstrably ran.
 */
@Timeout(30)
class SymlinkRaceTest {
    static final long RUN_NANOS = 1_500_000_000L;
    static final int MAX_ROUNDS = 50_000;
    static final int MIN_EACH = 50;
    static final String SECRET = "SECRET-OUTSIDE-THE-ROOT";

    @TempDir Path tmp;
    Path root;
    Path outside;
    Workspace ws;
    Swapper swapper;

    @BeforeEach
    void setUp() throws IOException {
        root = Files.createDirectory(tmp.resolve("root"));
        outside = Files.createDirectory(tmp.resolve("outside"));
        Files.writeString(outside.resolve("file"), SECRET);
        Files.writeString(outside.resolve("outside-only.txt"), SECRET);
        Files.createDirectory(root.resolve("dir"));
        Files.writeString(root.resolve("dir/file"), "inside");
        ws = Workspace.builder(root).build();
        swapper = new Swapper(root.resolve("dir"), tmp.resolve("aside"), outside);
    }

    @AfterEach
    void outsideIsUntouched() throws Exception {
        swapper.stop();
        ws.close();
        assertNull(swapper.failure.get(), "the swapper itself failed");
        assertEquals(SECRET, Files.readString(outside.resolve("file")));
        assertEquals(SECRET, Files.readString(outside.resolve("outside-only.txt")));
        try (Stream<Path> entries = Files.list(outside)) {
            assertEquals(2, entries.count(), "something was created outside the root");
        }
        assertEquals(List.of(), Fixtures.openFilesUnder(tmp), "file descriptors leaked");
    }

    /** Swaps {@code dir} for a link to {@code target} and back until closed. */
    static final class Swapper {
        final AtomicLong swaps = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final Thread thread;
        private volatile boolean stop;

        Swapper(Path dir, Path aside, Path target) {
            thread =
                    new Thread(
                            () -> {
                                try {
                                    while (!stop) {
                                        Files.move(dir, aside);
                                        Files.createSymbolicLink(dir, target);
                                        Thread.onSpinWait();
                                        Files.delete(dir);
                                        Files.move(aside, dir);
                                        swaps.incrementAndGet();
                                    }
                                } catch (IOException | RuntimeException e) {
                                    failure.set(e);
                                }
                            },
                            "symlink-swapper");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            stop = true;
            thread.join(5_000);
            assertFalse(thread.isAlive(), "swapper did not stop");
        }
    }

    /** Tallies outcomes; {@link #escaped} counts any result that came from outside the root. */
    static final class Tally {
        long ok;
        long escaped;
        final Map<Code, Long> refused = new EnumMap<>(Code.class);

        void refused(WorkspaceException e) {
            refused.merge(e.code(), 1L, Long::sum);
        }

        long refusedTotal() {
            return refused.values().stream().mapToLong(Long::longValue).sum();
        }

        @Override
        public String toString() {
            return "ok=" + ok + " escaped=" + escaped + " refused=" + refused;
        }
    }

    interface Round {
        void run(int round, Tally tally);
    }

    /** Runs rounds while the swapper runs, for a bounded time and count; reports and checks. */
    Tally race(String what, Round round) {
        Tally tally = new Tally();
        swapper.start();
        long start = System.nanoTime();
        int rounds = 0;
        while (rounds < MAX_ROUNDS
                && (System.nanoTime() - start < RUN_NANOS
                        || tally.ok < MIN_EACH
                        || tally.refusedTotal() < MIN_EACH)
                && System.nanoTime() - start < 3 * RUN_NANOS) {
            try {
                round.run(rounds, tally);
            } catch (WorkspaceException e) {
                tally.refused(e);
            }
            rounds++;
        }
        System.out.printf(
                "%s race: %d rounds in %d ms, %d swaps, %s%n",
                what, rounds, (System.nanoTime() - start) / 1_000_000, swapper.swaps.get(), tally);
        assertEquals(0, tally.escaped, "an operation reached outside the root: " + tally);
        assertTrue(swapper.swaps.get() > 0, "the swapper never swapped");
        assertTrue(tally.ok > 0, "no operation succeeded, so the race did not run: " + tally);
        assertTrue(tally.refusedTotal() > 0, "nothing was refused, so the race did not run");
        return tally;
    }

    @Test
    void readsNeverReturnOutsideContent() {
        race(
                "read",
                (i, t) -> {
                    String text = ws.read("dir/file");
                    if (text.equals("inside")) {
                        t.ok++;
                    } else {
                        t.escaped++;
                    }
                });
    }

    @Test
    void listStatAndCopyNeverSeeOutside() {
        race(
                "list/stat/copy",
                (i, t) -> {
                    switch (i % 3) {
                        case 0:
                            List<Entry> entries = ws.list("dir");
                            if (entries.stream().anyMatch(e -> !e.name().startsWith("file"))) {
                                t.escaped++;
                            }
                            break;
                        case 1:
                            try {
                                ws.stat("dir/outside-only.txt");
                                t.escaped++; // only the outside directory has this file
                            } catch (WorkspaceException e) {
                                if (e.code() != Code.NOT_FOUND) {
                                    throw e;
                                }
                            }
                            break;
                        default:
                            ws.copy("dir/file", "copied", true);
                            if (!ws.read("copied").equals("inside")) {
                                t.escaped++;
                            }
                    }
                    t.ok++;
                });
    }

    @Test
    void writesAndMkdirsNeverLandOutside() {
        race(
                "write/mkdir",
                (i, t) -> {
                    if (i % 2 == 0) {
                        ws.write("dir/file", "inside");
                    } else {
                        // Not recursive: that would legitimately re-create a missing dir.
                        try {
                            ws.mkdir("dir/sub", false);
                        } catch (WorkspaceException e) {
                            if (e.code() != Code.EXISTS) { // left by a refused remove
                                throw e;
                            }
                        }
                        ws.remove("dir/sub", false);
                    }
                    t.ok++;
                });
        // @AfterEach asserts outside/ still holds exactly its two files, unchanged.
    }
}
