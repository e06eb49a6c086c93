package dev.sandjar.bridges.format;

import dev.sandjar.host.BridgeException;
import dev.sandjar.transport.GuestValues;
import dev.sandjar.transport.Undefined;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The options object of one format call, read the way {@code Intl} reads it but stricter: an
 * unknown key or a value outside an option's choices is a {@code RangeError} naming the option,
 * what it got and what it takes. An option set to {@code undefined} or {@code null} counts as
 * absent.
 */
final class Options {
    private final String where;
    private final Map<String, Object> values;

    private Options(String where, Map<String, Object> values) {
        this.where = where;
        this.values = values;
    }

    /** {@code given} (null when the guest passed none), checked against the known keys. */
    static Options of(String where, Map<String, Object> given, Set<String> known) {
        Map<String, Object> values = given == null ? Collections.emptyMap() : given;
        for (String key : values.keySet()) {
            if (!known.contains(key)) {
                throw rangeError(
                        where,
                        "INVALID_OPTION",
                        "unknown option '" + key + "'; the options are " + new TreeSet<>(known));
            }
        }
        return new Options(where, values);
    }

    String where() {
        return where;
    }

    boolean has(String key) {
        return get(key) != null;
    }

    private Object get(String key) {
        Object v = values.get(key);
        return v == Undefined.INSTANCE ? null : v;
    }

    /** One of {@code choices}, or {@code fallback} when absent. */
    String choice(String key, List<String> choices, String fallback) {
        Object v = get(key);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof String s) || !choices.contains(s)) {
            throw rangeError(
                    where,
                    "INVALID_OPTION",
                    "option "
                            + key
                            + " must be one of "
                            + quoted(choices)
                            + ", got "
                            + describe(v));
        }
        return s;
    }

    /** A string matching nothing in particular; the caller validates it. */
    String string(String key) {
        Object v = get(key);
        if (v == null) {
            return null;
        }
        if (!(v instanceof String s)) {
            throw rangeError(
                    where,
                    "INVALID_OPTION",
                    "option " + key + " must be a string, got " + describe(v));
        }
        return s;
    }

    /** An integer from {@code min} to {@code max}, or null when absent. */
    Integer integer(String key, int min, int max) {
        Object v = get(key);
        if (v == null) {
            return null;
        }
        double d =
                v instanceof Long l
                        ? l
                        : v instanceof Double x ? x : Double.NaN; // anything else fails below
        if (!(v instanceof Long || v instanceof Double)
                || d != Math.floor(d)
                || d < min
                || d > max) {
            throw rangeError(
                    where,
                    "INVALID_OPTION",
                    "option "
                            + key
                            + " must be an integer from "
                            + min
                            + " to "
                            + max
                            + ", got "
                            + describe(v));
        }
        return (int) d;
    }

    Boolean bool(String key) {
        Object v = get(key);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Boolean b)) {
            throw rangeError(
                    where,
                    "INVALID_OPTION",
                    "option " + key + " must be true or false, got " + describe(v));
        }
        return b;
    }

    /** The raw value, for options that take more than one type. */
    Object raw(String key) {
        return get(key);
    }

    static BridgeException rangeError(String where, String code, String message) {
        return new BridgeException("RangeError", code, where + ": " + message);
    }

    static BridgeException typeError(String where, String message) {
        return BridgeException.invalidArgument(where + ": " + message);
    }

    static String quoted(List<String> choices) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < choices.size(); i++) {
            b.append(i == 0 ? "" : i == choices.size() - 1 ? " or " : ", ");
            b.append('\'').append(choices.get(i)).append('\'');
        }
        return b.toString();
    }

    /** An option's value for a message: short strings and numbers as they are, else its kind. */
    static String describe(Object v) {
        if (v instanceof String s) {
            return "'" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "'";
        }
        if (v instanceof Long || v instanceof Boolean) {
            return String.valueOf(v);
        }
        if (v instanceof Double d) {
            return d == Math.rint(d) && !d.isInfinite()
                    ? String.valueOf(d.longValue())
                    : String.valueOf(d);
        }
        return GuestValues.describe(v);
    }
}
