package dev.sandjar.transport.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sandjar.transport.BinaryValue;
import dev.sandjar.transport.JsErrorValue;
import dev.sandjar.transport.JsMap;
import dev.sandjar.transport.JsRegExp;
import dev.sandjar.transport.Undefined;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The host half of the value codec: JSON text plus a sidecar of byte arrays and long strings (wire
 * format: docs/transport.md). Its guest half is {@link #guestSource()}. Thread-safe and stateless.
 *
 * <p>Decoded Java values: {@code null}, {@link Boolean}, {@link Long} (integral numbers within
 * ±2^53) or {@link Double}, {@link String}, {@link List}, {@code Map<String, Object>} (plain
 * objects, insertion order), {@link JsMap}, {@link Set}, {@link BigInteger}, {@link Instant} (an
 * invalid {@code Date} decodes to {@code null}), {@link JsRegExp}, {@link JsErrorValue}, {@code
 * byte[]} (a {@code Uint8Array}), {@link BinaryValue} (other binary), {@link Undefined}.
 */
public final class Transport {
    /** Strings longer than this many UTF-16 units travel in the sidecar. */
    public static final int LONG_STRING = 8192;

    /** Nesting deeper than this fails, naming the path. */
    public static final int MAX_DEPTH = 32;

    static final String MARK = "$sj";
    private static final long MAX_SAFE_INTEGER = (1L << 53) - 1;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String GUEST_SOURCE = loadGuestSource();

    private Transport() {}

    /**
     * The encoded form: JSON text and the sidecar it refers to by index. Each sidecar entry is a
     * {@code byte[]} (binary data) or a {@code String} (a string longer than {@link #LONG_STRING}
     * units); the sandbox moves both straight through guest memory, never as escaped JSON.
     */
    public record Encoded(String json, List<Object> sidecar) {}

    /** The guest codec script; its completion value is {@code {encode, decode}}. */
    public static String guestSource() {
        return GUEST_SOURCE;
    }

    private static String loadGuestSource() {
        try (InputStream in = Transport.class.getResourceAsStream("codec.js")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("transport codec.js is missing from the jar", e);
        }
    }

    // ---------------------------------------------------------------------------------------
    // The binary fast path (docs/transport.md "Binary path").

    /**
     * A guest value read from the engine's binary format: the value, an upper bound of its size
     * under the JSON codec (the output limit's measure), and the prototype-check plan
     * (little-endian int32s) the guest codec's {@code protoCheck} must accept before the value may
     * be used.
     */
    public record Binary(Object value, long jsonSizeBound, byte[] plan) {}

    /**
     * The value in the engine's binary object format ({@code JS_ReadObject} input) when it is plain
     * data (null, booleans, numbers, strings, lists, String-keyed maps, {@link Undefined}); null
     * when it needs {@link #encode} (which also reports every error, naming the path).
     */
    public static byte[] encodeBinary(Object value) {
        return BinaryFormat.write(value);
    }

    /**
     * Reads the engine's {@code JS_WriteObject} output when it is plain data whose meaning under
     * the JSON codec is provably the same and whose JSON-codec size bound is at most {@code
     * maxJsonSize}; null otherwise (the caller then takes the JSON codec, which measures exactly).
     * Reading stops once the bound passes the limit, so a large value costs no more Java heap than
     * the limit allows.
     */
    public static Binary decodeBinary(byte[] bytes, long maxJsonSize) {
        BinaryFormat.Read r = BinaryFormat.read(bytes, maxJsonSize);
        if (r == null) {
            return null;
        }
        int[] plan = r.plan();
        if (plan.length > Integer.MAX_VALUE / 4) {
            return null;
        }
        java.nio.ByteBuffer b =
                java.nio.ByteBuffer.allocate(plan.length * 4)
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int p : plan) {
            b.putInt(p);
        }
        return new Binary(r.value(), r.jsonSizeBound(), b.array());
    }

    /**
     * The largest binary encoding worth copying out for an output limit of {@code maxJsonSize}: a
     * value's binary form is never more than three times its JSON-codec size plus a header.
     */
    public static long binaryBound(long maxJsonSize) {
        return maxJsonSize > Long.MAX_VALUE / 4 ? Long.MAX_VALUE : 3 * maxJsonSize + 16;
    }

    /**
     * Learns the engine's predefined atom numbers from its encoding of the guest codec's {@code
     * atomProbe()} result; until then, values with such keys take the JSON codec.
     */
    public static void learnAtoms(byte[] probe) {
        BinaryFormat.learnAtoms(probe);
    }

    // ---------------------------------------------------------------------------------------
    // Decoding.

    public static Object decode(String json, List<?> sidecar) {
        return decode(json, sidecar, "value", "encoded value");
    }

    private static Object decode(String json, List<?> sidecar, String rootName, String what) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new TransportException(what + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || root.isMissingNode()) {
            throw new TransportException(what + " is empty");
        }
        try {
            return decode(root, sidecar, rootName);
        } catch (TransportException e) {
            throw e;
        } catch (RuntimeException e) {
            // Every marker is checked field by field below; this is the backstop, and it keeps the
            // Java exception's words out of a message a caller may show to whoever sent the value.
            throw new TransportException(rootName + " holds a malformed transport marker", e);
        }
    }

    /**
     * A value as one self-contained JSON text, for output that has no sidecar (the command line, an
     * HTTP response): the same markers as {@link #encode}, except that binary data is inlined as
     * {@code {"$sj":"bytes","type":T,"base64":"..."}} and long strings stay plain strings.
     */
    public static String toJson(Object value, String rootName) {
        Set<Object> stack = Collections.newSetFromMap(new IdentityHashMap<>());
        JsonNode tree = encode(value, rootName, 0, null, stack);
        try {
            return JSON.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads JSON as {@link #toJson} writes it (plain JSON is a special case of it). */
    public static Object fromJson(String json) {
        return fromJson(json, "value");
    }

    /**
     * As {@link #fromJson(String)}; a malformed marker's message starts with its path from {@code
     * rootName} ({@code inputs.rows[2]: a "date" marker's "v" must be ...}).
     */
    public static Object fromJson(String json, String rootName) {
        return decode(json, List.of(), rootName, rootName);
    }

    private static Object decode(JsonNode n, List<?> sidecar, String path) {
        switch (n.getNodeType()) {
            case NULL:
                return null;
            case BOOLEAN:
                return n.booleanValue();
            case STRING:
                return n.textValue();
            case NUMBER:
                return number(n);
            case ARRAY:
                {
                    List<Object> out = new ArrayList<>(n.size());
                    for (int i = 0; i < n.size(); i++) {
                        out.add(decode(n.get(i), sidecar, path + "[" + i + "]"));
                    }
                    return out;
                }
            case OBJECT:
                return object((ObjectNode) n, sidecar, path);
            default:
                throw new TransportException(path + ": unexpected JSON " + n.getNodeType());
        }
    }

    private static Object number(JsonNode n) {
        if (n.isIntegralNumber() && n.canConvertToLong()) {
            long v = n.longValue();
            if (Math.abs(v) <= MAX_SAFE_INTEGER) {
                return v;
            }
        }
        return n.doubleValue();
    }

    private static Map<String, Object> plain(ObjectNode n, List<?> sidecar, String path) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> f : n.properties()) {
            out.put(f.getKey(), decode(f.getValue(), sidecar, path + "." + f.getKey()));
        }
        return out;
    }

    /** Each marker's fields besides {@code $sj}, by kind; a field not listed is refused. */
    private static final Map<String, Set<String>> MARKER_FIELDS =
            Map.ofEntries(
                    Map.entry("undef", Set.of()),
                    Map.entry("num", Set.of("v")),
                    Map.entry("bigint", Set.of("v")),
                    Map.entry("date", Set.of("v")),
                    Map.entry("regexp", Set.of("source", "flags")),
                    Map.entry("error", Set.of("name", "message", "stack")),
                    Map.entry("map", Set.of("v")),
                    Map.entry("set", Set.of("v")),
                    Map.entry("str", Set.of("i")),
                    Map.entry("bytes", Set.of("type", "i", "base64")),
                    Map.entry("obj", Set.of("v")));

    /**
     * The decimal digits of the largest BigInt the engine holds (2^20 bits): a longer one could not
     * be a guest's, and {@code new BigInteger(String)} takes time quadratic in the digits.
     */
    static final int MAX_BIGINT_DIGITS = 315_653;

    private static final String NUMBERS = "one of \"NaN\", \"Infinity\", \"-Infinity\", \"-0\"";
    private static final String DIGITS = "a string of decimal digits, \"-\" first if negative";

    /** The Date range: ±8.64e15 ms (ECMA-262's time values). */
    private static final long MAX_TIME = 8_640_000_000_000_000L;

    private static Object object(ObjectNode n, List<?> sidecar, String path) {
        JsonNode mark = n.get(MARK);
        if (mark == null) {
            return plain(n, sidecar, path);
        }
        if (!mark.isTextual() || !MARKER_FIELDS.containsKey(mark.textValue())) {
            throw new TransportException(
                    path
                            + ": "
                            + (mark.isTextual()
                                    ? "unknown transport marker " + quote(mark.textValue())
                                    : "\"$sj\" must be a string naming the marker")
                            + "; the markers are "
                            + new TreeSet<>(MARKER_FIELDS.keySet())
                            + " (docs/transport.md)");
        }
        String kind = mark.textValue();
        Set<String> fields = MARKER_FIELDS.get(kind);
        for (Map.Entry<String, JsonNode> f : n.properties()) {
            if (!f.getKey().equals(MARK) && !fields.contains(f.getKey())) {
                throw new TransportException(
                        path
                                + ": "
                                + a(kind)
                                + " marker has an unknown field "
                                + quote(f.getKey())
                                + (fields.isEmpty()
                                        ? "; it has none but \"$sj\""
                                        : "; its fields are " + new TreeSet<>(fields)));
            }
        }
        switch (kind) {
            case "obj":
                {
                    JsonNode v = n.get("v");
                    if (v == null || !v.isObject()) {
                        throw field(path, kind, "v", "an object (the escaped object's own keys)");
                    }
                    return plain((ObjectNode) v, sidecar, path);
                }
            case "undef":
                return Undefined.INSTANCE;
            case "num":
                return switch (text(n, path, kind, "v", NUMBERS)) {
                    case "NaN" -> Double.NaN;
                    case "Infinity" -> Double.POSITIVE_INFINITY;
                    case "-Infinity" -> Double.NEGATIVE_INFINITY;
                    case "-0" -> -0.0d;
                    default -> throw field(path, kind, "v", NUMBERS);
                };
            case "bigint":
                {
                    String digits = text(n, path, kind, "v", DIGITS);
                    int first = digits.startsWith("-") ? 1 : 0;
                    if (digits.length() == first || !allDigits(digits, first)) {
                        throw field(path, kind, "v", DIGITS);
                    }
                    if (digits.length() - first > MAX_BIGINT_DIGITS) {
                        throw field(
                                path,
                                kind,
                                "v",
                                "at most "
                                        + MAX_BIGINT_DIGITS
                                        + " digits (the engine's largest BigInt); it has "
                                        + (digits.length() - first));
                    }
                    return bigint(digits);
                }
            case "date":
                {
                    JsonNode v = n.get("v");
                    if (v != null && v.isNull()) {
                        return null;
                    }
                    if (v == null
                            || !v.isNumber()
                            || !(Math.abs(v.doubleValue()) <= MAX_TIME)
                            || v.doubleValue() != Math.rint(v.doubleValue())) {
                        throw field(
                                path,
                                kind,
                                "v",
                                "whole milliseconds since 1970 within ±8.64e15, or null (an invalid"
                                        + " date)");
                    }
                    return Instant.ofEpochMilli(v.longValue());
                }
            case "regexp":
                return new JsRegExp(
                        text(n, path, kind, "source", "a string"),
                        text(n, path, kind, "flags", "a string"));
            case "error":
                {
                    String stack = n.has("stack") ? text(n, path, kind, "stack", "a string") : "";
                    return new JsErrorValue(
                            text(n, path, kind, "name", "a string"),
                            text(n, path, kind, "message", "a string"),
                            stack);
                }
            case "map":
                {
                    JsMap out = new JsMap();
                    for (JsonNode e : array(n, path, kind)) {
                        if (!e.isArray() || e.size() != 2) {
                            throw new TransportException(
                                    path + ": a map entry is not a [key, value] pair");
                        }
                        out.put(
                                decode(e.get(0), sidecar, path + ".<key>"),
                                decode(e.get(1), sidecar, path + ".<value>"));
                    }
                    return out;
                }
            case "set":
                {
                    Set<Object> out = new LinkedHashSet<>();
                    for (JsonNode e : array(n, path, kind)) {
                        out.add(decode(e, sidecar, path + ".<item>"));
                    }
                    return out;
                }
            case "str":
                {
                    if (!(side(n, sidecar, path, kind) instanceof String text)) {
                        throw new TransportException(
                                path + ": a string's sidecar entry is not a string");
                    }
                    return text;
                }
            case "bytes":
                {
                    String type = text(n, path, kind, "type", "the binary type's name");
                    if (!(side(n, sidecar, path, kind) instanceof byte[] bytes)) {
                        throw new TransportException(
                                path + ": a bytes sidecar entry is not binary");
                    }
                    if (type.equals("Uint8Array")) {
                        return bytes;
                    }
                    try {
                        return new BinaryValue(type, bytes);
                    } catch (IllegalArgumentException e) {
                        throw new TransportException(
                                path + ": a \"bytes\" marker's \"type\": " + e.getMessage());
                    }
                }
            default:
                throw new IllegalStateException("a marker kind without a case: " + kind);
        }
    }

    private static JsonNode array(JsonNode marker, String path, String kind) {
        JsonNode v = marker.get("v");
        if (v == null || !v.isArray()) {
            throw field(path, kind, "v", "an array");
        }
        return v;
    }

    /** Field {@code name} of a marker, which must be a string. */
    private static String text(JsonNode marker, String path, String kind, String name, String is) {
        JsonNode v = marker.get(name);
        if (v == null || !v.isTextual()) {
            throw field(path, kind, name, is);
        }
        return v.textValue();
    }

    private static TransportException field(String path, String kind, String name, String is) {
        return new TransportException(
                path + ": " + a(kind) + " marker's " + quote(name) + " must be " + is);
    }

    private static String a(String kind) {
        return ("aeiou".indexOf(kind.charAt(0)) >= 0 ? "an " : "a ") + quote(kind);
    }

    /** {@code s} in double quotes, cut at 40 characters: a message never echoes a whole value. */
    private static String quote(String s) {
        return "\"" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"";
    }

    /**
     * {@code new BigInteger(digits)}, in time below its quadratic: the halves are read on their own
     * and joined by one multiplication, which the JDK does with Karatsuba or Toom-Cook at these
     * sizes. Measured on 315,653 digits (the cap), JDK 17: 0.05 s warm (1.2 s on a cold JVM)
     * against the JDK's 1.4 s.
     */
    static BigInteger bigint(String digits) {
        boolean negative = digits.startsWith("-");
        BigInteger v = bigint(digits, negative ? 1 : 0, digits.length());
        return negative ? v.negate() : v;
    }

    private static BigInteger bigint(String digits, int from, int to) {
        int n = to - from;
        if (n <= 1_000) {
            return new BigInteger(digits.substring(from, to));
        }
        int low = n / 2;
        return bigint(digits, from, to - low)
                .multiply(BigInteger.TEN.pow(low))
                .add(bigint(digits, to - low, to));
    }

    private static boolean allDigits(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static Object side(JsonNode n, List<?> sidecar, String path, String kind) {
        JsonNode inline = n.get("base64");
        JsonNode index = n.get("i");
        if ((inline == null) == (index == null)) {
            throw new TransportException(
                    path
                            + ": "
                            + a(kind)
                            + " marker needs "
                            + (kind.equals("bytes")
                                    ? "one of \"i\" (a sidecar index) and \"base64\""
                                    : "\"i\" (a sidecar index)"));
        }
        if (inline != null) {
            if (!inline.isTextual()) {
                throw field(path, kind, "base64", "a string");
            }
            try {
                return java.util.Base64.getDecoder().decode(inline.textValue());
            } catch (IllegalArgumentException e) {
                throw new TransportException(path + ": bad base64 in a bytes marker");
            }
        }
        if (!index.canConvertToInt() || !index.isIntegralNumber()) {
            throw field(path, kind, "i", "a sidecar index (a whole number)");
        }
        int i = index.intValue();
        if (i < 0 || i >= sidecar.size()) {
            throw new TransportException(
                    path
                            + ": sidecar index "
                            + i
                            + " out of range"
                            + (sidecar.isEmpty() ? " (self-contained JSON has no sidecar)" : ""));
        }
        return sidecar.get(i);
    }

    // ---------------------------------------------------------------------------------------
    // Encoding.

    /** Encodes a Java value for the guest; {@code rootName} starts the paths in error messages. */
    public static Encoded encode(Object value, String rootName) {
        List<Object> sidecar = new ArrayList<>();
        Set<Object> stack = Collections.newSetFromMap(new IdentityHashMap<>());
        JsonNode tree = encode(value, rootName, 0, sidecar, stack);
        try {
            return new Encoded(JSON.writeValueAsString(tree), sidecar);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode bytes(String type, byte[] b, List<Object> sidecar) {
        ObjectNode m = marker("bytes").put("type", type);
        if (sidecar == null) {
            return m.put("base64", java.util.Base64.getEncoder().encodeToString(b));
        }
        sidecar.add(b.clone());
        return m.put("i", sidecar.size() - 1);
    }

    private static ObjectNode marker(String kind) {
        ObjectNode o = NODES.objectNode();
        o.put(MARK, kind);
        return o;
    }

    private static JsonNode encode(
            Object v, String path, int depth, List<Object> sidecar, Set<Object> stack) {
        if (v == null) {
            return NODES.nullNode();
        }
        if (v instanceof Boolean b) {
            return NODES.booleanNode(b);
        }
        if (v instanceof String s) {
            if (s.length() <= LONG_STRING || sidecar == null) {
                return NODES.textNode(s);
            }
            sidecar.add(s);
            return marker("str").put("i", sidecar.size() - 1);
        }
        if (v instanceof Character c) {
            return NODES.textNode(String.valueOf(c));
        }
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d)) {
                return marker("num").put("v", "NaN");
            }
            if (Double.isInfinite(d)) {
                return marker("num").put("v", d > 0 ? "Infinity" : "-Infinity");
            }
            if (d == 0 && Double.doubleToRawLongBits(d) != 0) {
                return marker("num").put("v", "-0");
            }
            return NODES.numberNode(d);
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            long l = ((Number) v).longValue();
            if (Math.abs(l) > MAX_SAFE_INTEGER) {
                throw new TransportException(
                        path
                                + " ("
                                + l
                                + ") is beyond ±2^53-1 and would lose precision as a JS"
                                + " number; pass a BigInteger for a BigInt");
            }
            return NODES.numberNode(l);
        }
        if (v instanceof BigInteger bi) {
            return marker("bigint").put("v", bi.toString());
        }
        if (v instanceof BigDecimal) {
            throw new TransportException(
                    path
                            + " is a BigDecimal, which has no exact JS form; convert it to a String"
                            + " or double");
        }
        if (v instanceof Instant t) {
            return marker("date").put("v", t.toEpochMilli());
        }
        if (v instanceof Date d) {
            return marker("date").put("v", d.getTime());
        }
        if (v instanceof Undefined) {
            return marker("undef");
        }
        if (v instanceof JsRegExp r) {
            return marker("regexp").put("source", r.source()).put("flags", r.flags());
        }
        if (v instanceof JsErrorValue e) {
            return marker("error")
                    .put("name", e.name())
                    .put("message", e.message())
                    .put("stack", e.stack());
        }
        if (v instanceof byte[] b) {
            return bytes("Uint8Array", b, sidecar);
        }
        if (v instanceof BinaryValue b) {
            return bytes(b.kind(), b.bytes(), sidecar);
        }
        if (depth >= MAX_DEPTH) {
            throw new TransportException(path + " is nested deeper than " + MAX_DEPTH + " levels");
        }
        if (!stack.add(v)) {
            throw new TransportException(
                    path + " refers back to one of its own ancestors (a cycle)");
        }
        try {
            if (v instanceof JsMap m) {
                ArrayNode entries = NODES.arrayNode();
                int i = 0;
                for (Map.Entry<Object, Object> e : m.entrySet()) {
                    entries.add(
                            NODES.arrayNode()
                                    .add(
                                            encode(
                                                    e.getKey(),
                                                    path + ".<key " + i + ">",
                                                    depth + 1,
                                                    sidecar,
                                                    stack))
                                    .add(
                                            encode(
                                                    e.getValue(),
                                                    path + ".get(" + i + ")",
                                                    depth + 1,
                                                    sidecar,
                                                    stack)));
                    i++;
                }
                ObjectNode o = marker("map");
                o.set("v", entries);
                return o;
            }
            if (v instanceof Map<?, ?> m) {
                ObjectNode o = NODES.objectNode();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!(e.getKey() instanceof String k)) {
                        throw new TransportException(
                                path
                                        + " has a key of type "
                                        + (e.getKey() == null
                                                ? "null"
                                                : e.getKey().getClass().getName())
                                        + "; plain objects need String keys (use JsMap for a JS"
                                        + " Map)");
                    }
                    o.set(k, encode(e.getValue(), path + "." + k, depth + 1, sidecar, stack));
                }
                if (o.has(MARK)) {
                    ObjectNode wrapped = marker("obj");
                    wrapped.set("v", o);
                    return wrapped;
                }
                return o;
            }
            if (v instanceof Set<?> s) {
                ArrayNode items = NODES.arrayNode();
                int i = 0;
                for (Object item : s) {
                    items.add(
                            encode(item, path + ".<item " + i++ + ">", depth + 1, sidecar, stack));
                }
                ObjectNode o = marker("set");
                o.set("v", items);
                return o;
            }
            if (v instanceof Collection<?> || v instanceof Object[]) {
                Collection<?> c = v instanceof Object[] a ? List.of(a) : (Collection<?>) v;
                ArrayNode items = NODES.arrayNode();
                int i = 0;
                for (Object item : c) {
                    items.add(encode(item, path + "[" + i++ + "]", depth + 1, sidecar, stack));
                }
                return items;
            }
        } finally {
            stack.remove(v);
        }
        throw new TransportException(
                path + " is a " + v.getClass().getName() + ", which has no JavaScript form");
    }
}
