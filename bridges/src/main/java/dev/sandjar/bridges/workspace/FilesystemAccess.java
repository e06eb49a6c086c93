package dev.sandjar.bridges.workspace;

/** How far a workspace reaches. Host-set only: guest code must never choose it. */
public enum FilesystemAccess {
    /**
     * The default: paths are guest paths under the root, and no path, {@code ..} or symbolic link
     * reaches outside it.
     */
    CONTAINED,
    /**
     * For trusted callers: paths are host paths (relative ones resolve against the root, and {@code
     * ..} is applied lexically first), the OS follows symbolic links, and messages may name host
     * paths. Limits, atomic writes and cancellation still apply.
     */
    HOST
}
