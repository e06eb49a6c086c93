package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Who owns a {@link JsResult}'s handle: the result until {@code orThrow()} hands it over. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JsResultTest {
    private static QuickJsEngine engine;

    @BeforeAll
    static void start() {
        engine = QuickJsEngine.create();
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    private interface Body {
        void run(JsContext ctx);
    }

    /** Runs body in a fresh context and checks it left no handle open. */
    private static void inContext(Body body) {
        engine.call(
                e -> {
                    try (JsRuntime rt = e.newRuntime()) {
                        JsContext ctx = rt.newContext();
                        body.run(ctx);
                        assertEquals(0, ctx.openHandles(), "handles left open");
                        return null;
                    }
                });
    }

    @Test
    void orThrowHandsTheValueOverAndClosingTheResultLeavesIt() {
        inContext(
                ctx -> {
                    JsValue kept;
                    try (JsResult r = ctx.evalScript("({a: 41})", "o.js")) {
                        kept = r.orThrow();
                    }
                    try (kept;
                            JsValue a = kept.get("a")) {
                        assertTrue(kept.isAlive(), "the result's close left the caller's value");
                        assertEquals(41.0, a.asNumber());
                    }
                });
    }

    @Test
    void aHandedOverResultRefusesTheValueAndASecondOrThrow() {
        inContext(
                ctx -> {
                    JsResult r = ctx.evalScript("[1]", "a.js");
                    try (JsValue v = r.orThrow()) {
                        assertThrows(IllegalStateException.class, r::value);
                        assertThrows(IllegalStateException.class, r::orThrow);
                        assertTrue(v.isAlive());
                    }
                    r.close();
                    assertThrows(IllegalStateException.class, r::close, "closed twice");
                });
    }

    @Test
    void aFailureFreesTheThrownValueAndCloseIsThenANoOp() {
        inContext(
                ctx -> {
                    try (JsResult r = ctx.evalScript("throw new TypeError('no')", "t.js")) {
                        JsException e = assertThrows(JsException.class, r::orThrow);
                        assertEquals("TypeError", e.error().name());
                        assertEquals("no", r.error().message(), "the error stays readable");
                        assertThrows(IllegalStateException.class, r::errorValue);
                    }
                });
    }

    @Test
    void closeFreesWhatTheResultOwnsAndUseAfterCloseThrows() {
        inContext(
                ctx -> {
                    JsResult ok = ctx.evalScript("({})", "o.js");
                    JsValue borrowed = ok.value();
                    ok.close();
                    assertFalse(borrowed.isAlive(), "the result owned its value");
                    assertThrows(IllegalStateException.class, ok::value);
                    assertThrows(IllegalStateException.class, ok::orThrow);
                    assertThrows(IllegalStateException.class, ok::close);

                    JsResult failed = ctx.evalScript("throw 1", "n.js");
                    JsValue thrown = failed.errorValue();
                    failed.close();
                    assertFalse(thrown.isAlive());
                    assertThrows(IllegalStateException.class, failed::errorValue);
                    assertEquals("1", failed.error().message());
                });
    }

    @Test
    void aResultOutlivingItsContextCanStillBeClosed() {
        engine.call(
                e -> {
                    try (JsRuntime rt = e.newRuntime()) {
                        JsContext ctx = rt.newContext();
                        JsResult r = ctx.evalScript("({})", "o.js");
                        ctx.close();
                        r.close();
                        return null;
                    }
                });
    }
}
