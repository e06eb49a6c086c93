package dev.sandjar.bridges.workspace;

import dev.sandjar.host.SandjarException;

/**
 * A workspace operation was refused or failed. {@link #code()} is stable and meant for machines
 * (the bridge maps it to the guest's error); the message names the operation, the guest path and,
 * where one applies, the limit and its value. In contained mode the message never names a host
 * path, so it is safe to show the guest. {@link #getCause()}, when present, is the underlying
 * {@link java.io.IOException} for host logs only: it may name host paths.
 */
public final class WorkspaceException extends SandjarException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, grouped by what a caller does about it. */
    public enum Code {
        /** The path is malformed: empty, NUL, backslash, empty component, too long. */
        INVALID_PATH,
        /** The path leaves the workspace root ({@code ..} past the root, another absolute path). */
        OUTSIDE_ROOT,
        /** The path goes through or names a symbolic link, which contained mode never follows. */
        SYMLINK,
        NOT_FOUND,
        EXISTS,
        NOT_A_DIRECTORY,
        IS_A_DIRECTORY,
        /** Neither a regular file nor a directory (a FIFO, socket or device). */
        NOT_A_FILE,
        NOT_EMPTY,
        /** Read bytes are not valid UTF-8, or written text is not valid Unicode. */
        INVALID_TEXT,
        /** One read, write or copy is over its per-operation size cap. */
        TOO_LARGE,
        /** A per-run total, the list entry cap or the tree depth cap is exhausted. */
        LIMIT,
        /**
         * The workspace would hold more entries or bytes than its quota ({@code
         * maxWorkspaceEntries}, {@code maxWorkspaceBytes}); nothing was written.
         */
        QUOTA,
        /** The run's cancellation hook fired. */
        CANCELLED,
        /** Anything else the filesystem refused (permissions, no space, a mount point). */
        IO
    }

    private final Code code;

    WorkspaceException(Code code, String message) {
        this(code, message, null);
    }

    WorkspaceException(Code code, String message, Throwable cause) {
        // Cancellation is control flow: skip the stack trace, as the engine's interrupts do.
        super(message, cause, code != Code.CANCELLED);
        this.code = code;
    }

    public Code code() {
        return code;
    }
}
