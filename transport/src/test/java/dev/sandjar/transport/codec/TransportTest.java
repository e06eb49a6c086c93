package dev.sandjar.transport.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsRuntime;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.QuickJsEngine;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
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
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Both halves of the codec, with the guest half running in the real engine. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EngineLeakCheck.class)
class TransportTest {
    private static QuickJsEngine engine;

    @BeforeAll
    static void start() {
        engine = QuickJsEngine.create();
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    /** A context with the codec loaded as {@code codec}. */
    private static <T> T withCodec(Function<JsContext, T> body) {
        return engine.call(
                e -> {
                    try (JsRuntime rt = e.newRuntime()) {
                        JsContext ctx = rt.newContext();
                        try (JsValue codec =
                                        ctx.evalScript(Transport.guestSource(), "codec.js")
                                                .orThrow();
                                JsValue g = ctx.global()) {
                            g.set("codec", codec);
                        }
                        return body.apply(ctx);
                    }
                });
    }

    /** Moves a Java value into the guest as global {@code name}. */
    private static void inject(JsContext ctx, String name, Object value) {
        Transport.Encoded enc = Transport.encode(value, name);
        try (JsValue g = ctx.global();
                JsValue codec = g.get("codec");
                JsValue decode = codec.get("decode");
                JsValue json = ctx.newString(enc.json());
                JsValue side = ctx.newArray()) {
            for (int i = 0; i < enc.sidecar().size(); i++) {
                Object part = enc.sidecar().get(i);
                try (JsValue b =
                        part instanceof String text
                                ? ctx.newString(text)
                                : ctx.newArrayBuffer((byte[]) part)) {
                    side.set(String.valueOf(i), b);
                }
            }
            try (JsValue v = ctx.call(decode, codec, json, side).orThrow()) {
                g.set(name, v);
            }
        }
    }

    /**
     * Reads the guest value of {@code expr} back through the codec; the JSON goes to {@code json}.
     */
    private static Object extract(JsContext ctx, String expr, StringBuilder json) {
        try (JsResult r = ctx.evalScript("codec.encode((" + expr + "), 'result')", "extract.js")) {
            if (!r.isOk()) {
                JsError err = r.error();
                throw new TransportException(err.name() + ": " + err.message());
            }
            JsValue pair = r.value();
            try (JsValue j = ctx.getProperty(pair, 0);
                    JsValue side = ctx.getProperty(pair, 1);
                    JsValue len = side.get("length")) {
                List<Object> sidecar = new ArrayList<>();
                for (int i = 0; i < (int) len.asNumber(); i++) {
                    try (JsValue b = ctx.getProperty(side, i)) {
                        sidecar.add(
                                b.typeOf().equals("string") ? b.asString() : ctx.toByteArray(b));
                    }
                }
                String text = j.asString();
                if (json != null) {
                    json.append(text);
                }
                return Transport.decode(text, sidecar);
            }
        }
    }

    private static Object roundTrip(Object value) {
        return withCodec(
                ctx -> {
                    inject(ctx, "v", value);
                    return extract(ctx, "v", null);
                });
    }

    @Test
    void everyMarkerTypeRoundTripsFromJava() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("nan", Double.NaN);
        value.put("inf", Double.POSITIVE_INFINITY);
        value.put("ninf", Double.NEGATIVE_INFINITY);
        value.put("negz", -0.0d);
        value.put("undef", Undefined.INSTANCE);
        value.put("big", new BigInteger("-123456789012345678901234567890"));
        value.put("date", Instant.ofEpochMilli(1_700_000_000_123L));
        value.put("re", new JsRegExp("a+b", "gi"));
        value.put("err", new JsErrorValue("TypeError", "bad", "at x"));
        JsMap map = new JsMap();
        map.put(1L, "one");
        map.put("k", List.of(true));
        value.put("map", map);
        value.put("set", new LinkedHashSet<>(List.of("a", 2L)));
        value.put("bytes", new byte[] {1, 2, -1});
        value.put("f64", new BinaryValue("Float64Array", new byte[16]));
        value.put("buf", new BinaryValue("ArrayBuffer", new byte[] {9}));
        value.put("long", "x".repeat(Transport.LONG_STRING + 5) + "\u0000\uD800");
        value.put("nested", Map.of("$sj", "not a marker"));
        value.put("plain", List.of(1L, 2.5, "s", false));
        Object back = roundTrip(value);
        Map<?, ?> m = assertInstanceOf(Map.class, back);
        assertEquals(value.keySet(), m.keySet());
        for (String k : value.keySet()) {
            Object expected = value.get(k);
            if (expected instanceof byte[] b) {
                assertArrayEquals(b, (byte[]) m.get(k), k);
            } else {
                assertEquals(expected, m.get(k), k);
            }
        }
        assertEquals(
                Double.doubleToRawLongBits(-0.0d),
                Double.doubleToRawLongBits((Double) m.get("negz")));
    }

