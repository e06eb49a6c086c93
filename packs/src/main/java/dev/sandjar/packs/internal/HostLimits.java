package dev.sandjar.packs.internal;

/**
 * Input caps every host module shares. They belong to the implementations, not to the sandbox: each
 * module declares its parameters with them, so the host refuses an oversized argument before the
 * module's code sees it.
 *
 * <p>Public only so the host modules in sibling {@code internal} packages can use it; no package
 * under {@code dev.sandjar.packs.internal} is API.
 */
public final class HostLimits {
    /** A text argument, in UTF-16 units (5 Mi). */
    public static final int MAX_TEXT_CHARS = 5 << 20;

    /** A bytes argument (10 MiB). */
    public static final int MAX_BYTES = 10 << 20;

    private HostLimits() {}
}
