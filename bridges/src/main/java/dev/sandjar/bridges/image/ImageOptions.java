package dev.sandjar.bridges.image;

import dev.sandjar.bridges.internal.CssColor;
import dev.sandjar.bridges.media.MediaException;
import dev.sandjar.host.BridgeException;
import dev.sandjar.transport.GuestValues;
import dev.sandjar.transport.Undefined;
import java.awt.Color;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The options object of one image call: an unknown key is refused (a typo is found at once), a
 * value of the wrong type is a {@code TypeError}, one out of range a {@code MediaError} ({@code
 * INVALID_ARGUMENT}) naming the option, the value and the range. {@code undefined} and {@code null}
 * count as absent.
 */
final class ImageOptions {
    private final String where;
    private final Map<String, Object> values;

    private ImageOptions(String where, Map<String, Object> values) {
        this.where = where;
        this.values = values;
    }

    static ImageOptions of(String where, Map<String, Object> given, Set<String> known) {
        Map<String, Object> values = given == null ? Collections.emptyMap() : given;
        for (String key : values.keySet()) {
            if (!known.contains(key)) {
                throw new MediaException(
                        MediaException.Code.INVALID_ARGUMENT,
                        where
                                + ": unknown option '"
                                + key
                                + "'; the options are "
                                + new TreeSet<>(known));
            }
        }
        return new ImageOptions(where, values);
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

    double number(String key, double fallback, double min, double max) {
        Object v = get(key);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof Long || v instanceof Double)) {
            throw BridgeException.invalidArgument(
                    where
                            + ": option "
                            + key
                            + " must be a number, got "
                            + GuestValues.describe(v));
        }
        double d = ((Number) v).doubleValue();
        if (Double.isNaN(d) || d < min || d > max) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    where
                            + ": option "
                            + key
                            + " must be from "
                            + show(min)
                            + " to "
                            + show(max)
                            + ", got "
                            + show(d));
        }
        return d;
    }

    long integer(String key, long fallback, long min, long max) {
        double d = number(key, fallback, min, max);
        if (d != Math.rint(d)) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    where + ": option " + key + " must be an integer, got " + show(d));
        }
        return (long) d;
    }

    boolean bool(String key) {
        Object v = get(key);
        if (v == null) {
            return false;
        }
        if (!(v instanceof Boolean b)) {
            throw BridgeException.invalidArgument(
                    where
                            + ": option "
                            + key
                            + " must be a boolean, got "
                            + GuestValues.describe(v));
        }
        return b;
    }

    String choice(String key, List<String> choices, String fallback) {
        Object v = get(key);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof String s) || !choices.contains(s)) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    where
                            + ": option "
                            + key
                            + " must be one of "
                            + choices
                            + ", got "
                            + GuestValues.describe(v));
        }
        return s;
    }

    Color color(String key, Color fallback) {
        Object v = get(key);
        if (v == null) {
            return fallback;
        }
        Color c = v instanceof String s ? CssColor.parse(s) : null;
        if (c == null) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    where
                            + ": option "
                            + key
                            + " must be a CSS color ('#ff0000', 'rgba(0,0,0,0.5)', 'white'), got "
                            + GuestValues.describe(v));
        }
        return c;
    }

    String string(String key) {
        Object v = get(key);
        if (v != null && !(v instanceof String)) {
            throw BridgeException.invalidArgument(
                    where
                            + ": option "
                            + key
                            + " must be a string, got "
                            + GuestValues.describe(v));
        }
        return (String) v;
    }

    static String show(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15
                ? String.valueOf((long) d)
                : String.valueOf(d);
    }
}
