package dev.sandjar.bridges.internal;

import dev.sandjar.host.BridgeException;
import dev.sandjar.transport.GuestValues;

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
        throw BridgeException.invalidArgument(
                where + ": " + name + " must be a number, got " + GuestValues.describe(value));
    }

    /** A number as JavaScript prints it: {@code 5}, {@code 2.5}, {@code NaN}, {@code Infinity}. */
    public static String show(double d) {
        if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 1e21) {
            return String.valueOf((long) d);
        }
        return String.valueOf(d);
    }
}
