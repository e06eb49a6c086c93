package dev.sandjar.bridges.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Loads a bridge's guest JavaScript from a resource next to its class. Not API: shared by the
 * bridge packages, which each load their script once, in a static initialiser.
 */
public final class GuestScripts {
    private GuestScripts() {}

    /**
     * The text of {@code name}, resolved against {@code owner}'s package; fails loudly if absent.
     */
    public static String load(Class<?> owner, String name) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(
                        "guest script " + name + " is missing next to " + owner.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read guest script " + name, e);
        }
    }
}
