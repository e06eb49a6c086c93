package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.testing.SandboxExtension;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Values through whole runs (globals in, results and synced globals out), and runs at scale. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ValuesAndConcurrencyTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(2);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    private static RunResult run(String code, Map<String, Object> globals) {
        return sandbox.run(RunRequest.builder(code).globals(globals).build());
    }

    @Test
    void fiveThousandRowsRoundTripExactly() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (int f = 0; f < 10; f++) {
                row.put(
                        "field" + f,
                        f % 3 == 0 ? (Object) ("v" + i + "-" + f) : (Object) (long) (i * f));
            }
            rows.add(row);
        }
        RunResult r =
                sandbox.run(
                        RunRequest.builder("return rows.map((r) => ({...r}));")
                                .input("rows", rows)
                                .limits(Limits.builder().outputBytes(1L << 20).build())
                                .build());
        assertEquals(rows, r.valueOrThrow());
    }

    @Test
    void everyMarkerTypeCrossesBothWaysThroughARun() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("undef", Undefined.INSTANCE);
        value.put("nan", Double.NaN);
        value.put("inf", Double.POSITIVE_INFINITY);
        value.put("ninf", Double.NEGATIVE_INFINITY);
        value.put("negzero", -0.0d);
        value.put("big", new BigInteger("-123456789012345678901234567890"));
        value.put("date", Instant.ofEpochMilli(1_700_000_000_123L));
        value.put("regexp", new JsRegExp("a+b", "gi"));
        value.put("error", new JsErrorValue("RangeError", "out", "at x"));
        JsMap map = new JsMap();
        map.put(1L, "one");
        map.put("k", List.of(true));
        value.put("map", map);
        value.put("set", new LinkedHashSet<>(List.of(1L, "x")));
        value.put("u8", new byte[] {1, 2, 3});
        value.put("f64", new BinaryValue("Float64Array", new byte[16]));
        value.put("ab", new BinaryValue("ArrayBuffer", new byte[] {9}));
        value.put("long", "é".repeat(9000));
        value.put("$sj", "a user key that looks like a marker");
        RunResult r =
                run(
                        "const v = input;\n"
                            + "const checks = [v.undef === undefined && 'undef' in v,"
                            + " Number.isNaN(v.nan), v.inf === Infinity, v.ninf === -Infinity,"
                            + " Object.is(v.negzero, -0), typeof v.big === 'bigint', v.date"
                            + " instanceof Date, v.regexp.test('aab'), v.error instanceof Error,"
                            + " v.map.get(1) === 'one', v.set.has('x'), v.u8 instanceof Uint8Array,"
                            + " v.f64 instanceof Float64Array, v.ab instanceof ArrayBuffer,"
                            + " v.long.length === 9000, v.$sj.startsWith('a user')];\n"
                            + "return {checks, v};",
                        Map.of("input", value));
        Map<?, ?> out = (Map<?, ?>) r.valueOrThrow();
        List<?> checks = (List<?>) out.get("checks");
        assertTrue(checks.stream().allMatch(Boolean.TRUE::equals), checks.toString());
        Map<?, ?> back = (Map<?, ?>) out.get("v");
        for (String k : value.keySet()) {
            Object expected = value.get(k);
            Object actual = back.get(k);
            if (expected instanceof byte[] b) {
                assertArrayEquals(b, (byte[]) actual, k);
            } else if (expected instanceof Double d && Double.isNaN(d)) {
                assertTrue(Double.isNaN((Double) actual), k);
            } else if (k.equals("negzero")) {
                assertEquals(
                        Double.doubleToRawLongBits(-0.0d),
                        Double.doubleToRawLongBits((Double) actual));
            } else if (k.equals("regexp")) {
                assertEquals(new JsRegExp("a+b", "gi"), actual); // lastIndex aside, same pattern
            } else {
                assertEquals(expected, actual, k);
            }
        }
    }

    @Test
    void aFourMebibyteArrayNestedThreeDeepCrossesEachWayWithoutBase64() {
        byte[] big = new byte[4 << 20];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const b = input.a.b.c;\n"
                                                + "let sum = 0;\n"
                                                + "for (let i = 0; i < b.length; i += 4096) sum +="
                                                + " b[i];\n"
                                                + "return {a: {b: {c: b, sum}}};")
                                .global("input", Map.of("a", Map.of("b", Map.of("c", big))))
                                .limits(Limits.builder().outputBytes(8L << 20).build())
                                .build());
        Map<?, ?> c = (Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) r.valueOrThrow()).get("a")).get("b");
        assertArrayEquals(big, (byte[]) c.get("c"));
    }

    @Test
    void unrepresentableResultsAreRefusedByPath() {
        assertRefused(
                "return {items: [1, 2, 3, {fn: () => 1}]}", "result.items[3].fn is a function");
        assertRefused("const a = {}; a.self = {a}; return a;", "result.self.a refers back");
        assertRefused("return {s: Symbol('x')}", "result.s is a symbol");
        assertRefused(
                "let v = 1; for (let i = 0; i < 40; i++) v = [v]; return v;",
                "nested deeper than 32 levels");
        assertRefused("return {p: Promise.resolve(1)}", "result.p is a Promise");
    }

    private static void assertRefused(String code, String fragment) {
        RunResult r = run(code, Map.of());
        assertEquals(RunError.Kind.EXCEPTION, r.error().kind(), code);
        assertEquals("TransportError", r.error().name());
        assertTrue(r.error().message().contains(fragment), r.error().message());
    }

    @Test
    void objectGlobalsAreSyncedBackAfterASuccessfulRunOnly() {
        Map<String, Object> state = new LinkedHashMap<>(Map.of("count", 1L));
        RunResult first =
                sandbox.run(
                        RunRequest.builder(
                                        "state.count++; state.seen = [limit]; return state.count;")
                                .global("state", state)
                                .global("limit", 5L)
                                .build());
        assertEquals(2L, first.valueOrThrow());
        assertEquals(Map.of("state", Map.of("count", 2L, "seen", List.of(5L))), first.globals());
        // The next invocation gets the synced state.
        RunResult second =
                sandbox.run(
                        RunRequest.builder("state = {count: state.count * 10}; return 0;")
                                .global("state", first.globals().get("state"))
                                .build());
        assertEquals(Map.of("count", 20L), second.globals().get("state"));
        RunResult input =
                sandbox.run(
                        RunRequest.builder("inputs.x = 2; state.y = inputs.x; return 1;")
                                .input("inputs", Map.of("x", 1L))
                                .global("state", Map.of())
                                .build());
        assertEquals(Map.of("state", Map.of("y", 2L)), input.globals());
        RunResult failed =
                sandbox.run(
                        RunRequest.builder("state.count = 99; throw new Error('no');")
                                .global("state", Map.of("count", 1L))
                                .build());
        assertEquals(Map.of(), failed.globals());
        RunResult unsyncable =
                sandbox.run(
                        RunRequest.builder("state.cb = () => 1; return 1;")
                                .global("state", Map.of())
                                .build());
        assertTrue(unsyncable.error().message().contains("state.cb is a function"));
    }

    @Test
    void globalsTheTransportCannotCarryAreABadRequest() {
        Map<String, Object> bad = Map.of("x", new Object());
        InvalidRequestException e =
                org.junit.jupiter.api.Assertions.assertThrows(
                        InvalidRequestException.class, () -> run("return 1", bad));
        assertTrue(e.getMessage().contains("globals.x"), e.getMessage());
    }

    @Test
    void twoHundredRunsFromSeveralThreadsLeakNothing() throws Exception {
        TestBridges.Sleep sleep = new TestBridges.Sleep();
        // Warm up both engines and the sandbox's timer thread, then take the baseline.
        for (int i = 0; i < 4; i++) {
            sandbox.run(
                    RunRequest.builder("await sleep(1); return 1").bridge(sleep.bridge).build());
        }
        EngineLeakCheck.Baseline threadsBefore = EngineLeakCheck.baseline();
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            List<Future<RunResult>> results = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                String code =
                        switch (n % 4) {
                            case 0 -> "return input * 2";
                            case 1 -> "await sleep(1); return input * 2";
                            case 2 ->
                                    "const a = new Array(1000).fill(input); return a.length ==="
                                            + " 1000 ? input * 2 : -1";
                            default -> "try { null.x } catch (e) {} return input * 2";
                        };
                results.add(
                        callers.submit(
                                () ->
                                        sandbox.run(
                                                RunRequest.builder(code)
                                                        .global("input", (long) n)
                                                        .bridge(sleep.bridge)
                                                        .build())));
            }
            Set<Long> memory = new java.util.HashSet<>();
            for (int i = 0; i < 200; i++) {
                RunResult r = results.get(i).get(60, TimeUnit.SECONDS);
                assertEquals((long) i * 2, r.valueOrThrow());
                memory.add(r.stats().memoryBytes());
            }
            assertEquals(
                    0, sandbox.leaks(), "a run left runtimes, contexts or host functions open");
            // Every run's memory stayed within what the default heap limit allows.
            long bound = Limits.DEFAULTS.heapBytes() + (6L << 20);
            assertTrue(memory.stream().allMatch(m -> m <= bound), memory.toString());
        } finally {
            callers.shutdown();
            assertTrue(callers.awaitTermination(30, TimeUnit.SECONDS));
        }
        // No thread per run: only the callers came and went.
        EngineLeakCheck.create().assertNoneLeftSince(threadsBefore, "200 runs from 4 callers");
    }
}
