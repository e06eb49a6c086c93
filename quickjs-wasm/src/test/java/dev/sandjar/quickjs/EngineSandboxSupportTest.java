package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the sandbox core needs from the engine: submit, the growth cap, error codes, leases. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EngineLeakCheck.class)
class EngineSandboxSupportTest {

    @Test
    void submitQueuesWorkAndTasksLeftWhenTheEngineClosesFail() throws Exception {
        QuickJsEngine engine = QuickJsEngine.create();
        CompletableFuture<Double> sum =
                engine.submit(
                        e -> {
                            try (JsRuntime rt = e.newRuntime();
                                    JsValue v =
                                            rt.newContext()
                                                    .evalScript("40 + 2", "a.js")
                                                    .orThrow()) {
                                return v.asNumber();
                            }
                        });
        assertEquals(42.0, sum.get(30, TimeUnit.SECONDS));
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        CompletableFuture<Object> blocker =
                engine.submit(
                        e -> {
                            running.countDown();
                            // Hold the engine thread until close() has begun, so the next task is
                            // certainly still queued when the engine closes (a fixed sleep let it
                            // run first whenever this thread was slow to submit it).
                            long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                            try {
                                while (!e.isClosed() && System.nanoTime() < limit) {
                                    Thread.sleep(5);
                                }
                            } catch (InterruptedException ex) {
                                Thread.currentThread().interrupt();
                            }
                            return null;
                        });
        assertTrue(running.await(30, TimeUnit.SECONDS));
        CompletableFuture<Object> queued = engine.submit(e -> "never");
        engine.close();
        blocker.get(30, TimeUnit.SECONDS);
        ExecutionException failed =
                assertThrows(ExecutionException.class, () -> queued.get(30, TimeUnit.SECONDS));
        assertTrue(
                failed.getCause().getMessage().contains("closed"), failed.getCause().getMessage());
        assertTrue(engine.submit(e -> 1).isCompletedExceptionally());
    }

    @Test
    void theGrowthCapBoundsEverythingTheGuestHoldsWhileQuickJsCountsNothing() {
        try (QuickJsEngine engine = QuickJsEngine.create()) {
            engine.call(
                    e -> {
                        assertEquals(e.options().maxMemoryPages(), e.growthLimitPages());
                        e.setGrowthLimitPages(512); // 32 MiB
                        try (JsRuntime rt = e.newRuntime()) {
                            rt.setMemoryLimit(8L << 20);
                            JsContext ctx = rt.newContext();
                            try (JsValue v =
                                    ctx.evalScript(
                                                    "const keep = []; let n = 0;\n"
                                                            + "try { while (true) { keep.push(new"
                                                            + " Uint8Array(1 << 20)); n++; } }\n"
                                                            + "catch (e) { keep.length = 0; n }",
                                                    "a.js")
                                            .orThrow()) {
                                // QuickJS's own 8 MiB limit did not stop it; the 32 MiB cap did.
                                double n = v.asNumber();
                                assertTrue(n > 8 && n < 32, "allocated " + n + " MiB");
                            }
                        }
                        assertTrue(e.memoryPages() <= 512);
                        assertEquals(e.memoryPages(), e.currentPages());
                        assertThrows(
                                IllegalArgumentException.class, () -> e.setGrowthLimitPages(100));
                        assertTrue(e.openObjects().isEmpty(), e.openObjects().toString());
                        return null;
                    });
        }
    }

    @Test
    void aHostFunctionCanThrowAnErrorWithACode() {
        try (QuickJsEngine engine = QuickJsEngine.create()) {
            String seen =
                    engine.call(
                            e -> {
                                try (JsRuntime rt = e.newRuntime()) {
                                    JsContext ctx = rt.newContext();
                                    try (JsValue g = ctx.global();
                                            JsValue f =
                                                    ctx.newFunction(
                                                            "fail",
                                                            (c, self, args) -> {
                                                                throw new JsException(
                                                                        new JsError(
                                                                                "QuotaError",
                                                                                "over quota",
                                                                                ""),
                                                                        Map.of("code", "QUOTA"));
                                                            })) {
                                        g.set("fail", f);
                                    }
                                    try (JsValue v =
                                            ctx.evalScript(
                                                            "try { fail() } catch (e) { [e"
                                                                + " instanceof Error, e.name,"
                                                                + " e.code, e.message].join() }",
                                                            "a.js")
                                                    .orThrow()) {
                                        return v.asString();
                                    }
                                }
                            });
            assertEquals("true,QuotaError,QUOTA,over quota", seen);
        }
    }

    @Test
    void leasesAreServedInOrderAndCanSwapOrRetireTheirEngine() throws Exception {
        try (EnginePool pool = new EnginePool(1, EngineOptions.defaults())) {
            EnginePool.Lease first = pool.acquireAsync().get();
            CompletableFuture<EnginePool.Lease> second = pool.acquireAsync();
            CompletableFuture<EnginePool.Lease> third = pool.acquireAsync();
            assertTrue(!second.isDone() && !third.isDone());
            QuickJsEngine original = first.engine();
            QuickJsEngine fresh = first.replaceEngine();
            assertNotSame(original, fresh);
            assertTrue(original.isClosed());
            second.cancel(false); // gives up its place
            first.close();
            EnginePool.Lease got = third.get(30, TimeUnit.SECONDS);
            assertEquals(fresh, got.engine());
            got.retire();
            got.close();
            try (EnginePool.Lease next = pool.acquire()) {
                assertNotSame(fresh, next.engine());
                assertTrue(fresh.isClosed());
                double two =
                        next.engine()
                                .call(
                                        e -> {
                                            try (JsRuntime rt = e.newRuntime();
                                                    JsValue v =
                                                            rt.newContext()
                                                                    .evalScript("1 + 1", "a.js")
                                                                    .orThrow()) {
                                                return v.asNumber();
                                            }
                                        });
                assertEquals(2.0, two);
            }
        }
    }
}
