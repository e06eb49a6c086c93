package dev.sandjar.packs;

/**
 * Input caps every host module shares. They belong to the implementations, not to the sandbox: each
 * module declares its parameters with them, so the host refuses an oversized argument before the
 * module's code sees it.
 */
final class HostLimits {
    /** A text argument, in UTF-16 units (5 Mi). */
    static final int MAX_TEXT_CHARS = 5 << 20;

    /** A bytes argument (10 MiB). */
    static final int MAX_BYTES = 10 << 20;

    private HostLimits() {}
}
