package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Location.closeQuietly;

import dev.sandjar.bridges.workspace.Location.Staging;
import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Files under one root directory, for one run's {@code workspace} capability.
 *
 * <h2>Paths</h2>
 *
 * In the default {@link FilesystemAccess#CONTAINED} mode a path is a guest path: {@code
 * /}-separated, relative to the root, or absolute under {@value #GUEST_ROOT} (what {@link #root()}
 * returns; the host's path of the root is never shown). The full rules are on {@code GuestPath}:
 * {@code ..} may move within the root but not out of it, and backslashes, NUL, empty components,
 * paths over 4096 bytes and names over 255 bytes are refused.
 *
 * <h2>Containment</h2>
 *
 * Every path is resolved one component at a time through {@link SecureDirectoryStream} handles,
 * starting from a handle on the root opened at construction, each component opened relative to its
 * parent's handle with {@link LinkOption#NOFOLLOW_LINKS} ({@code openat} with {@code O_NOFOLLOW}).
 * The operation itself ({@code open}, {@code fstatat}, {@code renameat}, {@code unlinkat}) is then
 * made on the final parent handle. Nothing is checked by path and then used by path, so a directory
 * swapped for a symbolic link at any moment makes the operation fail ({@code SYMLINK}, {@code
 * NOT_FOUND}); it never reaches outside the root.
 *
 * <p><b>Symbolic links are never followed</b> in contained mode, including links whose target is
 * inside the root: a path through a link, or a read, write, copy or list of a link, fails with
 * {@code SYMLINK}. {@link #stat} and {@link #list} report a link as {@link EntryType#SYMLINK};
 * {@link #remove} deletes the link itself and {@link #move} renames it. (Java exposes no {@code
 * readlinkat}, so following a link would mean reading its target by path; refusing is the choice
 * that has no window at all.) Guest code cannot create links.
 *
 * <h2>Writes</h2>
 *
 * {@link #write}, {@link #writeBytes} and a file {@link #copy} write a temporary file ({@code
 * .sandjar-*.tmp}) created exclusively in the target's directory, then rename it over the target
 * through the directory handle. A failed or cancelled write leaves the old file as it was and no
 * temporary file. A replaced file keeps its permission bits (less the umask). Writes are not
 * fsynced. A directory copy is built in a staging directory ({@code .sandjar-*}) at the root and
 * renamed into place, so it also appears whole or not at all. New directories are made the same
 * way. {@link #remove} of a tree is not atomic: cancelled midway, part of the tree is gone.
 *
 * <h2>Limits and cancellation</h2>
 *
 * See {@link WorkspaceLimits}. A read checks the file's size before reading and also stops at the
 * cap, so a file that grows is never read past it. Run totals are charged as bytes move: reads (not
 * copies) count against {@code maxTotalReadBytes}; writes and the bytes copies produce count
 * against {@code maxTotalWriteBytes}. The cancellation hook is polled when an operation starts,
 * between 64 KiB chunks and between directory entries. An interrupted thread also gets {@code
 * CANCELLED}.
 *
 * <h2>Threads</h2>
 *
 * Thread-safe: one instance serves one run, from its engine thread and a worker pool at once.
 * Concurrent writes to one path each stay atomic and the last rename wins. Operations that check a
 * name and then create or rename it (mkdir, move, the placing of a copied tree) are serialized
 * within the instance, so one cannot silently replace a directory another just created. After
 * {@link #close()} operations throw {@link IllegalStateException}.
 *
 * <h2>Known limits of the guarantee</h2>
 *
 * The root's own path and its ancestors are trusted: only what lies under the root is assumed
 * hostile. Hard links cannot be told apart from files, so a hard link placed in the root by someone
 * else reads its target (guest code cannot make one). A FIFO swapped into a path between the type
 * check and the open can block that one call. A path that changes while a call resolves it may fail
 * with {@code IO} (the OS's reason) rather than {@code SYMLINK}. Under a mount point inside the
 * root, new directories and tree copies fail with {@code IO}, because they are staged at the root
 * and cannot be renamed across filesystems.
 */
public final class Workspace implements AutoCloseable {
    /** The guest's name for the root in contained mode. */
    public static final String GUEST_ROOT = "/workspace";

    static final int CHUNK = 64 * 1024;

    /** Recursive remove and copy refuse trees nested deeper than this ({@code LIMIT}). */
    static final int MAX_TREE_DEPTH = 256;

    static final String TEMP_PREFIX = ".sandjar-";

    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path rootPath;
    private final SecureDirectoryStream<Path> rootDir;
    private final Staging rootStaging;
    private final Path dot;
    private final FilesystemAccess access;
    private final WorkspaceLimits limits;
    private final Budget budget;
    private final Object namespaceLock = new Object();
    private volatile boolean closed;

    private Workspace(Builder b, Path rootPath, SecureDirectoryStream<Path> rootDir) {
        this.rootPath = rootPath;
        this.rootDir = rootDir;
        this.rootStaging = new Staging(rootPath, rootDir);
        this.dot = rootPath.getFileSystem().getPath(".");
        this.access = b.access;
        this.limits = b.limits;
        this.budget = new Budget(b.limits, b.cancelled);
    }

    /** Starts a workspace over {@code root}, an existing directory the host chose. */
    public static Builder builder(Path root) {
        return new Builder(root);
    }

    public static final class Builder {
        private final Path root;
        private WorkspaceLimits limits = WorkspaceLimits.defaults();
        private BooleanSupplier cancelled = () -> false;
        private FilesystemAccess access = FilesystemAccess.CONTAINED;

        private Builder(Path root) {
            this.root = Objects.requireNonNull(root, "root");
        }

        public Builder withLimits(WorkspaceLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * Polled between chunks and entries; when it returns true, operations fail {@code
         * CANCELLED}.
         */
        public Builder withCancellation(BooleanSupplier cancelled) {
            this.cancelled = Objects.requireNonNull(cancelled, "cancelled");
            return this;
        }

        /** Host-set only. {@link FilesystemAccess#CONTAINED} unless the caller is trusted. */
        public Builder withFilesystemAccess(FilesystemAccess access) {
            this.access = Objects.requireNonNull(access, "access");
            return this;
        }

        /**
         * Opens the root and keeps a handle on it for the workspace's life.
         *
         * @throws IllegalArgumentException if the root is not an existing directory
         * @throws UnsupportedOperationException if the platform offers no {@link
         *     SecureDirectoryStream}, without which containment cannot be enforced
         * @throws UncheckedIOException if the root cannot be opened
         */
        public Workspace build() {
            Path real;
            try {
                real = root.toRealPath();
            } catch (IOException e) {
                throw new IllegalArgumentException("workspace root " + root + " does not exist", e);
            }
            if (!Files.isDirectory(real)) {
                throw new IllegalArgumentException(
                        "workspace root " + root + " is not a directory");
            }
            try {
                return new Workspace(this, real, openSecure(real));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open workspace root " + root, e);
            }
        }
    }

    private static SecureDirectoryStream<Path> openSecure(Path dir) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(dir);
        if (stream instanceof SecureDirectoryStream) {
            return (SecureDirectoryStream<Path>) stream;
        }
        stream.close();
        throw new UnsupportedOperationException(
                "this platform has no SecureDirectoryStream (openat); a contained workspace"
                        + " cannot be enforced here");
    }

    // ---------------------------------------------------------------------------------------
    // Operations.

    /** {@value #GUEST_ROOT} in contained mode; the root's real host path in host mode. */
    public String root() {
        return access == FilesystemAccess.HOST ? rootPath.toString() : GUEST_ROOT;
    }

    public FilesystemAccess access() {
        return access;
    }

    /** Bytes read so far by this workspace's reads. */
    public long bytesRead() {
        return budget.bytesRead();
    }

    /** Bytes written so far by this workspace's writes and copies. */
    public long bytesWritten() {
        return budget.bytesWritten();
    }

    /** A file's text; bytes that are not valid UTF-8 fail {@code INVALID_TEXT}. */
    public String read(String path) {
        byte[] bytes = readFile("read", path);
        CharsetDecoder decoder =
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            return decoder.decode(in).toString();
        } catch (CharacterCodingException e) {
            throw refuse(
                    Code.INVALID_TEXT,
                    "read",
                    GuestPath.quote(path),
                    "not valid UTF-8 at byte " + in.position() + "; use readBytes");
        }
    }

    public byte[] readBytes(String path) {
        return readFile("readBytes", path);
    }

    /**
     * Replaces (or creates) a file with {@code text} as UTF-8, atomically. The parent directory
     * must exist. Text with an unpaired surrogate fails {@code INVALID_TEXT}.
     */
    public void write(String path, String text) {
        String op = "write";
        begin(op, path);
        if (text == null) {
            throw refuse(Code.INVALID_TEXT, op, GuestPath.quote(path), "text is required");
        }
        long max = limits.maxWriteBytes();
        if (text.length() > max) { // UTF-8 never has fewer bytes than UTF-16 units
            throw refuse(
                    Code.TOO_LARGE,
                    op,
                    GuestPath.quote(path),
                    "text is at least "
                            + text.length()
                            + " bytes, over maxWriteBytes ("
                            + max
                            + ")");
        }
        CharsetEncoder encoder =
                StandardCharsets.UTF_8
                        .newEncoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer encoded;
        try {
            encoded = encoder.encode(CharBuffer.wrap(text));
        } catch (CharacterCodingException e) {
            throw refuse(
                    Code.INVALID_TEXT, op, GuestPath.quote(path), "text has an unpaired surrogate");
        }
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        writeFile(op, path, bytes);
    }

    /** Replaces (or creates) a file with {@code bytes}, atomically. The parent must exist. */
    public void writeBytes(String path, byte[] bytes) {
        begin("writeBytes", path);
        if (bytes == null) {
            throw refuse(
                    Code.INVALID_PATH, "writeBytes", GuestPath.quote(path), "bytes are required");
        }
        writeFile("writeBytes", path, bytes);
    }

    /**
     * A directory's entries, sorted by name. Links are reported as {@link EntryType#SYMLINK} with
     * their own size. More than {@code maxListEntries} entries fail {@code LIMIT} (rather than
     * returning a silently partial list).
     */
    public List<Entry> list(String path) {
        String op = "list";
        begin(op, path);
        try (Location loc = locate(op, path);
                SecureDirectoryStream<Path> dir =
                        openDir(op, loc.shown, loc.dir, loc.name, loc.subject)) {
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
        } catch (IOException e) {
            throw io(op, GuestPath.quote(path), e);
        } catch (DirectoryIteratorException e) {
            throw io(op, GuestPath.quote(path), e.getCause());
        }
    }

    /** Type, size and modification time; a link is described, not followed. */
    public Stat stat(String path) {
        String op = "stat";
        begin(op, path);
        try (Location loc = locate(op, path)) {
            BasicFileAttributes attrs = existing(op, loc);
            return new Stat(typeOf(attrs), attrs.size(), attrs.lastModifiedTime().toInstant());
        } catch (IOException e) {
            throw io(op, GuestPath.quote(path), e);
        }
    }

    /**
     * Copies a file (atomically, as a write) or a directory tree (built aside, then renamed into
     * place). A tree that holds a link or a special file fails and leaves nothing behind. Without
     * {@code overwrite} an existing {@code to} fails {@code EXISTS}; with it, a file may replace a
     * file, but a directory is never replaced or merged into. The source's permission bits are
     * kept; times are not.
     */
    public void copy(String from, String to, boolean overwrite) {
        String op = "copy";
        begin(op, from);
        try (Location src = locate(op, from);
                Location dst = locate(op, to)) {
            if (src.isRoot()) {
                throw refuse(Code.INVALID_PATH, op, src.shown, "cannot copy the workspace root");
            }
            if (dst.isRoot()) {
                throw refuse(Code.INVALID_PATH, op, dst.shown, "cannot replace the workspace root");
            }
            if (dst.key.startsWith(src.key)) {
                throw refuse(Code.INVALID_PATH, op, dst.shown, "cannot copy onto or into itself");
            }
            BasicFileAttributes source = existing(op, src);
            if (source.isSymbolicLink()) {
                throw refuse(Code.SYMLINK, op, src.shown, src.subject + " is a symbolic link");
            }
            if (!source.isRegularFile() && !source.isDirectory()) {
                throw refuse(Code.NOT_A_FILE, op, src.shown, src.subject + " is a special file");
            }
            checkDestination(op, dst, source.isDirectory(), overwrite, false);
            CopyCounter counter = new CopyCounter(op, src.shown, limits.maxCopyBytes());
            if (source.isRegularFile()) {
                counter.ensureRoom(source.size());
                budget.ensureWriteRoom(op, src.shown, source.size());
                Set<PosixFilePermission> perms = permissionsOf(src.dir, src.name);
                try (SeekableByteChannel in = openFile(op, src, StandardOpenOption.READ)) {
                    replaceAtomically(
                            op, dst, perms, out -> transfer(op, src.shown, in, out, counter));
                }
            } else {
                copyTree(op, src, dst, counter);
            }
        } catch (IOException e) {
            throw io(op, GuestPath.quote(from), e);
        } catch (DirectoryIteratorException e) {
            throw io(op, GuestPath.quote(from), e.getCause());
        }
    }

    /**
     * Renames a file, directory or link (a link is moved as itself). Both paths must be on one
     * filesystem. Without {@code overwrite} an existing {@code to} fails {@code EXISTS}; with it, a
     * non-directory may replace a non-directory, but a directory is never replaced.
     */
    public void move(String from, String to, boolean overwrite) {
        String op = "move";
        begin(op, from);
        try (Location src = locate(op, from);
                Location dst = locate(op, to)) {
            if (src.isRoot()) {
                throw refuse(Code.INVALID_PATH, op, src.shown, "cannot move the workspace root");
            }
            if (dst.isRoot()) {
                throw refuse(Code.INVALID_PATH, op, dst.shown, "cannot replace the workspace root");
            }
            BasicFileAttributes source = existing(op, src);
            if (dst.key.equals(src.key)) {
                return;
            }
            if (source.isDirectory() && dst.key.startsWith(src.key)) {
                throw refuse(
                        Code.INVALID_PATH, op, dst.shown, "cannot move a directory into itself");
            }
            synchronized (namespaceLock) {
                checkDestination(op, dst, source.isDirectory(), overwrite, true);
                src.dir.move(src.name, dst.dir, dst.name);
            }
        } catch (IOException e) {
            throw io(op, GuestPath.quote(from), e);
        }
    }

    /**
     * Creates a directory. Without {@code recursive} the parent must exist and an existing {@code
     * path} fails {@code EXISTS}; with it, missing parents are created and an existing directory is
     * fine.
     */
    public void mkdir(String path, boolean recursive) {
        String op = "mkdir";
        begin(op, path);
        try {
            if (recursive && access == FilesystemAccess.CONTAINED) {
                mkdirs(op, path);
                return;
            }
            if (recursive) {
                mkdirsOnHost(op, path);
                return;
            }
            try (Location loc = locate(op, path)) {
                if (loc.isRoot()) {
                    throw refuse(Code.EXISTS, op, loc.shown, "the workspace root exists");
                }
                createDirectory(op, loc.shown, loc.dir, loc.name, loc.subject, loc.staging, false);
            }
        } catch (IOException e) {
            throw io(op, GuestPath.quote(path), e);
        }
    }

    /**
     * Removes a file, a link (not its target) or an empty directory; with {@code recursive}, a
     * directory and everything in it (links inside are removed, never followed). The root cannot be
     * removed.
     */
    public void remove(String path, boolean recursive) {
        String op = "remove";
        begin(op, path);
        try (Location loc = locate(op, path)) {
            if (loc.isRoot()) {
                throw refuse(Code.INVALID_PATH, op, loc.shown, "cannot remove the workspace root");
            }
            BasicFileAttributes attrs = existing(op, loc);
            if (!attrs.isDirectory()) {
                loc.dir.deleteFile(loc.name);
            } else if (recursive) {
                removeTree(op, loc.shown, loc.dir, loc.name, loc.subject, 0, true);
            } else {
                try {
                    loc.dir.deleteDirectory(loc.name);
                } catch (DirectoryNotEmptyException e) {
                    throw refuse(Code.NOT_EMPTY, op, loc.shown, loc.subject + " is not empty");
                }
            }
        } catch (IOException e) {
            throw io(op, GuestPath.quote(path), e);
        } catch (DirectoryIteratorException e) {
            throw io(op, GuestPath.quote(path), e.getCause());
        }
    }

    /** Closes the root handle. Calls in flight finish first; later calls fail. Idempotent. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(rootDir);
    }

    // ---------------------------------------------------------------------------------------
    // Resolution.

    private void begin(String op, String path) {
        if (closed) {
            throw new IllegalStateException("workspace is closed");
        }
        budget.checkCancelled(op, GuestPath.quote(String.valueOf(path)));
    }

    private Location locate(String op, String raw) throws IOException {
        if (access == FilesystemAccess.HOST) {
            return locateOnHost(op, raw);
        }
        GuestPath path = GuestPath.parse(op, raw);
        String shown = GuestPath.quote(raw);
        List<String> names = path.names();
        Path key = virtualKey(op, raw, names);
        if (path.isRoot()) {
            return new Location(rootDir, dot, shown, GUEST_ROOT, key, rootStaging, false);
        }
        SecureDirectoryStream<Path> dir = rootDir;
        try {
            for (int i = 0; i < names.size() - 1; i++) {
                SecureDirectoryStream<Path> next =
                        openDir(op, shown, dir, name(op, raw, names.get(i)), path.prefix(i + 1));
                if (dir != rootDir) {
                    dir.close();
                }
                dir = next;
            }
            Path last = name(op, raw, names.get(names.size() - 1));
            return new Location(
                    dir, last, shown, path.canonical(), key, rootStaging, dir != rootDir);
        } catch (IOException | RuntimeException e) {
            if (dir != rootDir) {
                closeQuietly(dir);
            }
            throw e;
        }
    }

    /**
     * Host mode: the OS resolves the path, following links (the caller is trusted), and the
     * operation then runs on the real parent directory like a contained one.
     */
    private Location locateOnHost(String op, String raw) throws IOException {
        GuestPath.checkCommon(op, raw);
        String shown = GuestPath.quote(raw);
        Path path;
        try {
            path = rootPath.resolve(raw).normalize();
        } catch (InvalidPathException e) {
            throw refuse(Code.INVALID_PATH, op, shown, "not a valid host path");
        }
        Path real;
        try {
            real = path.toRealPath();
        } catch (NoSuchFileException e) {
            Path parent = path.getParent();
            try {
                real = parent.toRealPath().resolve(path.getFileName());
            } catch (NoSuchFileException e2) {
                throw refuse(Code.NOT_FOUND, op, shown, parent + " does not exist");
            }
        }
        Path parent = real.getParent();
        Path dirPath = parent == null ? real : parent;
        SecureDirectoryStream<Path> dir;
        try {
            dir = openSecure(dirPath);
        } catch (NotDirectoryException e) {
            throw refuse(Code.NOT_A_DIRECTORY, op, shown, dirPath + " is not a directory");
        }
        Path name = parent == null ? dot : real.getFileName();
        return new Location(
                dir, name, shown, real.toString(), real, new Staging(dirPath, dir), true);
    }

    /** The operand as a path from "/" that names nothing on the host: used only to compare. */
    private Path virtualKey(String op, String raw, List<String> names) {
        Path key = rootPath.getRoot();
        for (String name : names) {
            key = key.resolve(name(op, raw, name));
        }
        return key;
    }

    private Path name(String op, String raw, String name) {
        try {
            return rootPath.getFileSystem().getPath(name);
        } catch (InvalidPathException e) {
            throw refuse(
                    Code.INVALID_PATH,
                    op,
                    GuestPath.quote(raw),
                    "a name cannot be represented on this host");
        }
    }

    /**
     * Opens directory {@code name} in {@code parent} without following a link. The type is checked
     * first only to fail clearly (and not to block opening a FIFO); the open itself is what is
     * safe, and a swap after the check makes it fail.
     */
    private SecureDirectoryStream<Path> openDir(
            String op, String shown, SecureDirectoryStream<Path> parent, Path name, String subject)
            throws IOException {
        BasicFileAttributes attrs = lstatOrNull(parent, name);
        if (attrs == null) {
            throw refuse(Code.NOT_FOUND, op, shown, subject + " does not exist");
        }
        checkDirectory(op, shown, subject, attrs);
        try {
            return parent.newDirectoryStream(name, NOFOLLOW);
        } catch (IOException e) {
            BasicFileAttributes now = lstatOrNull(parent, name);
            if (now == null) {
                throw refuse(Code.NOT_FOUND, op, shown, subject + " does not exist");
            }
            checkDirectory(op, shown, subject, now);
            throw e;
        }
    }

    private void checkDirectory(String op, String shown, String subject, BasicFileAttributes a) {
        if (a.isSymbolicLink()) {
            throw refuse(Code.SYMLINK, op, shown, linkReason(subject));
        }
        if (!a.isDirectory()) {
            throw refuse(Code.NOT_A_DIRECTORY, op, shown, subject + " is not a directory");
        }
    }

    private String linkReason(String subject) {
        return access == FilesystemAccess.HOST
                ? subject + " is a dangling symbolic link"
                : subject + " is a symbolic link; the workspace does not follow links";
    }

    private SeekableByteChannel openFile(String op, Location loc, OpenOption option)
            throws IOException {
        try {
            return loc.dir.newByteChannel(loc.name, Set.<OpenOption>of(option, NOFOLLOW));
        } catch (IOException e) {
            throw failure(op, loc, e);
        }
    }

    /** Explains a failed call on {@code loc} by what is there now, falling back to the error. */
    private WorkspaceException failure(String op, Location loc, IOException e) {
        BasicFileAttributes now;
        try {
            now = lstatOrNull(loc.dir, loc.name);
        } catch (IOException again) {
            return io(op, loc.shown, e);
        }
        if (now == null) {
            return refuse(Code.NOT_FOUND, op, loc.shown, loc.subject + " does not exist");
        }
        if (now.isSymbolicLink()) {
            return refuse(Code.SYMLINK, op, loc.shown, linkReason(loc.subject));
        }
        if (now.isDirectory() && !(e instanceof DirectoryNotEmptyException)) {
            return refuse(Code.IS_A_DIRECTORY, op, loc.shown, loc.subject + " is a directory");
        }
        return io(op, loc.shown, e);
    }

    private BasicFileAttributes existing(String op, Location loc) throws IOException {
        BasicFileAttributes attrs = lstatOrNull(loc.dir, loc.name);
        if (attrs == null) {
            throw refuse(Code.NOT_FOUND, op, loc.shown, loc.subject + " does not exist");
        }
        return attrs;
    }

    private static BasicFileAttributes lstatOrNull(SecureDirectoryStream<Path> dir, Path name)
            throws IOException {
        try {
            return dir.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW)
                    .readAttributes();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static EntryType typeOf(BasicFileAttributes attrs) {
        if (attrs.isSymbolicLink()) {
            return EntryType.SYMLINK;
        }
        if (attrs.isDirectory()) {
            return EntryType.DIRECTORY;
        }
        return attrs.isRegularFile() ? EntryType.FILE : EntryType.OTHER;
    }

    // ---------------------------------------------------------------------------------------
    // Reading and writing.

    private byte[] readFile(String op, String raw) {
        begin(op, raw);
        try (Location loc = locate(op, raw)) {
            BasicFileAttributes attrs = existing(op, loc);
            requireFile(op, loc, attrs);
            long max = limits.maxReadBytes();
            if (attrs.size() > max) {
                throw tooLarge(op, loc.shown, loc.subject, attrs.size(), "maxReadBytes", max);
            }
            budget.ensureReadRoom(op, loc.shown, attrs.size());
            try (SeekableByteChannel in = openFile(op, loc, StandardOpenOption.READ)) {
                return readBounded(op, loc.shown, loc.subject, in, max);
            }
        } catch (IOException e) {
            throw io(op, GuestPath.quote(raw), e);
        }
    }

    /**
     * Reads the whole channel, never holding more than {@code max} bytes: the buffer starts at the
     * size the file reports and grows (up to the cap) only if the file grew.
     */
    byte[] readBounded(String op, String shown, String subject, SeekableByteChannel in, long max)
            throws IOException {
        long size = in.size();
        if (size > max) {
            throw tooLarge(op, shown, subject, size, "maxReadBytes", max);
        }
        byte[] buf = new byte[(int) size];
        ByteBuffer probe = ByteBuffer.allocate(1);
        int n = 0;
        while (true) {
            budget.checkCancelled(op, shown);
            if (n == buf.length) {
                probe.clear();
                if (in.read(probe) < 0) {
                    break;
                }
                if (n >= max) {
                    throw tooLarge(op, shown, subject, n + 1L, "maxReadBytes", max);
                }
                budget.chargeRead(op, shown, 1);
                buf = Arrays.copyOf(buf, (int) Math.min(max, Math.max(n + CHUNK, 2L * n)));
                buf[n++] = probe.get(0);
                continue;
            }
            int r = in.read(ByteBuffer.wrap(buf, n, Math.min(CHUNK, buf.length - n)));
            if (r < 0) {
                break;
            }
            budget.chargeRead(op, shown, r);
            n += r;
        }
        return n == buf.length ? buf : Arrays.copyOf(buf, n);
    }

    private void writeFile(String op, String raw, byte[] data) {
        try (Location loc = locate(op, raw)) {
            if (loc.isRoot()) {
                throw refuse(
                        Code.IS_A_DIRECTORY, op, loc.shown, "the workspace root is a directory");
            }
            long max = limits.maxWriteBytes();
            if (data.length > max) {
                throw tooLarge(op, loc.shown, loc.subject, data.length, "maxWriteBytes", max);
            }
            BasicFileAttributes old = lstatOrNull(loc.dir, loc.name);
            if (old != null) {
                requireFile(op, loc, old);
            }
            Set<PosixFilePermission> perms = old == null ? null : permissionsOf(loc.dir, loc.name);
            budget.chargeWrite(op, loc.shown, data.length);
            replaceAtomically(
                    op,
                    loc,
                    perms,
                    out -> {
                        for (int off = 0; off < data.length; off += CHUNK) {
                            budget.checkCancelled(op, loc.shown);
                            writeFully(
                                    out,
                                    ByteBuffer.wrap(data, off, Math.min(CHUNK, data.length - off)));
                        }
                    });
        } catch (IOException e) {
            throw io(op, GuestPath.quote(raw), e);
        }
    }

    private void requireFile(String op, Location loc, BasicFileAttributes attrs) {
        if (attrs.isSymbolicLink()) {
            throw refuse(Code.SYMLINK, op, loc.shown, linkReason(loc.subject));
        }
        if (attrs.isDirectory()) {
            throw refuse(Code.IS_A_DIRECTORY, op, loc.shown, loc.subject + " is a directory");
        }
        if (!attrs.isRegularFile()) {
            throw refuse(Code.NOT_A_FILE, op, loc.shown, loc.subject + " is a special file");
        }
    }

    private interface Body {
        void write(SeekableByteChannel out) throws IOException;
    }

    /**
     * Writes a new file next to {@code loc} and renames it over {@code loc}; on any failure,
     * cancellation included, the temporary file is deleted and {@code loc} is untouched.
     */
    private void replaceAtomically(
            String op, Location loc, Set<PosixFilePermission> perms, Body body) throws IOException {
        Path temp = null;
        SeekableByteChannel out = null;
        for (int attempt = 0; out == null; attempt++) {
            temp = dot.getFileSystem().getPath(TEMP_PREFIX + randomHex() + ".tmp");
            try {
                out = createFile(loc.dir, temp, perms);
            } catch (FileAlreadyExistsException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
        boolean placed = false;
        try {
            try (SeekableByteChannel channel = out) {
                body.write(channel);
            }
            try {
                loc.dir.move(temp, loc.dir, loc.name);
            } catch (IOException e) {
                throw failure(op, loc, e);
            }
            placed = true;
        } finally {
            if (!placed) {
                deleteQuietly(loc.dir, temp);
            }
        }
    }

    private static SeekableByteChannel createFile(
            SecureDirectoryStream<Path> dir, Path name, Set<PosixFilePermission> perms)
            throws IOException {
        Set<OpenOption> options =
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, NOFOLLOW);
        if (perms == null) {
            return dir.newByteChannel(name, options);
        }
        FileAttribute<Set<PosixFilePermission>> mode = PosixFilePermissions.asFileAttribute(perms);
        return dir.newByteChannel(name, options, mode);
    }

    private static Set<PosixFilePermission> permissionsOf(
            SecureDirectoryStream<Path> dir, Path name) {
        PosixFileAttributeView view =
                dir.getFileAttributeView(name, PosixFileAttributeView.class, NOFOLLOW);
        if (view == null) {
            return null;
        }
        try {
            return view.readAttributes().permissions();
        } catch (IOException | UnsupportedOperationException e) {
            return null; // default permissions are an acceptable fallback
        }
    }

    private static void writeFully(SeekableByteChannel out, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            out.write(buf);
        }
    }

    private static void deleteQuietly(SecureDirectoryStream<Path> dir, Path name) {
        try {
            dir.deleteFile(name);
        } catch (IOException e) {
            // Best effort: the failure that brought us here is the one to report.
        }
    }

    private static String randomHex() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    // ---------------------------------------------------------------------------------------
    // Directories, copies and removal.

    /**
     * Checks what is at {@code dst} against {@code overwrite}. A move may replace a link or special
     * file (a rename never follows it); a copy refuses them as {@link #write} does.
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
            requireFile(op, dst, there);
        }
    }

    /**
     * Makes directory {@code name} in {@code parent}: staged by path directly under {@code staging}
     * (nothing to follow there), checked through the staging handle, then renamed into {@code
     * parent} through handles. Serialized, so the rename cannot replace an empty directory another
     * call just made.
     */
    private void createDirectory(
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
                    return;
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
        }
    }

    private Path stageDirectory(String op, String shown, Staging staging) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Path staged = dot.getFileSystem().getPath(TEMP_PREFIX + randomHex());
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
        SecureDirectoryStream<Path> dir = rootDir;
        try {
            for (int i = 0; i < names.size(); i++) {
                budget.checkCancelled(op, shown);
                Path name = name(op, raw, names.get(i));
                String subject = path.prefix(i + 1);
                boolean last = i == names.size() - 1;
                BasicFileAttributes there = lstatOrNull(dir, name);
                if (there == null) {
                    createDirectory(op, shown, dir, name, subject, rootStaging, true);
                } else if (there.isSymbolicLink()) {
                    throw refuse(Code.SYMLINK, op, shown, linkReason(subject));
                } else if (!there.isDirectory()) {
                    throw refuse(
                            last ? Code.EXISTS : Code.NOT_A_DIRECTORY,
                            op,
                            shown,
                            subject + " exists and is not a directory");
                }
                if (!last) {
                    SecureDirectoryStream<Path> next = openDir(op, shown, dir, name, subject);
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
        }
    }

    private void mkdirsOnHost(String op, String raw) throws IOException {
        GuestPath.checkCommon(op, raw);
        try {
            Files.createDirectories(rootPath.resolve(raw).normalize());
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
            boolean cancellable)
            throws IOException {
        if (depth >= MAX_TREE_DEPTH) {
            throw refuse(Code.LIMIT, op, shown, "tree is nested deeper than " + MAX_TREE_DEPTH);
        }
        try (SecureDirectoryStream<Path> dir = openDir(op, shown, parent, name, subject)) {
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
                            op, shown, dir, child, subject + "/" + child, depth + 1, cancellable);
                } else {
                    try {
                        dir.deleteFile(child);
                    } catch (NoSuchFileException e) {
                        // removed by someone else meanwhile
                    }
                }
            }
        }
        try {
            parent.deleteDirectory(name);
        } catch (DirectoryNotEmptyException e) {
            throw refuse(Code.NOT_EMPTY, op, shown, subject + " gained entries while removed");
        }
    }

    /** Best-effort cleanup of a staged tree, even after cancellation; never follows a link. */
    private void removeQuietly(SecureDirectoryStream<Path> parent, Path name) {
        try {
            removeTree("cleanup", "", parent, name, name.toString(), 0, false);
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
            CopyCounter counter)
            throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(CHUNK);
        while (true) {
            budget.checkCancelled(op, shown);
            buf.clear();
            int r = in.read(buf);
            if (r < 0) {
                return;
            }
            counter.add(r);
            budget.chargeWrite(op, shown, r);
            buf.flip();
            writeFully(out, buf);
        }
    }

    /** Builds the copy in a staging directory, then renames it into place in one step. */
    private void copyTree(String op, Location src, Location dst, CopyCounter counter)
            throws IOException {
        Staging staging = dst.staging;
        Path staged = stageDirectory(op, src.shown, staging);
        boolean placed = false;
        try {
            try (SecureDirectoryStream<Path> from =
                            openDir(op, src.shown, src.dir, src.name, src.subject);
                    SecureDirectoryStream<Path> into =
                            staging.dir().newDirectoryStream(staged, NOFOLLOW)) {
                copyChildren(op, src, from, into, src.subject, staging, counter, 1);
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
                createDirectory(op, src.shown, into, name, child, staging, false);
                try (SecureDirectoryStream<Path> fromChild =
                                openDir(op, src.shown, from, name, child);
                        SecureDirectoryStream<Path> intoChild =
                                into.newDirectoryStream(name, NOFOLLOW)) {
                    copyChildren(op, src, fromChild, intoChild, child, staging, counter, depth + 1);
                }
            } else if (attrs.isRegularFile()) {
                counter.ensureRoom(attrs.size());
                budget.ensureWriteRoom(op, src.shown, attrs.size());
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
                                createFile(into, name, permissionsOf(from, name))) {
                    transfer(op, src.shown, in, out, counter);
                }
            } else {
                throw refuse(Code.NOT_A_FILE, op, src.shown, child + " is a special file");
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Errors.

    static WorkspaceException refuse(Code code, String op, String shown, String reason) {
        return new WorkspaceException(code, op + " " + shown + ": " + reason);
    }

    private static WorkspaceException tooLarge(
            String op, String shown, String subject, long size, String limit, long max) {
        return refuse(
                Code.TOO_LARGE,
                op,
                shown,
                subject + " is " + size + " bytes, over " + limit + " (" + max + ")");
    }

    /**
     * Maps an I/O failure by its type. The message is built from the exception's reason (the errno
     * text), never from its message, which may hold a host path; the exception stays the cause for
     * host logs.
     */
    static WorkspaceException io(String op, String shown, IOException e) {
        if (e instanceof NoSuchFileException) {
            return new WorkspaceException(Code.NOT_FOUND, op + " " + shown + ": not found", e);
        }
        if (e instanceof FileAlreadyExistsException) {
            return new WorkspaceException(Code.EXISTS, op + " " + shown + ": already exists", e);
        }
        if (e instanceof DirectoryNotEmptyException) {
            return new WorkspaceException(
                    Code.NOT_EMPTY, op + " " + shown + ": directory is not empty", e);
        }
        if (e instanceof NotDirectoryException) {
            return new WorkspaceException(
                    Code.NOT_A_DIRECTORY, op + " " + shown + ": not a directory", e);
        }
        if (e instanceof ClosedByInterruptException) {
            return new WorkspaceException(
                    Code.CANCELLED, op + " " + shown + ": cancelled (thread interrupted)", e);
        }
        String reason;
        if (e instanceof AtomicMoveNotSupportedException) {
            reason = "cannot rename across filesystems (a mount point)";
        } else if (e instanceof AccessDeniedException) {
            reason = "permission denied";
        } else if (e instanceof FileSystemException) {
            String r = ((FileSystemException) e).getReason();
            reason = r == null ? "I/O error" : r;
        } else {
            String m = e.getMessage(); // errno text from a channel; refuse anything path-like
            reason = m == null || m.indexOf('/') >= 0 ? "I/O error" : m;
        }
        return new WorkspaceException(Code.IO, op + " " + shown + ": " + reason, e);
    }
}
