package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EngineLeakCheck.class)
class EnginePoolTest {

    private static double eval(QuickJsEngine engine, String code) {
        return engine.call(
                e -> {
                    try (JsRuntime rt = e.newRuntime()) {
                        try (JsValue v = rt.newContext().evalScript(code, "p.js").orThrow()) {
                            return v.asNumber();
                        }
                    }
                });
    }

    @Test
    void trappedInstanceIsReplacedAndPoolKeepsServing() {
        try (EnginePool pool = new EnginePool(1, EngineOptions.defaults())) {
            QuickJsEngine first;
            try (EnginePool.Lease lease = pool.acquire()) {
                first = lease.engine();
                assertEquals(2.0, eval(first, "1 + 1"));
                // Read far outside linear memory: a real WebAssembly trap inside the engine.
                EngineFailureException trap =
                        assertThrows(
                                EngineFailureException.class,
                                () ->
                                        first.call(
                                                e ->
                                                        e.ffi()
                                                                .call(
                                                                        e.ffi().getFloat64,
                                                                        0,
                                                                        0x7FFF_FFF0)));
                assertTrue(trap.getMessage().contains("trapped"), trap.getMessage());
                assertTrue(first.isBroken());
                assertThrows(EngineFailureException.class, () -> eval(first, "1"));
            }
            try (EnginePool.Lease lease = pool.acquire()) {
                assertNotSame(first, lease.engine());
                assertEquals(5.0, eval(lease.engine(), "2 + 3"));
            }
        }
    }

    @Test
    void concurrentCallersEachGetTheirOwnEngine() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try (EnginePool pool = new EnginePool(2, EngineOptions.defaults())) {
            List<Future<Double>> results = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                int n = i;
                results.add(
                        callers.submit(
                                () -> {
                                    try (EnginePool.Lease lease = pool.acquire()) {
                                        return eval(
                                                lease.engine(),
                                                "let s = 0; for (let i = 0; i <= "
                                                        + n
                                                        + "; i++) s += i; s");
                                    }
                                }));
            }
            for (int i = 0; i < 16; i++) {
                assertEquals(i * (i + 1) / 2.0, results.get(i).get(60, TimeUnit.SECONDS));
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void leaseCannotBeReturnedTwice() {
        try (EnginePool pool = new EnginePool(1, EngineOptions.defaults())) {
            EnginePool.Lease lease = pool.acquire();
            lease.close();
            assertThrows(IllegalStateException.class, lease::close);
            assertThrows(IllegalStateException.class, lease::engine);
        }
    }

    @Test
    void growthPastTheMemoryMaximumIsRefusedInsideTheGuest() {
        EngineOptions small = EngineOptions.builder().withMaxMemoryPages(512).build();
        try (QuickJsEngine engine = QuickJsEngine.create(small)) {
            String s =
                    engine.call(
                            e -> {
                                try (JsRuntime rt = e.newRuntime()) {
                                    JsContext ctx = rt.newContext();
                                    try (JsValue v =
                                            ctx.evalScript(
                                                            "let r; try { new ArrayBuffer(64 * 1024"
                                                                + " * 1024); } catch (err) { r ="
                                                                + " err.name + ': ' + err.message;"
                                                                + " } r",
                                                            "big.js")
                                                    .orThrow()) {
                                        return v.asString() + "|" + e.memoryPages();
                                    }
                                }
                            });
            assertTrue(s.contains("out of memory"), s);
            assertTrue(Integer.parseInt(s.substring(s.indexOf('|') + 1)) <= 512, s);
        }
    }

    @Test
    void optionsValidateBounds() {
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> EngineOptions.builder().withMaxMemoryPages(100));
        assertEquals("maxMemoryPages (100) must be between 256 and 32768", e.getMessage());
        assertThrows(
                IllegalArgumentException.class, () -> new EnginePool(0, EngineOptions.defaults()));
    }

    @Test
    void dateSeesTheConfiguredZoneAndTheRealClock() {
        EngineOptions berlin =
                EngineOptions.builder().withZone(java.time.ZoneId.of("Europe/Berlin")).build();
        try (QuickJsEngine engine = QuickJsEngine.create(berlin)) {
            assertEquals(-60.0, eval(engine, "new Date(0).getTimezoneOffset()"));
            assertEquals(
                    -120.0, eval(engine, "new Date(Date.UTC(2026, 6, 1)).getTimezoneOffset()"));
            double now = eval(engine, "Date.now()");
            assertTrue(Math.abs(now - System.currentTimeMillis()) < 60_000, "guest clock " + now);
        }
        try (QuickJsEngine engine = QuickJsEngine.create()) {
            assertEquals(0.0, eval(engine, "new Date(0).getTimezoneOffset()"));
        }
    }

    @Test
    void jvmStackOverflowInsideTheEngineBreaksOnlyThatEngine() {
        // A deliberately small JVM stack: deep guest recursion overflows the JVM before QuickJS's
        // own check fires. The engine must fail cleanly and refuse further use.
        EngineOptions tiny = EngineOptions.builder().withThreadStackBytes(1L << 20).build();
        try (QuickJsEngine engine = QuickJsEngine.create(tiny)) {
            EngineFailureException e =
                    assertThrows(
                            EngineFailureException.class,
                            () ->
                                    engine.call(
                                            en -> {
                                                JsRuntime rt = en.newRuntime();
                                                rt.setMaxStackSize(
                                                        QuickJsEngine.MAX_SAFE_STACK_BYTES);
                                                return rt.newContext()
                                                        .evalScript(
                                                                "function f(n) { return f(n + 1) +"
                                                                        + " 1; } f(0)",
                                                                "deep.js");
                                            }));
            assertTrue(e.getMessage().contains("JVM stack overflowed"), e.getMessage());
            assertTrue(engine.isBroken());
            assertThrows(EngineFailureException.class, () -> eval(engine, "1"));
        }
        try (QuickJsEngine healthy = QuickJsEngine.create()) {
            assertEquals(3.0, eval(healthy, "1 + 2"));
        }
    }

    @Test
    void fdWriteDeliversWholeLinesToTheSink() {
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (QuickJsEngine engine =
                QuickJsEngine.create(EngineOptions.builder().withStdout(lines::add).build())) {
            int written =
                    engine.call(
                            e -> {
                                Ffi ffi = e.ffi();
                                int a = ffi.cString("hello wo");
                                int b = ffi.cString("rld\nsecond\n\u00e9tc");
                                int iov = ffi.malloc(16);
                                int out = ffi.malloc(4);
                                ffi.memory.writeI32(iov, a);
                                ffi.memory.writeI32(iov + 4, 8);
                                ffi.memory.writeI32(iov + 8, b);
                                ffi.memory.writeI32(iov + 12, 15);
                                assertEquals(0, e.imports().fdWrite(new long[] {1, iov, 2, out}));
                                int n = ffi.readI32(out);
                                for (int p : new int[] {a, b, iov, out}) {
                                    ffi.free(p);
                                }
                                return n;
                            });
            assertEquals(23, written);
            assertEquals(List.of("hello world", "second"), lines);
        }
    }
}
