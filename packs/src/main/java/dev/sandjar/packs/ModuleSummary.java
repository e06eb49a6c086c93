package dev.sandjar.packs;

import java.util.Objects;

/**
 * One importable module, for listings and the one-line disclosure tier. The description comes from
 * manifest fields only, cleaned of control characters and markup and capped at {@value
 * #MAX_DESCRIPTION} characters, so it cannot carry more than a short phrase.
 *
 * @param specifier what code imports
 * @param pack the package that serves it
 * @param version the package's installed version
 * @param kind where its code runs
 * @param description a short, sanitized description (may be empty)
 * @param graphDigest the digest of everything the module's code depends on
 * @param shipped whether the pack ships with Sandjar
 */
public record ModuleSummary(
        String specifier,
        String pack,
        String version,
        PackManifest.Kind kind,
        String description,
        String graphDigest,
        boolean shipped) {
    public static final int MAX_DESCRIPTION = 120;

    public ModuleSummary {
        Objects.requireNonNull(specifier, "specifier");
        Objects.requireNonNull(pack, "pack");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(graphDigest, "graphDigest");
    }

    /** One line: {@code specifier (kind) - description}. */
    public String line() {
        return specifier
                + " ("
                + kind.id()
                + ")"
                + (description.isEmpty() ? "" : " - " + description);
    }

    /** Printable text only, whitespace collapsed, no angle brackets or backticks, capped. */
    static String sanitize(String text) {
        StringBuilder s = new StringBuilder();
        boolean space = false;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            if (Character.isWhitespace(c) || Character.isISOControl(c)) {
                space = s.length() > 0;
                continue;
            }
            int type = Character.getType(c);
            if (c == '<'
                    || c == '>'
                    || c == '`'
                    || type == Character.FORMAT
                    || type == Character.PRIVATE_USE
                    || type == Character.UNASSIGNED
                    || type == Character.SURROGATE) {
                continue;
            }
            if (space) {
                s.append(' ');
                space = false;
            }
            s.appendCodePoint(c);
        }
        if (s.codePointCount(0, s.length()) > MAX_DESCRIPTION) {
            int end = s.offsetByCodePoints(0, MAX_DESCRIPTION - 1);
            return s.substring(0, end).stripTrailing() + "…";
        }
        return s.toString();
    }
}
