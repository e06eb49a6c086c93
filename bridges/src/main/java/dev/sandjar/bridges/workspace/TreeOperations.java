package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Errors.refuse;
import static dev.sandjar.bridges.workspace.Location.closeQuietly;
import static dev.sandjar.bridges.workspace.Resolver.NOFOLLOW;
import static dev.sandjar.bridges.workspace.Resolver.lstatOrNull;
import static dev.sandjar.bridges.workspace.Resolver.typeOf;

import dev.sandjar.bridges.workspace.Location.Staging;
import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Listing, copying, moving, making and removing directory entries, every call made relative to a
 * handle from {@link Resolver}.
 *
 * <p>A directory is never made by path where a link could redirect it: {@link
 * SecureDirectoryStream} has no {@code mkdirat}, so a new directory is made in a staging directory
 * ({@code .sandjar-*}) directly under a trusted path, checked through the staging handle, and
 * renamed into place through handles. A directory copy is built whole in such a staging directory
 * and renamed in, so it appears whole or not at all; under a mount point inside the root both fail
 * with {@code IO}, because a rename cannot cross filesystems. A recursive remove is not atomic:
 * cancelled midway, part of the tree is gone. Trees nested deeper than {@value #MAX_TREE_DEPTH} are
 * refused ({@code LIMIT}).
 *
 * <p>Operations that check a name and then create or rename it (mkdir, move, the placing of a
 * copied tree) hold one lock per workspace, so one cannot silently replace a directory another just
 * created.
 */
final class TreeOperations {
    /** Recursive remove and copy refuse trees nested deeper than this ({@code LIMIT}). */
    static final int MAX_TREE_DEPTH = 256;

    private final Resolver resolver;
    private final AtomicWriter writer;
    private final WorkspaceLimits limits;
    private final Budget budget;
    private final Quota quota;
    private final Object namespaceLock = new Object();

    TreeOperations(
            Resolver resolver,
            AtomicWriter writer,
            WorkspaceLimits limits,
            Budget budget,
            Quota quota) {
        this.resolver = resolver;
        this.writer = writer;
        this.limits = limits;
        this.budget = budget;
        this.quota = quota;
    }

    List<Entry> list(String op, String path) throws IOException {
        try (Location loc = resolver.locate(op, path);
                SecureDirectoryStream<Path> dir =
                        resolver.openDir(op, loc.shown, loc.dir, loc.name, loc.subject)) {
            int max = limits.maxListEntries();
            List<Entry> entries = new ArrayList<>();
            for (Path entry : dir) {
                budget.checkCancelled(op, loc.shown);
                Path name = entry.getFileName();
                BasicFileAttributes attrs = lstatOrNull(dir, name);
                if (attrs == null) {
                    continue; // removed while we listed
                }
                if (entries.size() == max) {
                    throw refuse(
                            Code.LIMIT,
                            op,
                            loc.shown,
                            loc.subject
                                    + " has more than "
                                    + max
                                    + " entries, over maxListEntries ("
                                    + max
                                    + ")");
                }
                entries.add(new Entry(name.toString(), typeOf(attrs), attrs.size()));
            }
            entries.sort(Comparator.comparing(Entry::name));
            return List.copyOf(entries);
        }
    }

    void copy(String op, String from, String to, boolean overwrite) throws IOException {
        try (Location src = resolver.locate(op, from);
                Location dst = resolver.locate(op, to)) {
            if (src.isRoot()) {
                throw refuse(Code.INVALID_PATH, op, src.shown, "cannot copy the workspace root");
            }
            if (dst.isRoot()) {
                throw refuse(Code.INVALID_PATH, op, dst.shown, "cannot replace the workspace root");
            }
            if (dst.key.startsWith(src.key)) {
                throw refuse(Code.INVALID_PATH, op, dst.shown, "cannot copy onto or into itself");
            }
            BasicFileAttributes source = resolver.existing(op, src);
            if (source.isSymbolicLink()) {
                throw refuse(Code.SYMLINK, op, src.shown, src.subject + " is a symbolic link");
            }
            if (!source.isRegularFile() && !source.isDirectory()) {
                throw refuse(Code.NOT_A_FILE, op, src.shown, src.subject + " is a special file");
            }
            checkDestination(op, dst, source.isDirectory(), overwrite, false);
            CopyCounter counter = new CopyCounter(op, src.shown, limits.maxCopyBytes());
            try (Quota.Charge charge = quota.charge(op, dst.shown)) {
                if (source.isRegularFile()) {
                    counter.ensureRoom(source.size());
                    budget.ensureWriteRoom(op, src.shown, source.size());
                    BasicFileAttributes old = lstatOrNull(dst.dir, dst.name);
                    long oldSize = old != null && old.isRegularFile() ? old.size() : 0;
                    charge.add(old == null ? 1 : 0, source.size() - oldSize);
                    Prepaid paid = new Prepaid(charge, source.size());
                    Set<PosixFilePermission> perms = AtomicWriter.permissionsOf(src.dir, src.name);
                    try (SeekableByteChannel in =
                            resolver.openFile(op, src, StandardOpenOption.READ)) {
                        writer.replace(
                                op,
                                dst,
                                perms,
                                out -> transfer(op, src.shown, in, out, counter, paid));
                    }
                } else {
                    copyTree(op, src, dst, counter, charge);
                }
                charge.commit();
            }
        }
    }

    void move(String op, String from, String to, boolean overwrite) throws IOException {
        try (Location src = resolver.locate(op, from);
                Location dst = resolver.locate(op, to)) {
            if (src.isRoot()) {
                throw refuse(Code.INVALID_PATH, op, src.shown, "cannot move the workspace root");
            }
            if (dst.isRoot()) {
                throw refuse(Code.INVALID_PATH, op, dst.shown, "cannot replace the workspace root");
            }
            BasicFileAttributes source = resolver.existing(op, src);
            if (dst.key.equals(src.key)) {
                return;
            }
            if (source.isDirectory() && dst.key.startsWith(src.key)) {
                throw refuse(
                        Code.INVALID_PATH, op, dst.shown, "cannot move a directory into itself");
            }
            synchronized (namespaceLock) {
                checkDestination(op, dst, source.isDirectory(), overwrite, true);
                BasicFileAttributes replaced = lstatOrNull(dst.dir, dst.name);
                src.dir.move(src.name, dst.dir, dst.name);
                if (replaced != null) {
                    quota.removed(1, replaced.isRegularFile() ? replaced.size() : 0);
                }
            }
        }
    }

    void mkdir(String op, String path, boolean recursive) throws IOException {
        if (recursive && resolver.access() == FilesystemAccess.CONTAINED) {
            mkdirs(op, path);
            return;
        }
        if (recursive) {
            mkdirsOnHost(op, path);
            return;
        }
        try (Location loc = resolver.locate(op, path)) {
            if (loc.isRoot()) {
                throw refuse(Code.EXISTS, op, loc.shown, "the workspace root exists");
            }
            try (Quota.Charge charge = quota.charge(op, loc.shown)) {
                charge.add(1, 0);
                createDirectory(op, loc.shown, loc.dir, loc.name, loc.subject, loc.staging, false);
                charge.commit();
            }
        }
    }

    void remove(String op, String path, boolean recursive) throws IOException {
        try (Location loc = resolver.locate(op, path)) {
            if (loc.isRoot()) {
                throw refuse(Code.INVALID_PATH, op, loc.shown, "cannot remove the workspace root");
            }
            BasicFileAttributes attrs = resolver.existing(op, loc);
            if (!attrs.isDirectory()) {
                loc.dir.deleteFile(loc.name);
                quota.removed(1, attrs.isRegularFile() ? attrs.size() : 0);
            } else if (recursive) {
                Removed removed = new Removed();
                try {
                    removeTree(op, loc.shown, loc.dir, loc.name, loc.subject, 0, true, removed);
                } finally {
                    quota.removed(removed.entries, removed.bytes); // a part, if it failed midway
                }
            } else {
                try {
                    loc.dir.deleteDirectory(loc.name);
                } catch (DirectoryNotEmptyException e) {
                    throw refuse(Code.NOT_EMPTY, op, loc.shown, loc.subject + " is not empty");
                }
                quota.removed(1, 0);
            }
        }
    }

    /**
     * Checks what is at {@code dst} against {@code overwrite}. A move may replace a link or special
     * file (a rename never follows it); a copy refuses them as a write does.
     */
    private void checkDestination(
            String op, Location dst, boolean sourceIsDir, boolean overwrite, boolean isMove)
            throws IOException {
        BasicFileAttributes there = lstatOrNull(dst.dir, dst.name);
        if (there == null) {
            return;
        }
        if (!overwrite) {
            throw refuse(Code.EXISTS, op, dst.shown, dst.subject + " already exists");
        }
        if (there.isDirectory()) {
            throw refuse(
                    Code.IS_A_DIRECTORY,
                    op,
                    dst.shown,
                    dst.subject + " is a directory; overwrite never replaces a directory");
        }
        if (sourceIsDir) {
            throw refuse(
                    Code.EXISTS,
                    op,
                    dst.shown,
                    dst.subject + " already exists; a directory cannot replace it");
        }
        if (!isMove) {
            resolver.requireFile(op, dst, there);
        }
    }

    /**
     * Makes directory {@code name} in {@code parent}: staged by path directly under {@code staging}
     * (nothing to follow there), checked through the staging handle, then renamed into {@code
     * parent} through handles. Serialized, so the rename cannot replace an empty directory another
     * call just made.
     */
    private boolean createDirectory(
            String op,
            String shown,
            SecureDirectoryStream<Path> parent,
            Path name,
            String subject,
            Staging staging,
            boolean existingIsFine)
            throws IOException {
        synchronized (namespaceLock) {
            BasicFileAttributes there = lstatOrNull(parent, name);
            if (there != null) {
                if (existingIsFine && there.isDirectory()) {
                    return false;
                }
                throw refuse(Code.EXISTS, op, shown, subject + " already exists");
            }
            Path staged = stageDirectory(op, shown, staging);
            try {
                staging.dir().move(staged, parent, name);
            } catch (IOException e) {
                removeQuietly(staging.dir(), staged);
                throw e;
            }
            return true;
        }
    }

    private Path stageDirectory(String op, String shown, Staging staging) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Path staged = AtomicWriter.tempName(resolver.fileSystem(), "");
            try {
                Files.createDirectory(staging.hostPath().resolve(staged.toString()));
            } catch (FileAlreadyExistsException e) {
                if (attempt == 3) {
                    throw e;
                }
                continue;
            }
            BasicFileAttributes attrs = lstatOrNull(staging.dir(), staged);
            if (attrs == null || !attrs.isDirectory()) {
                // The root's path no longer leads to the root handle: refuse to go on.
                throw refuse(Code.IO, op, shown, "the workspace root was moved or replaced");
            }
            return staged;
        }
    }

    private void mkdirs(String op, String raw) throws IOException {
        GuestPath path = GuestPath.parse(op, raw);
        String shown = GuestPath.quote(raw);
        List<String> names = path.names();
        SecureDirectoryStream<Path> rootDir = resolver.rootDir();
        SecureDirectoryStream<Path> dir = rootDir;
        // Every missing directory is reserved at the first one missing, so a path that would pass
        // the quota makes none of them; one that another call made meanwhile is given back.
        Quota.Charge charge = null;
        long unused = 0;
        try {
            for (int i = 0; i < names.size(); i++) {
                budget.checkCancelled(op, shown);
                Path name = resolver.name(op, raw, names.get(i));
                String subject = path.prefix(i + 1);
                boolean last = i == names.size() - 1;
                BasicFileAttributes there = lstatOrNull(dir, name);
                if (there == null) {
                    if (charge == null) {
                        charge = quota.charge(op, shown);
                        charge.add(names.size() - i, 0);
                        unused = names.size() - i;
                    }
                    if (createDirectory(
                            op, shown, dir, name, subject, resolver.rootStaging(), true)) {
                        unused--;
                    }
                } else if (there.isSymbolicLink()) {
                    throw refuse(Code.SYMLINK, op, shown, resolver.linkReason(subject));
                } else if (!there.isDirectory()) {
                    throw refuse(
                            last ? Code.EXISTS : Code.NOT_A_DIRECTORY,
                            op,
                            shown,
                            subject + " exists and is not a directory");
                }
                if (!last) {
                    SecureDirectoryStream<Path> next =
                            resolver.openDir(op, shown, dir, name, subject);
                    if (dir != rootDir) {
                        dir.close();
                    }
                    dir = next;
                }
            }
        } finally {
            if (dir != rootDir) {
                closeQuietly(dir);
            }
            if (charge != null) {
                // What was made stays made, even when a later step failed.
                charge.add(-unused, 0);
                charge.commit();
                charge.close();
            }
        }
    }

    private void mkdirsOnHost(String op, String raw) throws IOException {
        GuestPath.checkCommon(op, raw);
        try (Quota.Charge charge = quota.charge(op, GuestPath.quote(raw))) {
            Path target = resolver.rootPath().resolve(raw).normalize();
            long missing = 0;
            for (Path p = target; p != null && !Files.exists(p, NOFOLLOW); p = p.getParent()) {
                missing++;
            }
            charge.add(missing, 0);
            Files.createDirectories(target);
            charge.commit();
        } catch (InvalidPathException e) {
            throw refuse(Code.INVALID_PATH, op, GuestPath.quote(raw), "not a valid host path");
        } catch (FileAlreadyExistsException e) {
            throw refuse(Code.EXISTS, op, GuestPath.quote(raw), "exists and is not a directory");
        }
    }

    private void removeTree(
            String op,
            String shown,
            SecureDirectoryStream<Path> parent,
            Path name,
            String subject,
            int depth,
            boolean cancellable,
            Removed removed)
            throws IOException {
        if (depth >= MAX_TREE_DEPTH) {
            throw refuse(Code.LIMIT, op, shown, "tree is nested deeper than " + MAX_TREE_DEPTH);
        }
        try (SecureDirectoryStream<Path> dir = resolver.openDir(op, shown, parent, name, subject)) {
            for (Path entry : dir) {
                if (cancellable) {
                    budget.checkCancelled(op, shown);
                }
                Path child = entry.getFileName();
                BasicFileAttributes attrs = lstatOrNull(dir, child);
                if (attrs == null) {
                    continue;
                }
                if (attrs.isDirectory()) {
                    removeTree(
                            op,
                            shown,
                            dir,
                            child,
                            subject + "/" + child,
                            depth + 1,
                            cancellable,
                            removed);
                } else {
                    try {
                        dir.deleteFile(child);
                        removed.add(attrs.isRegularFile() ? attrs.size() : 0);
                    } catch (NoSuchFileException e) {
                        // removed by someone else meanwhile
                    }
                }
            }
        }
        try {
            parent.deleteDirectory(name);
            removed.add(0);
        } catch (DirectoryNotEmptyException e) {
            throw refuse(Code.NOT_EMPTY, op, shown, subject + " gained entries while removed");
        }
    }

    /** Entries and bytes a recursive remove took away, for the quota. */
    private static final class Removed {
        long entries;
        long bytes;

        void add(long size) {
            entries++;
            bytes += size;
        }
    }

    /** Best-effort cleanup of a staged tree, even after cancellation; never follows a link. */
    private void removeQuietly(SecureDirectoryStream<Path> parent, Path name) {
        try {
            removeTree("cleanup", "", parent, name, name.toString(), 0, false, new Removed());
        } catch (IOException | RuntimeException e) {
            // Best effort: the failure that brought us here is the one to report.
        }
    }

    /** Counts the bytes one copy produces against {@code maxCopyBytes}. */
    private static final class CopyCounter {
        private final String op;
        private final String shown;
        private final long max;
        private long produced;

        CopyCounter(String op, String shown, long max) {
            this.op = op;
            this.shown = shown;
            this.max = max;
        }

        void ensureRoom(long n) {
            if (produced + n > max) {
                throw refuse(
                        Code.TOO_LARGE,
                        op,
                        shown,
                        "copy would produce "
                                + (produced + n)
                                + " bytes, over maxCopyBytes ("
                                + max
                                + ")");
            }
        }

        void add(long n) {
            ensureRoom(n);
            produced += n;
        }
    }

    private void transfer(
            String op,
            String shown,
            SeekableByteChannel in,
            SeekableByteChannel out,
            CopyCounter counter,
            Prepaid paid)
            throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(Budget.CHUNK);
        while (true) {
            budget.checkCancelled(op, shown);
            buf.clear();
            int r = in.read(buf);
            if (r < 0) {
                return;
            }
            counter.add(r);
            paid.use(r);
            budget.chargeWrite(op, shown, r);
            buf.flip();
            AtomicWriter.writeFully(out, buf);
        }
    }

    /**
     * The bytes a copy reserved from the quota before it began: a source that grows while it is
     * copied charges the rest as it goes.
     */
    private static final class Prepaid {
        private final Quota.Charge charge;
        private long left;

        Prepaid(Quota.Charge charge, long left) {
            this.charge = charge;
            this.left = left;
        }

        void use(long n) {
            long fromPrepaid = Math.min(n, left);
            left -= fromPrepaid;
            if (n > fromPrepaid) {
                charge.add(0, n - fromPrepaid);
            }
        }
    }

    /** Builds the copy in a staging directory, then renames it into place in one step. */
    private void copyTree(
            String op, Location src, Location dst, CopyCounter counter, Quota.Charge charge)
            throws IOException {
        Staging staging = dst.staging;
        charge.add(1, 0); // the copied directory itself
        Path staged = stageDirectory(op, src.shown, staging);
        boolean placed = false;
        try {
            try (SecureDirectoryStream<Path> from =
                            resolver.openDir(op, src.shown, src.dir, src.name, src.subject);
                    SecureDirectoryStream<Path> into =
                            staging.dir().newDirectoryStream(staged, NOFOLLOW)) {
                copyChildren(op, src, from, into, src.subject, staging, counter, charge, 1);
            }
            synchronized (namespaceLock) {
                if (lstatOrNull(dst.dir, dst.name) != null) {
                    throw refuse(Code.EXISTS, op, dst.shown, dst.subject + " already exists");
                }
                staging.dir().move(staged, dst.dir, dst.name);
            }
            placed = true;
        } finally {
            if (!placed) {
                removeQuietly(staging.dir(), staged);
            }
        }
    }

    private void copyChildren(
            String op,
            Location src,
            SecureDirectoryStream<Path> from,
            SecureDirectoryStream<Path> into,
            String subject,
            Staging staging,
            CopyCounter counter,
            Quota.Charge charge,
            int depth)
            throws IOException {
        if (depth >= MAX_TREE_DEPTH) {
            throw refuse(Code.LIMIT, op, src.shown, "tree is nested deeper than " + MAX_TREE_DEPTH);
        }
        for (Path entry : from) {
            budget.checkCancelled(op, src.shown);
            Path name = entry.getFileName();
            String child = subject + "/" + name;
            BasicFileAttributes attrs = lstatOrNull(from, name);
            if (attrs == null) {
                continue;
            }
            if (attrs.isSymbolicLink()) {
                throw refuse(
                        Code.SYMLINK,
                        op,
                        src.shown,
                        child + " is a symbolic link; a copied tree cannot hold links");
            }
            if (attrs.isDirectory()) {
                charge.add(1, 0);
                createDirectory(op, src.shown, into, name, child, staging, false);
                try (SecureDirectoryStream<Path> fromChild =
                                resolver.openDir(op, src.shown, from, name, child);
                        SecureDirectoryStream<Path> intoChild =
                                into.newDirectoryStream(name, NOFOLLOW)) {
                    copyChildren(
                            op, src, fromChild, intoChild, child, staging, counter, charge,
                            depth + 1);
                }
            } else if (attrs.isRegularFile()) {
                counter.ensureRoom(attrs.size());
                budget.ensureWriteRoom(op, src.shown, attrs.size());
                charge.add(1, 0);
                SeekableByteChannel in;
                try {
                    in =
                            from.newByteChannel(
                                    name, Set.<OpenOption>of(StandardOpenOption.READ, NOFOLLOW));
                } catch (NoSuchFileException e) {
                    continue;
                }
                try (in;
                        SeekableByteChannel out =
                                AtomicWriter.createFile(
                                        into, name, AtomicWriter.permissionsOf(from, name))) {
                    transfer(op, src.shown, in, out, counter, new Prepaid(charge, 0));
                }
            } else {
                throw refuse(Code.NOT_A_FILE, op, src.shown, child + " is a special file");
            }
        }
    }
}
