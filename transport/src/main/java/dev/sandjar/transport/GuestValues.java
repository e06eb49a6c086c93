package dev.sandjar.transport;

import java.math.BigInteger;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Java forms a guest value takes on the host, and the one way messages name them.
 *
 * <p>A guest value becomes: {@code null}, {@link Undefined}, {@link Boolean}, {@link Long}
 * (integral numbers within ±2^53) or {@link Double}, {@link String}, {@link BigInteger} (a bigint),
 * {@link Instant} (a Date), {@code byte[]} (a Uint8Array), {@link BinaryValue} (other binary),
 * {@link List} (an array), {@code Map<String, Object>} (a plain object, in insertion order), {@link
 * JsMap} (a Map), {@link Set} (a Set), {@link JsRegExp} and {@link JsErrorValue}. These are what a
 * run's value, its synced globals and a bridge operation's arguments hold.
 */
public final class GuestValues {
    private GuestValues() {}

    /**
     * What kind of guest value {@code v} is, in JavaScript's words and with an article, for
     * messages: {@code "a string"}, {@code "a bigint"}, {@code "an object"}, {@code "a Map"},
     * {@code "null"}, {@code "undefined"}. Never the value itself, which may be long or secret.
     */
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
        if (v instanceof Long
                || v instanceof Double
                || v instanceof Integer
                || v instanceof Float
                || v instanceof Short
                || v instanceof Byte) {
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
        if (v instanceof BinaryValue b) {
            return (b.kind().startsWith("A") ? "an " : "a ") + b.kind();
        }
        if (v instanceof Instant) {
            return "a Date";
        }
        if (v instanceof JsRegExp) {
            return "a RegExp";
        }
        if (v instanceof JsErrorValue) {
            return "an Error";
        }
        if (v instanceof List) {
            return "an array";
        }
        if (v instanceof JsMap) {
            return "a Map";
        }
        if (v instanceof Map) {
            return "an object";
        }
        if (v instanceof Set) {
            return "a Set";
        }
        return "a Java " + v.getClass().getSimpleName();
    }
}
