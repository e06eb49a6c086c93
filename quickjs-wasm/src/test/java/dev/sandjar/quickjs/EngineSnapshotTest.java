package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Snapshots put an engine back exactly: memory, globals, and the Java side that mirrors them. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EngineLeakCheck.class)
class EngineSnapshotTest {

    @Test
    void aRestoredEngineForgetsEverythingDoneSinceTheSnapshot() {
        try (QuickJsEngine engine = QuickJsEngine.create()) {
            engine.call(
                    e -> {
                        JsRuntime rt = e.newRuntime();
                        JsContext ctx = rt.newContext();
                        JsValue counter;
                        try (JsValue g = ctx.global();
                                JsValue one = ctx.newNumber(1)) {
                            g.set("x", one);
                            counter =
                                    ctx.evalScript(
                                                    "(() => { let n = 0; return () => ++n; })()",
                                                    "c.js")
                                            .orThrow();
                            try (JsValue f =
                                    ctx.newFunction(
                                            "twice",
                                            (c, self, args) ->
                                                    c.newNumber(2 * args.get(0).asNumber()))) {
                                g.set("twice", f);
                            }
                        }
                        EngineSnapshot snap = e.snapshot();
                        assertTrue(snap.memoryBytes() > 5_000_000, "memory " + snap.memoryBytes());
                        assertTrue(
                                snap.heldBytes() < 1_000_000,
                                "only non-zero blocks are kept: " + snap.heldBytes());
                        assertTrue(
                                e.allocatedBlocks() < 32 * 16,
                                "blocks never written hold no array: " + e.allocatedBlocks());
                        for (int round = 0; round < 3; round++) {
                            JsValue made;
                            try (JsResult r = ctx.call(counter, ctx.undefined())) {
                                assertEquals(1.0, r.value().asNumber(), "the counter started over");
                            }
                            made =
                                    ctx.evalScript(
                                                    "globalThis.x = 2; globalThis.y = 'new'; [1,"
                                                            + " 2]",
                                                    "m.js")
                                            .orThrow();
                            try (JsValue big =
                                    ctx.evalScript(
                                                    "globalThis.keep = []; for (let i = 0; i < 40;"
                                                            + " i++) keep.push(new Uint8Array(1 <<"
                                                            + " 20)); keep.length",
                                                    "b.js")
                                            .orThrow()) {
                                assertEquals(40.0, big.asNumber());
                            }
                            JsRuntime other = e.newRuntime();
                            JsContext otherCtx = other.newContext();
                            int openBefore = ctx.openHandles();
                            e.restore(snap);
                            byte[] now = e.memoryCopy();
                            assertArrayEquals(
                                    snap.memory.toArray(now.length),
                                    now,
                                    "the restored memory is the snapshot's, byte for byte");
                            assertTrue(
                                    e.allocatedBlocks() < 128 * 16,
                                    "the 640 pages the round wrote were given back: "
                                            + e.allocatedBlocks());
                            assertFalse(
                                    made.isAlive(),
                                    "a handle made after the snapshot stayed alive");
                            assertFalse(other.isAlive());
                            assertFalse(otherCtx.isAlive());
                            assertTrue(counter.isAlive());
                            assertEquals(
                                    1, ctx.openHandles(), "open before restore: " + openBefore);
                            try (JsValue v =
                                    ctx.evalScript(
                                                    "[x, typeof y, typeof keep, twice(21)].join()",
                                                    "v.js")
                                            .orThrow()) {
                                assertEquals("1,undefined,undefined,42", v.asString());
                            }
                            assertTrue(
                                    e.openObjects().runtimes() == 1
                                            && e.openObjects().contexts() == 1);
                        }
                        // The memory that grew stays (each round compared it, zeros and all,
                        // with the snapshot): allocate in it again. Only the ends of each array
                        // are read: a callback per byte is 42 million interpreted calls, which
                        // took minutes on a loaded machine and proved nothing more.
                        try (JsValue big =
                                ctx.evalScript(
                                                "const k = []; for (let i = 0; i < 40; i++)"
                                                        + " k.push(new Uint8Array(1 << 20));"
                                                        + " k.every((a) => a[0] === 0"
                                                        + " && a[a.length - 1] === 0)",
                                                "z.js")
                                        .orThrow()) {
                            assertTrue(big.asBoolean());
                        }
                        e.restore(snap);
                        counter.close();
                        rt.close();
                        assertTrue(e.openObjects().isEmpty());
                        return null;
                    });
        }
    }

    @Test
    void aSnapshotBelongsToItsEngine() {
        try (QuickJsEngine a = QuickJsEngine.create();
                QuickJsEngine b = QuickJsEngine.create()) {
            EngineSnapshot snap = a.call(QuickJsEngine::snapshot);
            assertThrows(
                    IllegalArgumentException.class,
                    () ->
                            b.call(
                                    e -> {
                                        e.restore(snap);
                                        return null;
                                    }));
        }
    }
}
