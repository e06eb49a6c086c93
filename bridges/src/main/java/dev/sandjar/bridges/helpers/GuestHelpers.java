package dev.sandjar.bridges.helpers;

import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.host.Bridge;

/**
 * The guest helpers: {@code toBase64}, {@code fromBase64}, {@code toHex}, {@code fromHex}, {@code
 * parallelMap}, and {@code TextEncoder}/{@code TextDecoder} (UTF-8) where the engine lacks them.
 * Pure guest code with no host operation behind it, so granting it grants the guest nothing it
 * could not write itself; it only saves every script from writing it. See {@code docs/bridges.md}.
 */
public final class GuestHelpers {
    private static final Bridge BRIDGE =
            Bridge.builder("helpers")
                    .guest(GuestScripts.load(GuestHelpers.class, "helpers.js"))
                    .build();

    private GuestHelpers() {}

    /** The helpers bridge; one immutable instance serves every run. */
    public static Bridge bridge() {
        return BRIDGE;
    }
}
