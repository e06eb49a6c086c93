package dev.sandjar.transport.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsRuntime;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.QuickJsEngine;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import dev.sandjar.quickjs.testing.Fuzz;
import dev.sandjar.transport.BinaryValue;
import dev.sandjar.transport.JsErrorValue;
import dev.sandjar.transport.JsMap;
import dev.sandjar.transport.JsRegExp;
import dev.sandjar.transport.Undefined;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fuzzing of the codec's two readers of guest-controlled bytes (docs/transport.md): the binary
 * object format ({@link BinaryFormat#read}) and the JSON + sidecar decoder ({@link
 * Transport#decode}, {@link Transport#fromJson}). Seeds are valid inputs: blobs the real engine
 * wrote ({@code JS_WriteObject}), blobs {@link BinaryFormat#write} wrote, and the codec's own
 * encodings of generated values; mutations keep most of their structure. Tries: {@link Fuzz}.
 */
@ExtendWith(EngineLeakCheck.class)
class TransportFuzzTest {
    /** Guest values whose native encodings seed the binary reader. */
    private static final List<String> ENGINE_SEEDS =
            List.of(
                    "null",
                    "[1, -1, 2147483647, -2147483648, 1.5, -0, NaN, Infinity, 2 ** 53]",
                    "({name: 'x', length: 3, value: [true, false, null, undefined]})",
                    "({a: {b: {c: {d: 'deep'}}}, $sj: 'marker', __proto__x: 1})",
                    "['é', '\\u{1F600}', '\\uD800', 'x'.repeat(40)]",
                    "[{id: 1, name: 'a'}, {id: 2, name: 'b'}, {id: 3, name: 'c'}]",
                    "({'': '', ' ': [[]], 'k\\u0000': {}})",
                    "({message: 'm', stack: 's', constructor: 1, toString: 2, prototype: 3})");

    private static final List<byte[]> SEEDS = new ArrayList<>();

    private static final List<String> KEYS =
            List.of(
                    "a",
                    "name",
                    "$sj",
                    "__proto__",
                    "12",
                    "012",
                    "-1",
                    "",
                    "é",
                    "\u2028",
                    "k\u0000");

    @BeforeAll
    static void seeds() {
        try (QuickJsEngine engine = QuickJsEngine.create()) {
            engine.call(
                    e -> {
                        try (JsRuntime rt = e.newRuntime()) {
                            JsContext ctx = rt.newContext();
                            try (JsValue codec =
                                            ctx.evalScript(Transport.guestSource(), "codec.js")
                                                    .orThrow();
                                    JsValue probeFn = codec.get("atomProbe");
                                    JsValue probe = ctx.call(probeFn, ctx.undefined()).orThrow();
                                    JsValue written = ctx.writeObject(probe).orThrow()) {
                                Transport.learnAtoms(ctx.toByteArray(written));
                            }
                            for (String expr : ENGINE_SEEDS) {
                                try (JsValue v =
                                                ctx.evalScript("(" + expr + ")", "s.js").orThrow();
                                        JsValue w = ctx.writeObject(v).orThrow()) {
                                    SEEDS.add(ctx.toByteArray(w));
                                }
                            }
                        }
                        return null;
                    });
        }
        Random r = new Random(1);
        for (int i = 0; i < 40; i++) {
            byte[] b = BinaryFormat.write(plainValue(r, 0));
            if (b != null) {
                SEEDS.add(b);
            }
        }
    }

    @AfterAll
    static void clear() {
        SEEDS.clear();
    }

    // ---------------------------------------------------------------------------------------
    // The binary reader.

    @Test
    void binaryReaderRefusesOrReadsWhatReencodesTheSame() {
        Fuzz.run(
                "BinaryFormat.read",
                3000,
                r ->
                        switch (r.nextInt(10)) {
                            case 0 -> randomBlob(r);
                            case 1 -> BinaryFormat.write(plainValue(r, 0));
                            default -> Fuzz.mutate(r, Fuzz.pick(r, SEEDS));
                        },
                TransportFuzzTest::checkBinary);
    }

    private static byte[] randomBlob(Random r) {
        byte[] b = new byte[r.nextInt(64)];
        r.nextBytes(b);
        if (b.length > 0) {
            b[0] = BinaryFormat.VERSION;
        }
        return b;
    }

    /**
     * The binary reader's contract: it never throws and never hangs; what it reads is plain data
     * that {@link BinaryFormat#write} writes and reads back the same; its size bound is at least
     * the size the JSON codec gives the value, and within the limit it was given.
     */
    private static void checkBinary(byte[] bytes) {
        if (bytes == null) {
            return;
        }
        BinaryFormat.Read read = BinaryFormat.read(bytes, Long.MAX_VALUE);
        if (read == null) {
            return;
        }
        Object v = read.value();
        byte[] again = BinaryFormat.write(v);
        assertNotNull(again, "the writer refuses what the reader read: " + v);
        BinaryFormat.Read reread = BinaryFormat.read(again, Long.MAX_VALUE);
        assertNotNull(reread, "the reader refuses what the writer wrote");
        assertEquals(v, reread.value(), "a read value re-encodes differently");
        Transport.Encoded codec = Transport.encode(v, "value");
        long size = codec.json().length() + javaToJsNumbers(v);
        for (Object s : codec.sidecar()) {
            size += ((String) s).length();
        }
        assertTrue(
                read.jsonSizeBound() >= size,
                "size bound " + read.jsonSizeBound() + " is below the codec's " + size);
        assertEquals(v, Transport.decode(codec.json(), codec.sidecar()), "the codec disagrees");
        long limit = read.jsonSizeBound() - 1;
        assertNull(BinaryFormat.read(bytes, limit), "a read passed its limit " + limit);
    }

    /**
     * What the guest codec's JSON has more (or less) than the Java codec's for the numbers in
     * {@code v}: Java prints {@code 1.0E20} where JavaScript prints {@code 100000000000000000000}.
     * An integral value below 1e21 counts its exact JavaScript length, any other finite double 0 (a
     * lower bound; its JavaScript form is at most 25 characters); NaN, the infinities and -0 are
     * the same markers on both sides.
     */
    private static long javaToJsNumbers(Object v) {
        if (v instanceof Double d) {
            if (Double.isNaN(d) || Double.isInfinite(d) || (d == 0 && 1 / d < 0)) {
                return 0;
            }
            long js =
                    d == Math.rint(d) && Math.abs(d) < 1e21
                            ? new java.math.BigDecimal(d).toPlainString().length()
                            : 0;
            return js - Transport.encode(d, "v").json().length();
        }
        long sum = 0;
        if (v instanceof Map<?, ?> m) {
            for (Object x : m.values()) {
                sum += javaToJsNumbers(x);
            }
        } else if (v instanceof List<?> l) {
            for (Object x : l) {
                sum += javaToJsNumbers(x);
            }
        }
        return sum;
    }

    // ---------------------------------------------------------------------------------------
    // The JSON + sidecar decoder.

    @Test
    void jsonDecoderRefusesWithTransportExceptionOrDecodesStably() {
        Fuzz.run(
                "Transport.decode",
                3000,
                r -> {
                    Transport.Encoded e = Transport.encode(codecValue(r, 0), "value");
                    String json =
                            r.nextInt(4) == 0 ? e.json() : Fuzz.mutate(r, e.json(), JSON_PIECES);
                    List<Object> sidecar = new ArrayList<>(e.sidecar());
                    if (r.nextInt(4) == 0) {
                        sidecar.add(r.nextBoolean() ? "side" : new byte[] {1, 2});
                    }
                    if (r.nextInt(6) == 0 && !sidecar.isEmpty()) {
                        sidecar.remove(r.nextInt(sidecar.size()));
                    }
                    return new Encoded(json, sidecar);
                },
                in -> checkDecode(() -> Transport.decode(in.json(), in.sidecar())));
    }

    @Test
    void selfContainedJsonRefusesWithTransportExceptionOrDecodesStably() {
        Fuzz.run(
                "Transport.fromJson",
                2000,
                r -> {
                    String json = Transport.toJson(codecValue(r, 0), "value");
                    return r.nextInt(4) == 0 ? json : Fuzz.mutate(r, json, JSON_PIECES);
                },
                json -> checkDecode(() -> Transport.fromJson(json)));
    }

    /** A decoder input as a record, so a failure prints it. */
    private record Encoded(String json, List<Object> sidecar) {
        @Override
        public String toString() {
            return Fuzz.show(json) + " sidecar " + sidecar.size();
        }
    }

    private interface Decoding {
        Object decode();
    }

    /**
     * The decoder's contract: a malformed input is a {@link TransportException}, nothing else; a
     * decoded value encodes, and decoding that gives the same encoding again.
     */
    private static void checkDecode(Decoding d) {
        Object v;
        try {
            v = d.decode();
        } catch (TransportException refused) {
            return;
        }
        Transport.Encoded once;
        try {
            once = Transport.encode(v, "value");
        } catch (TransportException e) {
            // The decoder builds nothing the encoder refuses except what exceeds its own depth.
            assertTrue(e.getMessage().contains("nested deeper"), e.getMessage());
            return;
        }
        Transport.Encoded twice =
                Transport.encode(Transport.decode(once.json(), once.sidecar()), "value");
        assertEquals(once.json(), twice.json(), "a decoded value re-encodes differently");
        assertEquals(once.sidecar().size(), twice.sidecar().size());
        for (int i = 0; i < once.sidecar().size(); i++) {
            Object a = once.sidecar().get(i);
            Object b = twice.sidecar().get(i);
            if (a instanceof byte[] x) {
                assertArrayEquals(x, (byte[]) b);
            } else {
                assertEquals(a, b);
            }
        }
    }

    private static final List<String> JSON_PIECES =
            List.of(
                    "{\"$sj\":\"undef\"}",
                    "{\"$sj\":\"num\",\"v\":\"-0\"}",
                    "{\"$sj\":\"bigint\",\"v\":\"-12x\"}",
                    "{\"$sj\":\"date\",\"v\":9e99}",
                    "{\"$sj\":\"date\",\"v\":null}",
                    "{\"$sj\":\"regexp\"}",
                    "{\"$sj\":\"error\",\"name\":1}",
                    "{\"$sj\":\"map\",\"v\":[[1]]}",
                    "{\"$sj\":\"set\",\"v\":{}}",
                    "{\"$sj\":\"str\",\"i\":0}",
                    "{\"$sj\":\"str\",\"i\":-1}",
                    "{\"$sj\":\"bytes\",\"type\":\"Int8Array\",\"i\":1}",
                    "{\"$sj\":\"bytes\",\"base64\":\"AAE=\"}",
                    "{\"$sj\":\"bytes\",\"type\":\"DataView\",\"base64\":\"%%\"}",
                    "{\"$sj\":\"obj\",\"v\":[]}",
                    "{\"$sj\":\"obj\"}",
                    "{\"$sj\":null}",
                    "\"$sj\"",
                    "[",
                    "]",
                    "{",
                    "}",
                    ",",
                    ":",
                    "\"",
                    "\\u0000",
                    "\\ud800",
                    "1e400",
                    "-0",
                    "9007199254740993",
                    "null",
                    "true");

    // ---------------------------------------------------------------------------------------
    // Value generators.

    private static String string(Random r) {
        return switch (r.nextInt(8)) {
            case 0 -> "";
            case 1 -> Fuzz.pick(r, KEYS);
            case 2 -> "\uD800x\uDC00";
            case 3 -> "é\u2028\"\\\n\t";
            case 4 -> "\uD83D\uDE00";
            case 5 -> r.nextInt(20) == 0 ? "x".repeat(8192 + r.nextInt(3)) : "longish ".repeat(5);
            default -> Integer.toString(r.nextInt(1000), 36);
        };
    }

    private static Object number(Random r) {
        return switch (r.nextInt(10)) {
            case 0 -> (long) r.nextInt();
            case 1 -> Fuzz.pick(r, 0L, -1L, 2147483647L, -2147483648L, 2147483648L);
            case 2 -> Fuzz.pick(r, 9007199254740991L, -9007199254740991L);
            case 3 ->
                    Fuzz.pick(
                            r,
                            -0.0d,
                            Double.NaN,
                            Double.POSITIVE_INFINITY,
                            Double.NEGATIVE_INFINITY,
                            9007199254740992.0,
                            1e21,
                            1e-7,
                            Double.MIN_VALUE,
                            Double.MAX_VALUE);
            case 4 -> r.nextDouble() * 1e6;
            case 5 -> Double.longBitsToDouble(r.nextLong());
            default -> (long) r.nextInt(100);
        };
    }

    /** Plain data: what the binary format carries. */
    static Object plainValue(Random r, int depth) {
        int k = depth > 4 ? r.nextInt(5) : r.nextInt(8);
        return switch (k) {
            case 0 -> null;
            case 1 -> r.nextBoolean();
            case 2 -> number(r);
            case 3 -> string(r);
            case 4 -> Undefined.INSTANCE;
            case 5, 6 -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    String key = Fuzz.pick(r, KEYS);
                    if (!BinaryFormat.isArrayIndex(key)) {
                        m.put(key, plainValue(r, depth + 1));
                    }
                }
                yield m;
            }
            default -> {
                List<Object> l = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    l.add(plainValue(r, depth + 1));
                }
                yield l;
            }
        };
    }

    /** Anything the JSON codec carries. */
    private static Object codecValue(Random r, int depth) {
        if (depth > 4) {
            return plainValue(r, depth);
        }
        return switch (r.nextInt(14)) {
            case 0 -> new BigInteger(64, r).negate();
            case 1 -> Instant.ofEpochMilli(r.nextLong() % 8_640_000_000_000_000L);
            case 2 -> new JsRegExp(string(r), "gu");
            case 3 -> new JsErrorValue("TypeError", string(r), "at f (x.js:1:2)");
            case 4 -> {
                JsMap m = new JsMap();
                m.put(number(r), codecValue(r, depth + 1));
                m.put(string(r), codecValue(r, depth + 1));
                yield m;
            }
            case 5 -> {
                Set<Object> s = new LinkedHashSet<>();
                s.add(string(r));
                s.add(number(r));
                yield s;
            }
            case 6 -> new byte[] {0, (byte) r.nextInt(256), 127};
            case 7 -> new BinaryValue(Fuzz.pick(r, "Int16Array", "ArrayBuffer"), new byte[4]);
            case 8 -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    m.put(Fuzz.pick(r, KEYS), codecValue(r, depth + 1));
                }
                yield m;
            }
            case 9 -> {
                List<Object> l = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    l.add(codecValue(r, depth + 1));
                }
                yield l;
            }
            default -> plainValue(r, depth);
        };
    }
}
