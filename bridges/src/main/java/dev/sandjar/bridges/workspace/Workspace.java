package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Errors.io;
import static dev.sandjar.bridges.workspace.Errors.refuse;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import dev.sandjar.host.EngineException;
import dev.sandjar.host.InvalidRequestException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Objects;
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
 * Every path is resolved one component at a time through {@link SecureDirectoryStream} handles
 * opened with {@link LinkOption#NOFOLLOW_LINKS}, starting from a handle on the root opened at
 * construction, and the operation is made on the final parent handle ({@code Resolver} explains
 * how). Nothing is checked by path and then used by path, so a directory swapped for a symbolic
 * link at any moment makes the operation fail ({@code SYMLINK}, {@code NOT_FOUND}); it never
 * reaches outside the root.
 *
 * <p><b>Symbolic links are never followed</b> in contained mode, including links whose target is
 * inside the root: a path through a link, or a read, write, copy or list of a link, fails with
 * {@code SYMLINK}. {@link #stat} and {@link #list} report a link as {@link EntryType#SYMLINK};
 * {@link #remove} deletes the link itself and {@link #move} renames it. Guest code cannot create
 * links.
 *
 * <h2>Writes</h2>
 *
 * {@link #write}, {@link #writeBytes} and a file {@link #copy} write a temporary file ({@code
 * .sandjar-*.tmp}) in the target's directory and rename it over the target ({@code AtomicWriter}).
 * A failed or cancelled write leaves the old file as it was and no temporary file. A replaced file
 * keeps its permission bits (less the umask). Writes are not fsynced. A directory copy is built in
 * a staging directory ({@code .sandjar-*}) at the root and renamed into place, so it also appears
 * whole or not at all. New directories are made the same way ({@code TreeOperations}). {@link
 * #remove} of a tree is not atomic: cancelled midway, part of the tree is gone.
 *
 * <h2>Limits and cancellation</h2>
 *
 * See {@link WorkspaceLimits}. A read checks the file's size before reading and also stops at the
 * cap, so a file that grows is never read past it. Run totals are charged as bytes move: reads (not
 * copies) count against {@code maxTotalReadBytes}; writes and the bytes copies produce count
 * against {@code maxTotalWriteBytes}. The workspace's quotas ({@code maxWorkspaceEntries}, {@code
 * maxWorkspaceBytes}) bound what the tree holds across runs: usage is scanned at the first write,
 * copy or mkdir of this instance and tracked from there ({@code Quota}); an operation that would
 * pass a quota fails {@code QUOTA} before it writes anything. The cancellation hook is polled when
 * an operation starts, between 64 KiB chunks and between directory entries. An interrupted thread
 * also gets {@code CANCELLED}.
 *
 * <h2>Threads</h2>
 *
 * Thread-safe: one instance serves one run, from its engine thread and a worker pool at once.
 * Concurrent writes to one path each stay atomic and the last rename wins. Operations that check a
 * name and then create or rename it (mkdir, move, the placing of a copied tree) are serialized
 * within the instance, so one cannot silently replace a directory another just created. After
 * {@link #close()} operations throw {@link EngineException}.
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

    private final Resolver resolver;
    private final FilesystemAccess access;
    private final WorkspaceLimits limits;
    private final Budget budget;
    private final BoundedReader reader;
    private final AtomicWriter writer;
    private final TreeOperations tree;
    private volatile boolean closed;

    private Workspace(Builder b, Path rootPath, SecureDirectoryStream<Path> rootDir) {
        this.resolver = new Resolver(rootPath, rootDir, b.access);
        this.access = b.access;
        this.limits = b.limits;
        this.budget = new Budget(b.limits, b.cancelled);
        this.reader = new BoundedReader(resolver, limits, budget);
        Quota quota = new Quota(resolver, limits, budget);
        this.writer = new AtomicWriter(resolver, limits, budget, quota);
        this.tree = new TreeOperations(resolver, writer, limits, budget, quota);
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
         * @throws InvalidRequestException if the root is not an existing directory
         * @throws UnsupportedOperationException if the platform offers no {@link
         *     SecureDirectoryStream}, without which containment cannot be enforced
         * @throws UncheckedIOException if the root cannot be opened
         */
        public Workspace build() {
            Path real;
            try {
                real = root.toRealPath();
            } catch (IOException e) {
                throw new InvalidRequestException("workspace root " + root + " does not exist", e);
            }
            if (!Files.isDirectory(real)) {
                throw new InvalidRequestException("workspace root " + root + " is not a directory");
            }
            try {
                return new Workspace(this, real, Resolver.openSecure(real));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open workspace root " + root, e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Operations.

    /** {@value #GUEST_ROOT} in contained mode; the root's real host path in host mode. */
    public String root() {
        return access == FilesystemAccess.HOST ? resolver.rootPath().toString() : GUEST_ROOT;
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
        byte[] bytes = call("read", path, () -> reader.read("read", path));
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
        return call("readBytes", path, () -> reader.read("readBytes", path));
    }

    /**
     * Replaces (or creates) a file with {@code text} as UTF-8, atomically. The parent directory
     * must exist. Text with an unpaired surrogate fails {@code INVALID_TEXT}.
     */
    public void write(String path, String text) {
        String op = "write";
        run(
                op,
                path,
                () -> {
                    if (text == null) {
                        throw refuse(
                                Code.INVALID_TEXT, op, GuestPath.quote(path), "text is required");
                    }
                    writer.write(op, path, encode(op, path, text));
                });
    }

    /** Replaces (or creates) a file with {@code bytes}, atomically. The parent must exist. */
    public void writeBytes(String path, byte[] bytes) {
        String op = "writeBytes";
        run(
                op,
                path,
                () -> {
                    if (bytes == null) {
                        throw refuse(
                                Code.INVALID_PATH, op, GuestPath.quote(path), "bytes are required");
                    }
                    writer.write(op, path, bytes);
                });
    }

    /**
     * A directory's entries, sorted by name. Links are reported as {@link EntryType#SYMLINK} with
     * their own size. More than {@code maxListEntries} entries fail {@code LIMIT} (rather than
     * returning a silently partial list).
     */
    public List<Entry> list(String path) {
        return call("list", path, () -> tree.list("list", path));
    }

    /** Type, size and modification time; a link is described, not followed. */
    public Stat stat(String path) {
        String op = "stat";
        return call(
                op,
                path,
                () -> {
                    try (Location loc = resolver.locate(op, path)) {
                        BasicFileAttributes attrs = resolver.existing(op, loc);
                        return new Stat(
                                Resolver.typeOf(attrs),
                                attrs.size(),
                                attrs.lastModifiedTime().toInstant());
                    }
                });
    }

    /**
     * Copies a file (atomically, as a write) or a directory tree (built aside, then renamed into
     * place). A tree that holds a link or a special file fails and leaves nothing behind. Without
     * {@code overwrite} an existing {@code to} fails {@code EXISTS}; with it, a file may replace a
     * file, but a directory is never replaced or merged into. The source's permission bits are
     * kept; times are not.
     */
    public void copy(String from, String to, boolean overwrite) {
        run("copy", from, () -> tree.copy("copy", from, to, overwrite));
    }

    /**
     * Renames a file, directory or link (a link is moved as itself). Both paths must be on one
     * filesystem. Without {@code overwrite} an existing {@code to} fails {@code EXISTS}; with it, a
     * non-directory may replace a non-directory, but a directory is never replaced.
     */
    public void move(String from, String to, boolean overwrite) {
        run("move", from, () -> tree.move("move", from, to, overwrite));
    }

    /**
     * Creates a directory. Without {@code recursive} the parent must exist and an existing {@code
     * path} fails {@code EXISTS}; with it, missing parents are created and an existing directory is
     * fine.
     */
    public void mkdir(String path, boolean recursive) {
        run("mkdir", path, () -> tree.mkdir("mkdir", path, recursive));
    }

    /**
     * Removes a file, a link (not its target) or an empty directory; with {@code recursive}, a
     * directory and everything in it (links inside are removed, never followed). The root cannot be
     * removed.
     */
    public void remove(String path, boolean recursive) {
        run("remove", path, () -> tree.remove("remove", path, recursive));
    }

    /** Closes the root handle. Calls in flight finish first; later calls fail. Idempotent. */
    @Override
    public void close() {
        closed = true;
        resolver.close();
    }

    // ---------------------------------------------------------------------------------------
    // The edge every operation passes.

    private interface IoCall<T> {
        T call() throws IOException;
    }

    private interface IoRun {
        void run() throws IOException;
    }

    /**
     * Runs one operation: refuses it after {@link #close()} or once cancelled, then maps an I/O
     * failure to a {@link WorkspaceException} that names {@code op} and {@code path} as the caller
     * wrote it, never a host path.
     */
    private <T> T call(String op, String path, IoCall<T> body) {
        begin(op, path);
        try {
            return body.call();
        } catch (IOException e) {
            throw io(op, GuestPath.quote(path), e);
        } catch (DirectoryIteratorException e) {
            throw io(op, GuestPath.quote(path), e.getCause());
        }
    }

    private void run(String op, String path, IoRun body) {
        call(
                op,
                path,
                () -> {
                    body.run();
                    return null;
                });
    }

    private void begin(String op, String path) {
        if (closed) {
            throw new EngineException("workspace is closed");
        }
        budget.checkCancelled(op, GuestPath.quote(String.valueOf(path)));
    }

    /** {@code text} as UTF-8, refused when over {@code maxWriteBytes} or not valid Unicode. */
    private byte[] encode(String op, String path, String text) {
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
        return bytes;
    }
}
