package dev.sandjar.bridges.internal;

import dev.sandjar.host.BridgeException;
import dev.sandjar.transport.Undefined;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Checks for the bridge arguments the host's {@code Param} types do not cover. Not API.
 *
 * <p>Why numbers are checked here: a {@code Param.number(..).allowNonFinite()} still range-checks
 * infinities against its default bounds and refuses them as a {@code TypeError}, while these
 * bridges owe the guest a {@code RangeError} that states their own limit. So such parameters are
 * declared {@code Param.any} and read with {@link #number}.
 */
public final class Args {
    private Args() {}

    /** The argument as a double, NaN and infinities included; a TypeError for anything else. */
    public static double number(Object value, String where, String name) {
        if (value instanceof Long l) {
            return l;
        }
        if (value instanceof Double d) {
            return d;
        }
        throw new BridgeException(
                "TypeError",
                "INVALID_ARGUMENT",
                where + ": " + name + " must be a number, got " + describe(value));
    }

    /** A number as JavaScript prints it: {@code 5}, {@code 2.5}, {@code NaN}, {@code Infinity}. */
    public static String show(double d) {
        if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 1e21) {
            return String.valueOf((long) d);
        }
        return String.valueOf(d);
    }

    /** What kind of guest value this is, for messages: "a string", "a bigint", "null". */
    public static String describe(Object v) {
        if (v == null) {
            return "null";
        }
        if (v == Undefined.INSTANCE) {
            return "undefined";
        }
        if (v instanceof String) {
            return "a string";
        }
        if (v instanceof Long || v instanceof Double) {
            return "a number";
        }
        if (v instanceof BigInteger) {
            return "a bigint";
        }
        if (v instanceof Boolean) {
            return "a boolean";
        }
        if (v instanceof byte[]) {
            return "a Uint8Array";
        }
        if (v instanceof List) {
            return "an array";
        }
        if (v instanceof Map) {
            return "an object";
        }
        return "a " + v.getClass().getSimpleName();
    }
}
