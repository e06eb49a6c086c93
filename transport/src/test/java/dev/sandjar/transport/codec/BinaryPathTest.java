package dev.sandjar.transport.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsRuntime;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.QuickJsEngine;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import dev.sandjar.transport.JsErrorValue;
import dev.sandjar.transport.JsMap;
import dev.sandjar.transport.JsRegExp;
import dev.sandjar.transport.Undefined;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The binary path against the real engine: what Java writes, {@code JS_ReadObject} reads as the
 * JSON codec would have decoded it; what {@code JS_WriteObject} writes, Java reads as the codec's
 * walk would have returned it, or refuses so the codec runs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EngineLeakCheck.class)
class BinaryPathTest {
    private static QuickJsEngine engine;

    @BeforeAll
    static void start() {
        engine = QuickJsEngine.create();
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    private static <T> T withCodec(Function<JsContext, T> body) {
        return engine.call(
                e -> {
                    try (JsRuntime rt = e.newRuntime()) {
                        JsContext ctx = rt.newContext();
                        try (JsValue codec =
                                        ctx.evalScript(Transport.guestSource(), "codec.js")
                                                .orThrow();
                                JsValue g = ctx.global();
                                JsValue probeFn = codec.get("atomProbe");
                                JsValue probe = ctx.call(probeFn, ctx.undefined()).orThrow();
                                JsValue written = ctx.writeObject(probe).orThrow()) {
                            Transport.learnAtoms(ctx.toByteArray(written));
                            g.set("codec", codec);
                        }
                        T out = body.apply(ctx);
                        assertEquals(0, ctx.openHandles(), "handles left open");
                        return out;
                    }
                });
    }

    /** The codec's answer for a guest value (its JSON path), as the host decodes it. */
    private static Object viaCodec(JsContext ctx, JsValue v) {
        try (JsValue g = ctx.global();
                JsValue codec = g.get("codec");
                JsValue encode = codec.get("encode");
                JsValue root = ctx.newString("result");
                JsValue pair = ctx.call(encode, codec, v, root).orThrow();
                JsValue json = ctx.getProperty(pair, 0);
                JsValue side = ctx.getProperty(pair, 1);
                JsValue len = side.get("length")) {
            List<Object> sidecar = new ArrayList<>();
            for (int i = 0; i < (int) len.asNumber(); i++) {
                try (JsValue p = ctx.getProperty(side, i)) {
                    sidecar.add(p.typeOf().equals("string") ? p.asString() : ctx.toByteArray(p));
                }
            }
            return Transport.decode(json.asString(), sidecar);
        }
    }

    /**
     * The binary path's answer, or null when it refuses (write failed, not plain, check failed).
     */
    private static Object[] viaBinary(JsContext ctx, JsValue v) {
        Transport.Binary read;
        try (JsResult written = ctx.writeObject(v)) {
            if (!written.isOk()) {
                return null;
            }
            read = Transport.decodeBinary(ctx.toByteArray(written.value()), Long.MAX_VALUE);
        }
        if (read == null) {
            return null;
        }
        try (JsValue g = ctx.global();
                JsValue codec = g.get("codec");
                JsValue check = codec.get("protoCheck");
                JsValue plan = ctx.newArrayBuffer(read.plan());
                JsResult ok = ctx.call(check, codec, v, plan)) {
            return ok.isOk() && ctx.toBoolean(ok.value()) ? new Object[] {read.value()} : null;
        }
    }

    private static Object[] both(String expr) {
        return withCodec(
                ctx -> {
                    try (JsValue v = ctx.evalScript("(" + expr + ")", "v.js").orThrow()) {
                        Object[] binary = viaBinary(ctx, v);
                        return new Object[] {binary, viaCodec(ctx, v)};
                    }
                });
    }

    private static void assertSameAsCodec(String expr) {
        Object[] r = both(expr);
        assertNotNull(r[0], "binary path refused " + expr);
        Object binary = ((Object[]) r[0])[0];
        assertEquals(r[1], binary, expr);
        assertEquals(String.valueOf(r[1]), String.valueOf(binary), expr); // Long vs Double too
    }

    private static void assertRefused(String expr) {
        withCodec(
                ctx -> {
                    try (JsValue v = ctx.evalScript("(" + expr + ")", "v.js").orThrow()) {
                        assertNull(viaBinary(ctx, v), "binary path should refuse " + expr);
                    }
                    return null;
                });
    }

    @Test
    void plainValuesReadExactlyAsTheCodecReturnsThem() {
        assertSameAsCodec("null");
        assertSameAsCodec("undefined");
        assertSameAsCodec("'caf\\u00e9 \\u20ac \\ud800 x\\u0000y'");
        assertSameAsCodec(
                "[0, -0, 1.5, -1, 2147483647, -2147483648, 2147483648, 2**53 - 1, 2**53,"
                        + " 1e21, 1e-7, NaN, Infinity, -Infinity, 0.1 + 0.2]");
        assertSameAsCodec("[1, , 3, undefined, null, true, false]");
        assertSameAsCodec(
                "({ a: 1, $sj: 'x', b: { c: [{ d: 'e' }] }, name: 'n', length: 2, '': 0 })");
        assertSameAsCodec("JSON.parse('{\"__proto__\": {\"x\": 1}, \"y\": 2}')");
        assertSameAsCodec("'x'.repeat(9000)");
        assertSameAsCodec("Object.assign(Object.create(null), { a: 1 })");
        assertSameAsCodec("Array.from({ length: 50 }, (_, i) => ({ id: i, name: 'r' + i }))");
        assertSameAsCodec(
                "(() => { const o = { a: 1 }; Object.defineProperty(o, 'hidden',"
                        + " { value: 2 }); return o; })()");
        assertSameAsCodec("(() => { const a = [1, 2]; a.extra = 3; return a; })()");
    }

    @Test
    void nestingUpToTheLimitIsReadAndBeyondItRefused() {
        assertSameAsCodec(
                "(() => { let v = {}; for (let i = 0; i < 32; i++) v = [v]; return v; })()");
        assertRefused("(() => { let v = {}; for (let i = 0; i < 33; i++) v = [v]; return v; })()");
    }

    @Test
    void everythingElseIsLeftToTheCodec() {
        for (String expr :
                List.of(
                        "() => 1",
                        "[Symbol('s')]",
                        "(() => { const o = { a: 1 }; o[Symbol('s')] = 3; return o; })()",
                        "({ get g() { return 1 } })",
                        "new Proxy({}, {})",
                        "new Proxy([], {})",
                        "(() => { const o = {}; return [o, o]; })()",
                        "(() => { const o = {}; o.self = o; return o; })()",
                        "({ b: 1, 2: 2 })",
                        "({ '4294967294': 1 })",
                        "new Map([[1, 2]])",
                        "new Set([1])",
                        "new Date(0)",
                        "new Number(1)",
                        "10n",
                        "/re/g",
                        "new Error('e')",
                        "new Uint8Array(2)",
                        "new ArrayBuffer(2)",
                        "Promise.resolve(1)",
                        "[new (class Foo { constructor() { this.x = 1; } })()]",
                        "({ nested: Object.create(Date.prototype) })",
                        "{ list: [{ ok: 1 }, new (class Promise {})()] }")) {
            assertRefused(expr);
        }
    }

    @Test
    void javaPlainDataEntersAsTheJsonCodecWouldDecodeIt() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("nan", Double.NaN);
        value.put("negz", -0.0d);
        value.put("inf", Double.NEGATIVE_INFINITY);
        value.put("undef", Undefined.INSTANCE);
        value.put("ints", List.of(0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, (1L << 53) - 1));
        value.put("float", 1.25f);
        value.put("text", "caf\u00e9 \u20ac \ud800 \u0000 " + "y".repeat(9000));
        value.put("__proto__", Map.of("x", 1));
        value.put("$sj", "not a marker");
        value.put("array", new Object[] {true, 'c', (short) 3, (byte) 4});
        value.put("nulls", Arrays.asList(null, 1));
        value.put("nested", List.of(List.of(Map.of())));
        byte[] binary = Transport.encodeBinary(value);
        assertNotNull(binary);
        Object[] r =
                withCodec(
                        ctx -> {
                            try (JsValue buf = ctx.newArrayBuffer(binary);
                                    JsValue fromBinary = ctx.readObject(buf).orThrow();
                                    JsValue g = ctx.global();
                                    JsValue codec = g.get("codec");
                                    JsValue decode = codec.get("decode");
                                    JsValue json =
                                            ctx.newString(Transport.encode(value, "v").json());
                                    JsValue side = sidecarOf(ctx, value);
                                    JsValue fromJson =
                                            ctx.call(decode, codec, json, side).orThrow();
                                    JsValue keysEqual =
                                            ctx.evalScript(
                                                            "(a, b) =>"
                                                                + " JSON.stringify(Object.keys(a))"
                                                                + " === JSON.stringify(Object.keys(b))"
                                                                + " && Object.is(a.negz, -0) &&"
                                                                + " Object.getPrototypeOf(a) ==="
                                                                + " Object.prototype &&"
                                                                + " Object.hasOwn(a, '__proto__')",
                                                            "k.js")
                                                    .orThrow();
                                    JsValue same =
                                            ctx.call(
                                                            keysEqual,
                                                            ctx.undefined(),
                                                            fromBinary,
                                                            fromJson)
                                                    .orThrow()) {
                                return new Object[] {
                                    viaCodec(ctx, fromBinary),
                                    viaCodec(ctx, fromJson),
                                    same.asBoolean()
                                };
                            }
                        });
        Map<?, ?> fromBinary = (Map<?, ?>) r[0];
        Map<?, ?> fromJson = (Map<?, ?>) r[1];
        for (Object k : fromJson.keySet()) {
            assertEquals(
                    String.valueOf(fromJson.get(k)), String.valueOf(fromBinary.get(k)), "key " + k);
        }
        assertEquals(r[1], r[0]);
        assertTrue((Boolean) r[2], "same keys in the same order, -0 kept, __proto__ an own key");
    }

