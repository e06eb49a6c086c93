package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Resolver.NOFOLLOW;
import static dev.sandjar.bridges.workspace.Resolver.lstatOrNull;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The workspace's entry and byte quotas ({@code maxWorkspaceEntries}, {@code maxWorkspaceBytes}):
 * what the whole tree under the root may hold, not what one run moves. Entries are files,
 * directories and links (the root is not one); bytes are the sizes of regular files.
 *
 * <p>How usage is measured: the tree is scanned once per workspace (one run), at the first
 * operation that can add to it, through directory handles that never follow a link; after that each
 * operation's change is tracked here, under this object's lock. A workspace persists across runs
 * and the host may change it meanwhile, so each run starts from a fresh scan; a scan per operation
 * would cost a walk of the whole tree on every write. The scan stops once it has seen more entries
 * than the quota: such a workspace accepts only changes that add nothing. Changes made by someone
 * else during the run (the host, another run over the same root) are seen by the next run's scan,
 * so runs at once over one root can together pass the quota by what each adds.
 *
 * <p>An operation reserves its growth before it writes anything ({@link Charge}): growth that would
 * pass a quota fails {@code QUOTA} at once, and a failed operation gives its reservation back.
 * Shrinking is always allowed, even above the quota, so a workspace over it can be cleaned up.
 */
final class Quota {
    private final Resolver resolver;
    private final long maxEntries;
    private final long maxBytes;
    private final Budget budget;
    private boolean scanned; // under this
    private boolean overfull; // under this: the scan stopped early
    private long entries; // under this
    private long bytes; // under this

    Quota(Resolver resolver, WorkspaceLimits limits, Budget budget) {
        this.resolver = resolver;
        this.maxEntries = limits.maxWorkspaceEntries();
        this.maxBytes = limits.maxWorkspaceBytes();
        this.budget = budget;
    }

    /** Starts one operation's reservation; scans the tree first if this run has not yet. */
    Charge charge(String op, String shown) throws IOException {
        synchronized (this) {
            scan(op, shown);
        }
        return new Charge(op, shown);
    }

    /**
     * Records what an operation removed. Before the first scan nothing is tracked: the scan will
     * see the tree as it is then.
     */
    synchronized void removed(long entryCount, long byteCount) {
        if (scanned) {
            entries = Math.max(0, entries - entryCount);
            bytes = Math.max(0, bytes - byteCount);
        }
    }

    private void scan(String op, String shown) throws IOException {
        if (scanned) {
            return;
        }
        Counter counter = new Counter();
        SecureDirectoryStream<Path> root = resolver.rootDir();
        count(op, shown, root, counter, 0);
        entries = counter.entries;
        bytes = counter.bytes;
        overfull = counter.stopped;
        scanned = true;
    }

    private static final class Counter {
        long entries;
        long bytes;
        boolean stopped;
    }

    private void count(
            String op, String shown, SecureDirectoryStream<Path> dir, Counter c, int depth)
            throws IOException {
        for (Path entry : dir) {
            if (c.stopped) {
                return;
            }
            budget.checkCancelled(op, shown);
            Path name = entry.getFileName();
            BasicFileAttributes attrs = lstatOrNull(dir, name);
            if (attrs == null) {
                continue; // removed while we counted
            }
            c.entries++;
            if (c.entries > maxEntries) {
                c.stopped = true;
                return;
            }
            if (attrs.isRegularFile()) {
                c.bytes += attrs.size();
            } else if (attrs.isDirectory() && depth + 1 < TreeOperations.MAX_TREE_DEPTH) {
                try (SecureDirectoryStream<Path> child = dir.newDirectoryStream(name, NOFOLLOW)) {
                    count(op, shown, child, c, depth + 1);
                } catch (IOException e) {
                    // Replaced or unreadable meanwhile: counted as an entry, its content unknown.
                }
            }
        }
    }

    private synchronized void reserve(String op, String shown, long entryDelta, long byteDelta) {
        if (entryDelta > 0 && (overfull || entries + entryDelta > maxEntries)) {
            throw over(
                    op, shown, "entries", entries + entryDelta, "maxWorkspaceEntries", maxEntries);
        }
        if (byteDelta > 0 && (overfull || bytes + byteDelta > maxBytes)) {
            throw over(op, shown, "bytes", bytes + byteDelta, "maxWorkspaceBytes", maxBytes);
        }
        entries = Math.max(0, entries + entryDelta);
        bytes = Math.max(0, bytes + byteDelta);
    }

    private WorkspaceException over(
            String op, String shown, String what, long wouldBe, String limit, long max) {
        String reason =
                overfull
                        ? "the workspace holds more than maxWorkspaceEntries ("
                                + maxEntries
                                + ") entries already; remove some first"
                        : "the workspace would hold "
                                + wouldBe
                                + " "
                                + what
                                + ", over "
                                + limit
                                + " ("
                                + max
                                + ")";
        return Errors.refuse(Code.QUOTA, op, shown, reason);
    }

    /**
     * One operation's reservations: growth is reserved before it is written; {@link #close()}
     * without {@link #commit()} gives it all back, for an operation that failed and left nothing.
     */
    final class Charge implements AutoCloseable {
        private final String op;
        private final String shown;
        private long entryDelta;
        private long byteDelta;
        private boolean committed;

        private Charge(String op, String shown) {
            this.op = op;
            this.shown = shown;
        }

        /** Reserves a change; a growth that would pass a quota fails {@code QUOTA}. */
        void add(long entryChange, long byteChange) {
            reserve(op, shown, entryChange, byteChange);
            entryDelta += entryChange;
            byteDelta += byteChange;
        }

        /** The operation's result is in place: its reservations stand. */
        void commit() {
            committed = true;
        }

        @Override
        public void close() {
            if (!committed && (entryDelta != 0 || byteDelta != 0)) {
                synchronized (Quota.this) {
                    entries = Math.max(0, entries - entryDelta);
                    bytes = Math.max(0, bytes - byteDelta);
                }
            }
        }
    }
}
