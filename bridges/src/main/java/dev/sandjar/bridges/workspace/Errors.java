package dev.sandjar.bridges.workspace;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * Builds the {@link WorkspaceException}s operations throw. Every message starts with the operation
 * and the path as the caller wrote it ({@code shown}, already quoted), and in contained mode never
 * names a host path: it is shown to the guest.
 */
final class Errors {
    private Errors() {}

    static WorkspaceException refuse(Code code, String op, String shown, String reason) {
        return new WorkspaceException(code, op + " " + shown + ": " + reason);
    }

    static WorkspaceException tooLarge(
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