    private static JsValue sidecarOf(JsContext ctx, Object value) {
        JsValue arr = ctx.newArray();
        List<Object> parts = Transport.encode(value, "v").sidecar();
        for (int i = 0; i < parts.size(); i++) {
            try (JsValue p =
                    parts.get(i) instanceof String s
                            ? ctx.newString(s)
                            : ctx.newArrayBuffer((byte[]) parts.get(i))) {
                ctx.setProperty(arr, String.valueOf(i), p);
            }
        }
        return arr;
    }

    @Test
    void javaValuesWithoutAPlainFormTakeTheJsonCodec() {
        List<Object> cyclic = new ArrayList<>();
        cyclic.add(cyclic);
        Object deep = "leaf";
        for (int i = 0; i < 33; i++) {
            deep = List.of(deep);
        }
        Map<Object, Object> intKey = new HashMap<>();
        intKey.put(1, "x");
        Map<String, Object> indexKey = Map.of("12", "index keys are numbers in the engine");
        for (Object v :
                Arrays.asList(
                        BigInteger.ONE,
                        Instant.EPOCH,
                        new byte[] {1},
                        new JsMap(),
                        new LinkedHashSet<>(List.of(1)),
                        new JsRegExp("a", "g"),
                        new JsErrorValue("Error", "m", ""),
                        1L << 53,
                        new Object[] {null},
                        List.of(new java.math.BigDecimal("1.5")),
                        cyclic,
                        deep,
                        intKey,
                        indexKey)) {
            assertNull(Transport.encodeBinary(v), v.getClass().getName());
        }
        Object shallow = "leaf";
        for (int i = 0; i < 32; i++) {
            shallow = List.of(shallow);
        }
        assertNotNull(Transport.encodeBinary(shallow));
    }

