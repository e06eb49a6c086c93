package dev.sandjar.bridges.canvas;

import dev.sandjar.bridges.media.MediaException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a canvas recording as the guest sends it: {@code JSON.stringify} of an array of operations,
 * each an array of strings, numbers, booleans, nulls and nested arrays (no objects). One long
 * string crosses the transport far faster than thousands of small arrays. Numbers become {@code
 * Double}, {@code null} (a non-finite number) stays null.
 */
final class OpsJson {
    private final String s;
    private int i;

    private OpsJson(String s) {
        this.s = s;
    }

    static List<Object> parse(String json) {
        OpsJson p = new OpsJson(json);
        Object v = p.value(0);
        p.space();
        if (!(v instanceof List<?>) || p.i != json.length()) {
            throw bad();
        }
        @SuppressWarnings("unchecked")
        List<Object> list = (List<Object>) v;
        return list;
    }

    private Object value(int depth) {
        if (depth > 8) {
            throw bad();
        }
        space();
        if (i >= s.length()) {
            throw bad();
        }
        char c = s.charAt(i);
        switch (c) {
            case '[' -> {
                i++;
                List<Object> out = new ArrayList<>();
                space();
                if (peek(']')) {
                    i++;
                    return out;
                }
                while (true) {
                    out.add(value(depth + 1));
                    space();
                    if (peek(',')) {
                        i++;
                    } else if (peek(']')) {
                        i++;
                        return out;
                    } else {
                        throw bad();
                    }
                }
            }
            case '"' -> {
                return string();
            }
            case 't' -> {
                return literal("true", Boolean.TRUE);
            }
            case 'f' -> {
                return literal("false", Boolean.FALSE);
            }
            case 'n' -> {
                return literal("null", null);
            }
            default -> {
                int start = i;
                while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                    i++;
                }
                try {
                    return Double.parseDouble(s.substring(start, i));
                } catch (NumberFormatException e) {
                    throw bad();
                }
            }
        }
    }

    private Object literal(String word, Object value) {
        if (!s.startsWith(word, i)) {
            throw bad();
        }
        i += word.length();
        return value;
    }

    private String string() {
        StringBuilder b = new StringBuilder();
        i++;
        while (i < s.length()) {
            char c = s.charAt(i++);
            if (c == '"') {
                return b.toString();
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (i >= s.length()) {
                throw bad();
            }
            char e = s.charAt(i++);
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    if (i + 4 > s.length()) {
                        throw bad();
                    }
                    try {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    } catch (NumberFormatException x) {
                        throw bad();
                    }
                    i += 4;
                }
                default -> throw bad();
            }
        }
        throw bad();
    }

    private boolean peek(char c) {
        return i < s.length() && s.charAt(i) == c;
    }

    private void space() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }

    private static MediaException bad() {
        return new MediaException(
                MediaException.Code.INVALID_ARGUMENT, "canvas: the recording is not well-formed");
    }
}
