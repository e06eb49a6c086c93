package dev.sandjar.server;

import java.util.List;

/** How module delivery ids travel in headers. */
final class ModuleIds {
    private ModuleIds() {}

    /**
     * Ids joined by {@code ", "}, each percent-encoded outside {@code A-Z a-z 0-9 @ / : . _ ~ -}
     * (so a comma, a space or a non-ASCII letter in a file name cannot split or break the list).
     */
    static String header(List<String> ids) {
        StringBuilder out = new StringBuilder();
        for (String id : ids) {
            if (out.length() > 0) {
                out.append(", ");
            }
            for (byte b : id.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
                char c = (char) (b & 0xff);
                if ((c >= 'A' && c <= 'Z')
                        || (c >= 'a' && c <= 'z')
                        || (c >= '0' && c <= '9')
                        || "@/:._~-".indexOf(c) >= 0) {
                    out.append(c);
                } else {
                    out.append('%').append(String.format("%02X", b & 0xff));
                }
            }
        }
        return out.toString();
    }

    /** Whether an {@code If-None-Match} value names {@code etag} (or is {@code *}). */
    static boolean matches(String ifNoneMatch, String etag) {
        for (String part : ifNoneMatch.split(",")) {
            String t = part.trim();
            if (t.startsWith("W/")) {
                t = t.substring(2);
            }
            if (t.equals("*") || t.equals(etag)) {
                return true;
            }
        }
        return false;
    }
}
