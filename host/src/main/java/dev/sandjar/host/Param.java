package dev.sandjar.host;

import dev.sandjar.transport.BinaryValue;
import dev.sandjar.transport.GuestValues;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One declared parameter of an {@link Operation}: a name for messages, a type, whether it may be
 * left out, and bounds. Immutable; {@code Param.string("path").maxLength(4096)}.
 *
 * <p>Checked argument forms (what {@link OperationCall#arg(int)} then holds): {@code STRING} a
 * {@code String}; {@code NUMBER} a {@code Double} or {@code Long} (NaN and infinities refused
 * unless {@link #allowNonFinite()}); {@code INTEGER} a {@code Long} (an integral number); {@code
 * BOOLEAN} a {@code Boolean}; {@code BYTES} a {@code byte[]} (from a {@code Uint8Array} or an
 * {@code ArrayBuffer}); {@code OBJECT} a {@code Map<String, Object>} (a plain object); {@code
 * ARRAY} a {@code List}; {@code ANY} whatever the transport decoded. An optional parameter that is
 * absent, {@code undefined} or {@code null} is {@code null}.
 */
public final class Param {
    public enum Type {
        STRING,
        NUMBER,
        INTEGER,
        BOOLEAN,
        BYTES,
        OBJECT,
        ARRAY,
        ANY
    }

    private final String name;
    private final Type type;
    private final boolean optional;
    private final long min;
    private final long max;
    private final boolean nonFinite;
    private final boolean ranged;

    private Param(
            String name,
            Type type,
            boolean optional,
            long min,
            long max,
            boolean nonFinite,
            boolean ranged) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = type;
        this.optional = optional;
        this.min = min;
        this.max = max;
        this.nonFinite = nonFinite;
        this.ranged = ranged;
    }

    private static Param of(String name, Type type) {
        long min = type == Type.INTEGER || type == Type.NUMBER ? Long.MIN_VALUE : 0;
        return new Param(name, type, false, min, Long.MAX_VALUE, false, false);
    }

    public static Param string(String name) {
        return of(name, Type.STRING);
    }

    public static Param number(String name) {
        return of(name, Type.NUMBER);
    }

    public static Param integer(String name) {
        return of(name, Type.INTEGER);
    }

    public static Param bool(String name) {
        return of(name, Type.BOOLEAN);
    }

    public static Param bytes(String name) {
        return of(name, Type.BYTES);
    }

    public static Param object(String name) {
        return of(name, Type.OBJECT);
    }

    public static Param array(String name) {
        return of(name, Type.ARRAY);
    }

    public static Param any(String name) {
        return of(name, Type.ANY);
    }

    /** May be absent, {@code undefined} or {@code null}. */
    public Param optional() {
        return new Param(name, type, true, min, max, nonFinite, ranged);
    }

    /** For STRING (UTF-16 units), BYTES, ARRAY (items) and OBJECT (keys): the largest size. */
    public Param maxLength(long n) {
        if (type == Type.NUMBER || type == Type.INTEGER || type == Type.BOOLEAN || n < 0) {
            throw new InvalidRequestException("maxLength does not apply to " + type + " " + name);
        }
        return new Param(name, type, optional, min, n, nonFinite, ranged);
    }

    /** For INTEGER and NUMBER: the inclusive range. */
    public Param range(long min, long max) {
        if ((type != Type.INTEGER && type != Type.NUMBER) || min > max) {
            throw new InvalidRequestException("bad range for " + type + " " + name);
        }
        return new Param(name, type, optional, min, max, nonFinite, true);
    }

    /** For NUMBER: accept NaN and the infinities. */
    public Param allowNonFinite() {
        if (type != Type.NUMBER) {
            throw new InvalidRequestException("allowNonFinite applies to NUMBER only");
        }
        return new Param(name, type, optional, min, max, true, ranged);
    }

    public String name() {
        return name;
    }

    public Type type() {
        return type;
    }

    public boolean isOptional() {
        return optional;
    }

    /**
     * The checked form of {@code value}; throws {@link BridgeException} (a guest {@code TypeError})
     * naming the argument when it does not fit. {@code value} is {@code null} for absent.
     */
    Object check(String where, int index, Object value) {
        if (value == null || value == dev.sandjar.transport.Undefined.INSTANCE) {
            if (optional) {
                return null;
            }
            throw invalid(where, index, "is required", value);
        }
        switch (type) {
            case STRING -> {
                if (!(value instanceof String s)) {
                    throw invalid(where, index, "must be a string", value);
                }
                if (s.length() > max) {
                    throw invalid(
                            where, index, "is " + s.length() + " characters; at most " + max, null);
                }
                return s;
            }
            case NUMBER -> {
                if (!(value instanceof Long || value instanceof Double)) {
                    throw invalid(where, index, "must be a number", value);
                }
                double d = ((Number) value).doubleValue();
                if (!nonFinite && (Double.isNaN(d) || Double.isInfinite(d))) {
                    throw invalid(where, index, "must be a finite number", value);
                }
                if (ranged && !Double.isNaN(d) && (d < min || d > max)) {
                    throw invalid(where, index, "must be between " + min + " and " + max, value);
                }
                return value;
            }
            case INTEGER -> {
                long l;
                if (value instanceof Long v) {
                    l = v;
                } else if (value instanceof Double d && d == Math.rint(d) && Math.abs(d) < 9e18) {
                    l = d.longValue(); // -0 and integral doubles
                } else {
                    throw invalid(where, index, "must be an integer", value);
                }
                if (l < min || l > max) {
                    throw invalid(where, index, "must be between " + min + " and " + max, value);
                }
                return l;
            }
            case BOOLEAN -> {
                if (!(value instanceof Boolean)) {
                    throw invalid(where, index, "must be a boolean", value);
                }
                return value;
            }
            case BYTES -> {
                byte[] b;
                if (value instanceof byte[] bytes) {
                    b = bytes;
                } else if (value instanceof BinaryValue bv && bv.kind().equals("ArrayBuffer")) {
                    b = bv.bytes();
                } else {
                    throw invalid(where, index, "must be a Uint8Array or ArrayBuffer", value);
                }
                if (b.length > max) {
                    throw invalid(where, index, "is " + b.length + " bytes; at most " + max, null);
                }
                return b;
            }
            case OBJECT -> {
                if (!(value instanceof Map<?, ?> m)
                        || value instanceof dev.sandjar.transport.JsMap) {
                    throw invalid(where, index, "must be a plain object", value);
                }
                if (m.size() > max) {
                    throw invalid(where, index, "has " + m.size() + " keys; at most " + max, null);
                }
                return value;
            }
            case ARRAY -> {
                if (!(value instanceof List<?> l)) {
                    throw invalid(where, index, "must be an array", value);
                }
                if (l.size() > max) {
                    throw invalid(where, index, "has " + l.size() + " items; at most " + max, null);
                }
                return value;
            }
            case ANY -> {
                return value;
            }
        }
        throw new AssertionError(type);
    }

    private BridgeException invalid(String where, int index, String what, Object value) {
        String got = value == null ? "" : ", got " + GuestValues.describe(value);
        return BridgeException.invalidArgument(
                where + ": argument " + (index + 1) + " (" + name + ") " + what + got);
    }

    @Override
    public String toString() {
        return name + ":" + type.name().toLowerCase(java.util.Locale.ROOT) + (optional ? "?" : "");
    }
}