    @Test
    void guestSeesRealTypes() {
        String s =
                withCodec(
                        ctx -> {
                            Map<String, Object> v = new LinkedHashMap<>();
                            v.put("d", Instant.ofEpochMilli(0));
                            v.put("negz", -0.0d);
                            v.put("u", Undefined.INSTANCE);
                            v.put("m", new JsMap());
                            v.put("b", new byte[3]);
                            v.put("big", BigInteger.TEN);
                            inject(ctx, "v", v);
                            try (JsValue r =
                                    ctx.evalScript(
                                                    "[v.d instanceof Date, Object.is(v.negz, -0),"
                                                            + " 'u' in v && v.u === undefined, v.m"
                                                            + " instanceof Map, v.b instanceof"
                                                            + " Uint8Array, typeof v.big].join()",
                                                    "t.js")
                                            .orThrow()) {
                                return r.asString();
                            }
                        });
        assertEquals("true,true,true,true,true,bigint", s);
    }

    @Test
    void fiveThousandRowsRoundTripExactly() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (int f = 0; f < 10; f++) {
                row.put(
                        "f" + f,
                        switch (f % 4) {
                            case 0 -> (long) i * f;
                            case 1 -> "row " + i + " \u00e9";
                            case 2 -> i % 2 == 0;
                            default -> i + 0.25;
                        });
            }
            rows.add(row);
        }
        assertEquals(rows, roundTrip(rows));
    }

    @Test
    void fourMebibyteUint8ArrayThreeLevelsDeepCrossesWithoutBase64() {
        StringBuilder json = new StringBuilder();
        byte[] data =
                withCodec(
                        ctx -> {
                            Object v =
                                    extract(
                                            ctx,
                                            "(() => { const u = new Uint8Array(4 * 1024 * 1024);"
                                                + " for (let i = 0; i < u.length; i += 4096) u[i] ="
                                                + " i / 4096; return {a: {b: {c: u}}}; })()",
                                            json);
                            byte[] bytes =
                                    (byte[])
                                            ((Map<?, ?>)
                                                            ((Map<?, ?>) ((Map<?, ?>) v).get("a"))
                                                                    .get("b"))
                                                    .get("c");
                            inject(ctx, "back", Map.of("x", Map.of("y", Map.of("z", bytes))));
                            try (JsValue r =
                                    ctx.evalScript(
                                                    "back.x.y.z.length + ':' + back.x.y.z[4096 *"
                                                            + " 7]",
                                                    "b.js")
                                            .orThrow()) {
                                assertEquals("4194304:7", r.asString());
                            }
                            return bytes;
                        });
        assertEquals(4 << 20, data.length);
        assertEquals(5, data[4096 * 5]);
        assertTrue(
                json.length() < 200,
                "the bytes rode the sidecar, JSON is " + json.length() + " chars");
    }

    @Test
    void unrepresentableValuesFailByPath() {
        String fn = refusal("({items: [1, 2, 3, {fn() {}}]})");
        assertTrue(fn.contains("result.items[3].fn is a function"), fn);
        String sym = refusal("({s: Symbol('x')})");
        assertTrue(sym.contains("result.s is a symbol"), sym);
        String cycle = refusal("(() => { const a = {b: {}}; a.b.a = a; return a; })()");
        assertTrue(cycle.contains("result.b.a refers back"), cycle);
        String deep =
                refusal(
                        "(() => { let o = {}; const r = o; for (let i = 0; i < 40; i++) { o.n = {};"
                                + " o = o.n; } return r; })()");
        assertTrue(deep.contains("nested deeper than 32 levels"), deep);
        String promise = refusal("({p: Promise.resolve(1)})");
        assertTrue(promise.contains("result.p is a Promise"), promise);
    }

    private static String refusal(String expr) {
        TransportException e =
                assertThrows(
                        TransportException.class, () -> withCodec(ctx -> extract(ctx, expr, null)));
        return e.getMessage();
    }

    @Test
    void javaSideRefusesWhatWouldBeLost() {
        assertTrue(
                assertThrows(
                                TransportException.class,
                                () -> Transport.encode(Map.of("n", 1L << 60), "g"))
                        .getMessage()
                        .contains("g.n (1152921504606846976) is beyond"));
        assertTrue(
                assertThrows(TransportException.class, () -> Transport.encode(Map.of(1, "x"), "g"))
                        .getMessage()
                        .contains("plain objects need String keys"));
        List<Object> self = new ArrayList<>();
        self.add(self);
        assertTrue(
                assertThrows(TransportException.class, () -> Transport.encode(self, "g"))
                        .getMessage()
                        .contains("g[0] refers back"));
        assertTrue(
                assertThrows(TransportException.class, () -> Transport.encode(new Object(), "g"))
                        .getMessage()
                        .contains("has no JavaScript form"));
        Set<Object> ok = Set.of();
        assertEquals("{\"$sj\":\"set\",\"v\":[]}", Transport.encode(ok, "g").json());
    }

    @Test
    void selfContainedJsonInlinesBytesAndLongStringsAndReadsBack() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("bytes", new byte[] {1, 2, (byte) 255});
        value.put("floats", new BinaryValue("Float32Array", new byte[] {0, 0, -128, 63}));
        value.put("long", "z".repeat(Transport.LONG_STRING + 5));
        value.put("nan", Double.NaN);
        String json = Transport.toJson(value, "v");
        assertTrue(
                json.contains("{\"$sj\":\"bytes\",\"type\":\"Uint8Array\",\"base64\":\"AQL/\"}"),
                json);
        assertTrue(json.contains("\"long\":\"zzz"), "a long string stays a plain string");
        Map<?, ?> back = (Map<?, ?>) Transport.fromJson(json);
        assertArrayEquals(new byte[] {1, 2, (byte) 255}, (byte[]) back.get("bytes"));
        assertEquals(value.get("floats"), back.get("floats"));
        assertEquals(value.get("long"), back.get("long"));
        assertTrue(Double.isNaN((Double) back.get("nan")));
        assertEquals(List.of(1L, "a"), Transport.fromJson("[1, \"a\"]"));
    }

    @Test
    void malformedMarkersAreTransportErrorsNotCrashes() {
        for (String bad :
                List.of(
                        "{\"$sj\":\"num\"}",
                        "{\"$sj\":\"bigint\",\"v\":\"x\"}",
                        "{\"$sj\":\"map\",\"v\":3}",
                        "{\"$sj\":\"bytes\",\"type\":\"Nope\",\"i\":0}",
                        "{\"$sj\":\"bytes\",\"type\":\"Uint8Array\",\"i\":7}",
                        "{\"$sj\":\"bytes\",\"type\":\"Uint8Array\",\"base64\":\"!!\"}",
                        "{\"$sj\":\"what\"}",
                        "{\"$sj\":\"obj\",\"v\":[1]}",
                        "")) {
            assertThrows(TransportException.class, () -> Transport.decode(bad, List.of()), bad);
        }
    }

    /**
     * A malformed marker is refused with its path and what is wrong in the codec's own words: no
     * Java exception's class or text (they reach HTTP clients and command lines). Each case: the
     * JSON under {@code inputs.a}, then words the message must hold.
     */
    @Test
    void aMalformedMarkerSaysWhatAndWhereWithoutJavaWords() {
        List<List<String>> cases =
                List.of(
                        List.of(
                                "{\"$sj\":\"bogus\"}",
                                "unknown transport marker \"bogus\"",
                                "undef"),
                        List.of("{\"$sj\":7}", "\"$sj\" must be a string"),
                        List.of("{\"$sj\":\"undef\",\"v\":1}", "unknown field \"v\""),
                        List.of("{\"$sj\":\"num\"}", "\"num\" marker's \"v\" must be one of"),
                        List.of("{\"$sj\":\"num\",\"v\":\"1\"}", "\"NaN\""),
                        List.of("{\"$sj\":\"bigint\",\"v\":12}", "decimal digits"),
                        List.of("{\"$sj\":\"bigint\",\"v\":\"1e3\"}", "decimal digits"),
                        List.of("{\"$sj\":\"bigint\",\"v\":\"-\"}", "decimal digits"),
                        List.of(
                                "{\"$sj\":\"bigint\",\"v\":\"" + "9".repeat(315_654) + "\"}",
                                "at most 315653 digits"),
                        List.of("{\"$sj\":\"date\",\"v\":\"2024-01-01\"}", "whole milliseconds"),
                        List.of("{\"$sj\":\"date\",\"v\":1.5}", "whole milliseconds"),
                        List.of("{\"$sj\":\"date\",\"v\":9e99}", "±8.64e15"),
                        List.of("{\"$sj\":\"date\"}", "\"date\" marker's \"v\""),
                        List.of(
                                "{\"$sj\":\"regexp\",\"source\":\"a\"}",
                                "\"flags\" must be a string"),
                        List.of("{\"$sj\":\"error\",\"name\":1,\"message\":\"m\"}", "\"name\""),
                        List.of(
                                "{\"$sj\":\"error\",\"name\":\"E\",\"message\":\"m\",\"stack\":[]}",
                                "\"stack\""),
                        List.of(
                                "{\"$sj\":\"map\",\"v\":3}",
                                "\"map\" marker's \"v\" must be an array"),
                        List.of("{\"$sj\":\"map\",\"v\":[[1]]}", "[key, value] pair"),
                        List.of("{\"$sj\":\"set\",\"v\":{}}", "must be an array"),
                        List.of("{\"$sj\":\"obj\"}", "an \"obj\" marker's \"v\" must be an object"),
                        List.of("{\"$sj\":\"obj\",\"v\":[1]}", "must be an object"),
                        List.of("{\"$sj\":\"str\",\"i\":\"0\"}", "a whole number"),
                        List.of("{\"$sj\":\"str\",\"i\":0}", "no sidecar"),
                        List.of("{\"$sj\":\"bytes\",\"base64\":\"AA==\"}", "\"type\""),
                        List.of(
                                "{\"$sj\":\"bytes\",\"type\":\"Nope\",\"base64\":\"AA==\"}",
                                "Nope"),
                        List.of("{\"$sj\":\"bytes\",\"type\":\"Uint8Array\"}", "one of \"i\""),
                        List.of(
                                "{\"$sj\":\"bytes\",\"type\":\"Uint8Array\",\"i\":0,\"base64\":\"AA==\"}",
                                "one of \"i\""),
                        List.of(
                                "{\"$sj\":\"bytes\",\"type\":\"Uint8Array\",\"base64\":5}",
                                "\"base64\""));
        for (List<String> c : cases) {
            String json = "{\"a\":[" + c.get(0) + "]}";
            TransportException e =
                    assertThrows(
                            TransportException.class,
                            () -> Transport.fromJson(json, "inputs"),
                            json);
            String m = e.getMessage();
            assertTrue(m.startsWith("inputs.a[0]: "), m);
            for (String words : c.subList(1, c.size())) {
                assertTrue(m.contains(words), m + " lacks " + words);
            }
            for (String java : List.of("java.", "Exception", "Cannot invoke", "dev.sandjar")) {
                assertTrue(!m.contains(java), m);
            }
            assertTrue(m.length() < 400, m);
        }
    }

    /** The bigint reader splits long digit strings; it reads every length as the JDK does. */
    @Test
    void aLongBigintReadsAsTheJdkReadsIt() {
        java.util.Random r = new java.util.Random(34);
        for (int length : List.of(1, 999, 1_000, 1_001, 2_001, 7_777, 65_536, 315_653)) {
            char[] c = new char[length];
            for (int i = 0; i < length; i++) {
                c[i] = (char) ('0' + r.nextInt(10));
            }
            c[0] = '7';
            for (int i = length / 2; i < Math.min(length, length / 2 + 5); i++) {
                c[i] = '0'; // a half that starts with zeros
            }
            String d = (r.nextBoolean() ? "-" : "") + new String(c);
            BigInteger expected = new BigInteger(d);
            assertEquals(expected, Transport.bigint(d), "length " + length);
            assertEquals(
                    expected,
                    Transport.fromJson("{\"$sj\":\"bigint\",\"v\":\"" + d + "\"}"),
                    "length " + length);
        }
    }

    @Test
    void aProtoKeyStaysAnOwnKeyBothWays() {
        Object back =
                withCodec(
                        ctx -> {
                            inject(ctx, "v", Map.of("__proto__", Map.of("polluted", true)));
                            try (JsValue r =
                                    ctx.evalScript(
                                                    "[Object.getPrototypeOf(v) ==="
                                                            + " Object.prototype, ({}).polluted ==="
                                                            + " undefined, Object.keys(v)[0] ==="
                                                            + " '__proto__' && v.__proto__.polluted"
                                                            + " === true]",
                                                    "check.js")
                                            .orThrow()) {
                                assertEquals("true,true,true", r.asString());
                            }
                            return extract(ctx, "JSON.parse('{\"__proto__\": {\"x\": 1}}')", null);
                        });
        assertEquals(Map.of("__proto__", Map.of("x", 1L)), back);
    }
}
