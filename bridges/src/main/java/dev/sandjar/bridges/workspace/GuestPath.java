package dev.sandjar.bridges.workspace;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.util.ArrayList;
import java.util.List;

/**
 * A contained guest path, validated and normalized to its names under the root. Parsing is purely
 * lexical; nothing here touches the filesystem.
 *
 * <p>The rules: paths are {@code /}-separated. A relative path is relative to the root. The only
 * absolute paths are {@value Workspace#GUEST_ROOT} and paths under it, so no spelling names a host
 * path; any other absolute path is {@code OUTSIDE_ROOT}. {@code .} is dropped and {@code ..}
 * removes the previous name; a {@code ..} with nothing left to remove is {@code OUTSIDE_ROOT}.
 * Because links are never followed, this lexical reading is also what the filesystem sees. One
 * trailing {@code /} is allowed; other empty components, backslashes, NUL, text that is not valid
 * Unicode, paths over {@value #MAX_PATH_BYTES} UTF-8 bytes and names over {@value #MAX_NAME_BYTES}
 * are {@code INVALID_PATH}. The empty string is invalid; {@code .} is the root.
 */
final class GuestPath {
    static final int MAX_PATH_BYTES = 4096;
    static final int MAX_NAME_BYTES = 255;
    private static final int SHOWN_CHARS = 200;

    private final List<String> names;

    private GuestPath(List<String> names) {
        this.names = List.copyOf(names);
    }

    /** Validates {@code raw}; failures name {@code op} and the path as the guest wrote it. */
    static GuestPath parse(String op, String raw) {
        checkCommon(op, raw);
        String rest = raw;
        if (rest.startsWith("/")) {
            if (!rest.equals(Workspace.GUEST_ROOT)
                    && !rest.startsWith(Workspace.GUEST_ROOT + "/")) {
                throw refuse(
                        Code.OUTSIDE_ROOT,
                        op,
                        raw,
                        "absolute paths must start with " + Workspace.GUEST_ROOT);
            }
            rest = rest.substring(Workspace.GUEST_ROOT.length());
            if (rest.startsWith("/")) {
                rest = rest.substring(1);
            }
        }
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        List<String> names = new ArrayList<>();
        if (rest.isEmpty()) {
            return new GuestPath(names);
        }
        for (String name : rest.split("/", -1)) {
            if (name.isEmpty()) {
                throw refuse(Code.INVALID_PATH, op, raw, "empty path component");
            }
            if (utf8Length(name) > MAX_NAME_BYTES) {
                throw refuse(
                        Code.INVALID_PATH,
                        op,
                        raw,
                        "a name is over " + MAX_NAME_BYTES + " bytes (UTF-8)");
            }
            if (name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                if (names.isEmpty()) {
                    throw refuse(Code.OUTSIDE_ROOT, op, raw, "'..' leaves the workspace root");
                }
                names.remove(names.size() - 1);
                continue;
            }
            names.add(name);
        }
        return new GuestPath(names);
    }

    /** The checks both modes share: present, not empty, no NUL, valid Unicode, not too long. */
    static void checkCommon(String op, String raw) {
        if (raw == null) {
            throw new WorkspaceException(Code.INVALID_PATH, op + ": path is required");
        }
        if (raw.isEmpty()) {
            throw refuse(Code.INVALID_PATH, op, raw, "path is empty");
        }
        if (raw.length() > MAX_PATH_BYTES) { // UTF-8 never has fewer bytes than UTF-16 units
            throw refuse(Code.INVALID_PATH, op, raw, "path is over " + MAX_PATH_BYTES + " bytes");
        }
        if (raw.indexOf('\0') >= 0) {
            throw refuse(Code.INVALID_PATH, op, raw, "path contains NUL");
        }
        if (raw.indexOf('\\') >= 0) {
            throw refuse(Code.INVALID_PATH, op, raw, "path contains a backslash; use '/'");
        }
        int bytes = utf8Length(raw);
        if (bytes < 0) {
            throw refuse(Code.INVALID_PATH, op, raw, "path is not valid Unicode");
        }
        if (bytes > MAX_PATH_BYTES) {
            throw refuse(
                    Code.INVALID_PATH,
                    op,
                    raw,
                    "path is " + bytes + " bytes (UTF-8), over " + MAX_PATH_BYTES);
        }
    }

    boolean isRoot() {
        return names.isEmpty();
    }

    List<String> names() {
        return names;
    }

    /** The canonical guest spelling of the first {@code count} names. */
    String prefix(int count) {
        StringBuilder sb = new StringBuilder(Workspace.GUEST_ROOT);
        for (int i = 0; i < count; i++) {
            sb.append('/').append(names.get(i));
        }
        return sb.toString();
    }

    String canonical() {
        return prefix(names.size());
    }

    /** A path quoted for a message: control characters escaped, long paths cut. */
    static String quote(String path) {
        StringBuilder sb = new StringBuilder("\"");
        int end = Math.min(path.length(), SHOWN_CHARS);
        for (int i = 0; i < end; i++) {
            char c = path.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (end < path.length()) {
            sb.append("...");
        }
        return sb.append('"').toString();
    }

    static WorkspaceException refuse(Code code, String op, String path, String reason) {
        return new WorkspaceException(code, op + " " + quote(path) + ": " + reason);
    }

    /**
     * The UTF-8 length of {@code s}, or -1 when it holds an unpaired surrogate. Counted without
     * encoding, so a huge guest string costs no allocation.
     */
    static int utf8Length(String s) {
        int bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                return -1;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
