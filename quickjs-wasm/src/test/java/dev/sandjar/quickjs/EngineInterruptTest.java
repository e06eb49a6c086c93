package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Interrupting an engine thread (what a sandbox's watchdog does to stop a native loop): the
 * compiled engine unwinds, the engine is discarded, and the thread itself survives.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineInterruptTest {

    @Test
    void aStrayInterruptNeitherEndsTheEngineThreadNorReachesTheNextTask() {
        try (QuickJsEngine engine = QuickJsEngine.create()) {
            engine.call(
                    e -> {
                        Thread.currentThread().interrupt();
                        return null;
                    });
            // Before, the queue's take threw on the interrupt and the thread ended: this hung.
            Boolean stillSet = engine.call(e -> Thread.currentThread().isInterrupted());
            assertFalse(stillSet);
            assertFalse(engine.isBroken());
        }
    }

    @Test
    void anInterruptStopsGuestCodeAndBreaksTheEngine() {
        try (QuickJsEngine engine = QuickJsEngine.create()) {
            EngineFailureException failure =
                    assertThrows(
                            EngineFailureException.class,
                            () ->
                                    engine.call(
                                            e -> {
                                                JsRuntime rt = e.newRuntime();
                                                JsContext ctx = rt.newContext();
                                                Thread.currentThread().interrupt();
                                                // The compiled code checks the thread's status
                                                // before its first call.
                                                try (JsResult r = ctx.evalScript("1 + 1", "x.js")) {
                                                    return r.isOk();
                                                }
                                            }));
            assertTrue(failure.getMessage().contains("interrupted"), failure.getMessage());
            assertTrue(engine.isBroken());
        }
    }
}
