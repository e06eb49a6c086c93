package dev.sandjar.packs.internal;

import dev.sandjar.host.OperationCall;
import dev.sandjar.transport.BinaryValue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Argument helpers the host modules share: text given as a string or as UTF-8 bytes, and an options
 * object whose unknown keys are refused (a typo must not be silently ignored), each value checked
 * where it is read with a message naming the option and its bound.
 *
 * <p>Public only for the modules in sibling {@code internal} packages; not API.
 */
public final class HostArgs {
    private HostArgs() {}

    /**
     * Argument {@code i} (declared {@code Param.any}) as text: a string of at most {@link
     * HostLimits#MAX_TEXT_CHARS} characters, or a {@code Uint8Array} of at most {@link
     * HostLimits#MAX_BYTES} bytes of UTF-8 (a byte order mark is dropped).
     */
    public static String text(OperationCall call, int i, String name) {
        Object v = call.arg(i);
        if (v instanceof String s) {
            if (s.length() > HostLimits.MAX_TEXT_CHARS) {
                throw HostWork.tooLarge(
                        call.where(),
                        name
                                + " is "
                                + s.length()
                                + " characters; at most "
                                + HostLimits.MAX_TEXT_CHARS);
            }
            return s;
        }
        byte[] b = bytesOrNull(v);
        if (b == null) {
            throw HostWork.invalid(call.where(), name + " must be a string or a Uint8Array");
        }
        if (b.length > HostLimits.MAX_BYTES) {
            throw HostWork.tooLarge(
                    call.where(),
                    name + " is " + b.length + " bytes; at most " + HostLimits.MAX_BYTES);
        }
        String s = new String(b, StandardCharsets.UTF_8);
        return s.startsWith("\uFEFF") ? s.substring(1) : s;
    }

    /** {@code v} as bytes when it is a {@code Uint8Array} or an {@code ArrayBuffer}, else null. */
    public static byte[] bytesOrNull(Object v) {
        if (v instanceof byte[] b) {
            return b;
        }
        if (v instanceof BinaryValue bv && bv.kind().equals("ArrayBuffer")) {
            return bv.bytes();
        }
        return null;
    }

    /** An options object: argument {@code i} (declared optional {@code Param.object}). */
    public static Options options(OperationCall call, int i, String... allowed) {
        Map<String, Object> map = call.arg(i) == null ? Map.of() : call.object(i);
        Set<String> known = Set.of(allowed);
        for (String key : map.keySet()) {
            if (!known.contains(key)) {
                throw HostWork.invalid(
                        call.where(),
                        "options."
                                + key
                                + " is not an option ("
                                + String.join(", ", new TreeSet<>(known))
                                + ")");
            }
        }
        return new Options(call.where(), map);
    }

    /** A checked view of an options object. */
    public static final class Options {
        private final String where;
        private final Map<String, Object> map;

        Options(String where, Map<String, Object> map) {
            this.where = where;
            this.map = map;
        }

        public boolean has(String key) {
            return map.get(key) != null;
        }

        public Object raw(String key) {
            return map.get(key);
        }

        public boolean bool(String key, boolean fallback) {
            Object v = map.get(key);
            if (v == null) {
                return fallback;
            }
            if (!(v instanceof Boolean b)) {
                throw HostWork.invalid(where, "options." + key + " must be a boolean");
            }
            return b;
        }

        public String string(String key, String fallback, int maxLength) {
            Object v = map.get(key);
            if (v == null) {
                return fallback;
            }
            if (!(v instanceof String s) || s.length() > maxLength) {
                throw HostWork.invalid(
                        where,
                        "options." + key + " must be a string of at most " + maxLength + " chars");
            }
            return s;
        }

        /** One of {@code choices}. */
        public String choice(String key, String fallback, List<String> choices) {
            String s = string(key, fallback, 64);
            if (!choices.contains(s)) {
                throw HostWork.invalid(
                        where, "options." + key + " must be one of " + String.join(", ", choices));
            }
            return s;
        }

        /** A single character, not a line break. */
        public char character(String key, char fallback) {
            Object v = map.get(key);
            if (v == null) {
                return fallback;
            }
            if (!(v instanceof String s)
                    || s.length() != 1
                    || s.charAt(0) == '\n'
                    || s.charAt(0) == '\r') {
                throw HostWork.invalid(
                        where, "options." + key + " must be one character, not a line break");
            }
            return s.charAt(0);
        }

        public long integer(String key, long fallback, long min, long max) {
            Object v = map.get(key);
            if (v == null) {
                return fallback;
            }
            long l;
            if (v instanceof Long x) {
                l = x;
            } else if (v instanceof Double d && d == Math.rint(d) && Math.abs(d) < 9e18) {
                l = d.longValue();
            } else {
                throw HostWork.invalid(
                        where, "options." + key + " must be an integer from " + min + " to " + max);
            }
            if (l < min || l > max) {
                throw HostWork.invalid(
                        where, "options." + key + " must be an integer from " + min + " to " + max);
            }
            return l;
        }
    }
}
