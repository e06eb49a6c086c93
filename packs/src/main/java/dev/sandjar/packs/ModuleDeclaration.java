package dev.sandjar.packs;

import java.util.Objects;

/**
 * One module a run asks for: its specifier, and optionally the pack version and graph digest the
 * caller last saw. Resolution always uses what is installed; a version or digest that moved since
 * is a warning, never a failure and never an upgrade.
 *
 * @param specifier what the code imports, for example {@code @acme/geo} or {@code @acme/geo/extra}
 * @param expectedVersion the pack version the caller recorded, or null
 * @param expectedDigest the graph digest the caller recorded, or null
 */
public record ModuleDeclaration(String specifier, String expectedVersion, String expectedDigest) {
    public ModuleDeclaration {
        Objects.requireNonNull(specifier, "specifier");
    }

    public static ModuleDeclaration of(String specifier) {
        return new ModuleDeclaration(specifier, null, null);
    }
}
