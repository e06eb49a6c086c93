package dev.sandjar.bridges.workspace;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;

/**
 * Where one operand of an operation lives: an open handle on its parent directory and its name in
 * that directory ({@code "."} for the root itself). Every later system call on the operand is made
 * relative to {@link #dir}, so nothing can be swapped underneath it between resolution and use.
 */
final class Location implements AutoCloseable {
    /** The directory that holds {@link #name}; for the root, the root itself. */
    final SecureDirectoryStream<Path> dir;

    /** One path component, or {@code "."} when the operand is {@link #dir} itself. */
    final Path name;

    /** The path as the caller wrote it, quoted, for the start of messages. */
    final String shown;

    /**
     * The canonical spelling for the body of messages: a guest path, or a host path in host mode.
     */
    final String subject;

    /** Compares operands (same, or one inside the other); in contained mode a virtual path. */
    final Path key;

    /** Where new directories are staged before they are renamed into place. */
    final Staging staging;

    private final boolean ownsDir;

    Location(
            SecureDirectoryStream<Path> dir,
            Path name,
            String shown,
            String subject,
            Path key,
            Staging staging,
            boolean ownsDir) {
        this.dir = dir;
        this.name = name;
        this.shown = shown;
        this.subject = subject;
        this.key = key;
        this.staging = staging;
        this.ownsDir = ownsDir;
    }

    boolean isRoot() {
        return name.toString().equals(".");
    }

    @Override
    public void close() {
        if (ownsDir) {
            closeQuietly(dir);
        }
    }

    /** For handles whose close cannot lose data: directory handles and abandoned channels. */
    static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // Nothing was written through it that a failed close could lose.
        }
    }

    /**
     * A directory with both a host path and an open handle on the same inode. A new directory is
     * made there by path (one component below a trusted path, so the kernel follows nothing) and
     * then renamed through handles to where it belongs: {@link SecureDirectoryStream} has no {@code
     * mkdirat}.
     */
    record Staging(Path hostPath, SecureDirectoryStream<Path> dir) {}
}
