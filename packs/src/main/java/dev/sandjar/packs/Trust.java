package dev.sandjar.packs;

/**
 * How far a pack's JavaScript is trusted with the run's capabilities (docs/packs.md, "Trust").
 *
 * <p>A {@code TRUSTED} pack's modules see every global the run has, capabilities included, as the
 * user's code does. An {@code UNTRUSTED} pack's modules see the capability globals the catalog
 * withholds ({@link ModuleCatalog.Builder#withheldGlobals}) as {@code undefined}, and {@code
 * globalThis}, {@code self} and {@code global} as a frozen object holding only the standard
 * built-ins, unless the catalog grants the pack some of them by name ({@link
 * ModuleCatalog.Builder#grant}). Sandjar's shipped packs are trusted; a search path's packs are
 * untrusted unless the caller says otherwise.
 */
public enum Trust {
    TRUSTED,
    UNTRUSTED
}
