package dev.sandjar.bridges.media;

import java.util.Objects;

/**
 * A media ref as the guest wrote it: {@code {type, uri, mimeType?, filename?}}. A handle is a ref
 * whose uri is {@code sandbox://media/<id>}.
 *
 * @param type the declared type, or null when the guest passed a bare uri
 * @param mimeType the declared MIME type, or null
 * @param filename the declared file name, or null
 */
public record MediaRef(MediaType type, String uri, String mimeType, String filename) {
    /** The scheme of handles: {@code sandbox://media/<id>}. */
    public static final String HANDLE_PREFIX = "sandbox://media/";

    public MediaRef {
        Objects.requireNonNull(uri, "uri");
    }

    public boolean isHandle() {
        return uri.startsWith(HANDLE_PREFIX);
    }

    /** The uri's scheme in lower case ({@code data}, {@code https}), or "" for a plain path. */
    public String scheme() {
        int colon = uri.indexOf(':');
        if (colon <= 0) {
            return "";
        }
        String s = uri.substring(0, colon);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok =
                    Character.isLetter(c)
                            || (i > 0
                                    && (Character.isDigit(c) || c == '+' || c == '-' || c == '.'));
            if (!ok || c > 127) {
                return "";
            }
        }
        return s.toLowerCase(java.util.Locale.ROOT);
    }
}