    @Test
    void theSizeBoundCoversTheCodecsMeasure() {
        String expr =
                "({ s: 'a\"b\\\\c\\n\\u0001\\ud800', n: [0.1, 1e300, -5e-324, 123456789, -0, NaN],"
                        + " u: undefined, $sj: 1, long: 'z'.repeat(9000), e: '',"
                        + " ['\"'.repeat(9000)]: 1 })"; // a long key stays inline, escaped
        long[] sizes =
                withCodec(
                        ctx -> {
                            try (JsValue v = ctx.evalScript("(" + expr + ")", "v.js").orThrow();
                                    JsValue written = ctx.writeObject(v).orThrow();
                                    JsValue g = ctx.global();
                                    JsValue codec = g.get("codec");
                                    JsValue encode = codec.get("encode");
                                    JsValue root = ctx.newString("r");
                                    JsValue pair = ctx.call(encode, codec, v, root).orThrow();
                                    JsValue json = ctx.getProperty(pair, 0)) {
                                byte[] bytes = ctx.toByteArray(written);
                                Transport.Binary read =
                                        Transport.decodeBinary(bytes, Long.MAX_VALUE);
                                return new long[] {
                                    read.jsonSizeBound(),
                                    json.asString().length() + 9000L,
                                    bytes.length
                                };
                            }
                        });
        assertTrue(sizes[0] >= sizes[1], "bound " + sizes[0] + " < codec size " + sizes[1]);
        assertTrue(sizes[2] <= Transport.binaryBound(sizes[1]), "binary larger than its bound");
    }

