package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Errors.refuse;
import static dev.sandjar.bridges.workspace.Errors.tooLarge;
import static dev.sandjar.bridges.workspace.Resolver.NOFOLLOW;
import static dev.sandjar.bridges.workspace.Resolver.lstatOrNull;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystem;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * Replaces a file whole or not at all. The new content goes to a temporary file ({@code
 * .sandjar-*.tmp}) created exclusively ({@code O_CREAT|O_EXCL}, no link followed) in the target's
 * directory, which is then renamed over the target through the directory handle. A failed or
 * cancelled write leaves the old file as it was and no temporary file. A replaced file keeps its
 * permission bits (less the umask). Writes are not fsynced.
 */
final class AtomicWriter {
    /** Starts the name of every temporary file and staging directory this package makes. */
    static final String TEMP_PREFIX = ".sandjar-";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Resolver resolver;
    private final WorkspaceLimits limits;
    private final Budget budget;
    private final Quota quota;

    AtomicWriter(Resolver resolver, WorkspaceLimits limits, Budget budget, Quota quota) {
        this.resolver = resolver;
        this.limits = limits;
        this.budget = budget;
        this.quota = quota;
    }

    /** What goes into the temporary file before it is renamed into place. */
    interface Body {
        void write(SeekableByteChannel out) throws IOException;
    }

    /**
     * Replaces (or creates) the file at {@code raw} with {@code data}. Checked against {@code
     * maxWriteBytes} and charged to the run's write total before anything is written.
     */
    void write(String op, String raw, byte[] data) throws IOException {
        try (Location loc = resolver.locate(op, raw)) {
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
                resolver.requireFile(op, loc, old);
            }
            Set<PosixFilePermission> perms = old == null ? null : permissionsOf(loc.dir, loc.name);
            try (Quota.Charge charge = quota.charge(op, loc.shown)) {
                // A rewrite counts only its growth: one that shrinks a file passes at the quota.
                charge.add(old == null ? 1 : 0, data.length - (old == null ? 0 : old.size()));
                budget.chargeWrite(op, loc.shown, data.length);
                replace(
                        op,
                        loc,
                        perms,
                        out -> {
                            for (int off = 0; off < data.length; off += Budget.CHUNK) {
                                budget.checkCancelled(op, loc.shown);
                                writeFully(
                                        out,
                                        ByteBuffer.wrap(
                                                data,
                                                off,
                                                Math.min(Budget.CHUNK, data.length - off)));
                            }
                        });
                charge.commit();
            }
        }
    }

    /**
     * Writes a new file next to {@code loc} and renames it over {@code loc}; on any failure,
     * cancellation included, the temporary file is deleted and {@code loc} is untouched.
     */
    void replace(String op, Location loc, Set<PosixFilePermission> perms, Body body)
            throws IOException {
        Path temp = null;
        SeekableByteChannel out = null;
        for (int attempt = 0; out == null; attempt++) {
            temp = tempName(resolver.fileSystem(), ".tmp");
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
                throw resolver.failure(op, loc, e);
            }
            placed = true;
        } finally {
            if (!placed) {
                deleteQuietly(loc.dir, temp);
            }
        }
    }

    /** A fresh, unguessable name for a temporary file or staging directory. */
    static Path tempName(FileSystem fs, String suffix) {
        return fs.getPath(TEMP_PREFIX + randomHex() + suffix);
    }

    /** Creates {@code name} in {@code dir}, exclusively and without following a link. */
    static SeekableByteChannel createFile(
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

    /** The permission bits of {@code name}, or null where there are none to keep. */
    static Set<PosixFilePermission> permissionsOf(SecureDirectoryStream<Path> dir, Path name) {
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

    static void writeFully(SeekableByteChannel out, ByteBuffer buf) throws IOException {
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
}