    @Test
    void readingStopsAtTheOutputLimit() {
        Long[] bounds =
                withCodec(
                        ctx -> {
                            try (JsValue v =
                                            ctx.evalScript("new Array(100000).fill('')", "v.js")
                                                    .orThrow();
                                    JsValue written = ctx.writeObject(v).orThrow()) {
                                byte[] bytes = ctx.toByteArray(written);
                                long bound =
                                        Transport.decodeBinary(bytes, Long.MAX_VALUE)
                                                .jsonSizeBound();
                                Transport.Binary atLimit = Transport.decodeBinary(bytes, bound);
                                Transport.Binary under = Transport.decodeBinary(bytes, bound - 1);
                                return new Long[] {
                                    bound,
                                    atLimit == null ? null : atLimit.jsonSizeBound(),
                                    under == null ? null : under.jsonSizeBound()
                                };
                            }
                        });
        assertEquals(2 + 99_999 + 2 * 100_000L, bounds[0]); // [,"",""...]
        assertEquals(bounds[0], bounds[1], "a value exactly at the limit is read");
        assertNull(bounds[2], "a value one unit over the limit is not read");
    }

    @Test
    void aHostileOrForeignEncodingIsRefusedNotMisread() {
        assertNull(Transport.decodeBinary(new byte[0], Long.MAX_VALUE));
        assertNull(Transport.decodeBinary(new byte[] {0x16, 0, 1}, Long.MAX_VALUE));
        assertNull(
                Transport.decodeBinary(
                        new byte[] {0x17, 0, 9, (byte) 0xff, (byte) 0xff}, Long.MAX_VALUE));
        assertNull(Transport.decodeBinary(new byte[] {0x17, 0, 7, 20, 'a'}, Long.MAX_VALUE));
        assertNull(Transport.decodeBinary(new byte[] {0x17, 0, 1, 1}, Long.MAX_VALUE));
        assertFalse(BinaryFormat.isArrayIndex("4294967295") || !BinaryFormat.isArrayIndex("0"));
    }
}
