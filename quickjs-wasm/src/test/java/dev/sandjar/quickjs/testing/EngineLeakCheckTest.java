package dev.sandjar.quickjs.testing;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.QuickJsEngine;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The leak check itself: it must fail when something is left, or it proves nothing. */
class EngineLeakCheckTest {
    private final EngineLeakCheck check = EngineLeakCheck.create().withWait(Duration.ofMillis(200));

    @Test
    void anOpenEngineIsReportedByNameAndPassesOnceClosed() {
        EngineLeakCheck.Baseline before = EngineLeakCheck.baseline();
        QuickJsEngine engine = QuickJsEngine.create();
        try {
            AssertionError e =
                    assertThrows(
                            AssertionError.class, () -> check.assertNoneLeftSince(before, "test"));
            assertTrue(
                    e.getMessage()
                            .startsWith("test leaked: 1 open engine instance(s) (sandjar-engine-"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("EngineThread.loop"), e.getMessage());
        } finally {
            engine.close();
        }
        check.assertNoneLeftSince(before, "test");
    }

    @Test
    void anyNewThreadCountsUnlessItsPrefixIsIgnored() throws Exception {
        EngineLeakCheck.Baseline before = EngineLeakCheck.baseline();
        CountDownLatch release = new CountDownLatch(1);
        Thread worker =
                new Thread(
                        () -> {
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "leaky-worker");
        worker.start();
        try {
            AssertionError e =
                    assertThrows(
                            AssertionError.class, () -> check.assertNoneLeftSince(before, "test"));
            assertTrue(e.getMessage().contains("1 thread(s) still alive"), e.getMessage());
            assertTrue(e.getMessage().contains("\"leaky-worker\" WAITING"), e.getMessage());
            check.ignoring("leaky-").assertNoneLeftSince(before, "test");
        } finally {
            release.countDown();
        }
        // The default wait lets a thread that is ending anyway finish.
        EngineLeakCheck.create().assertNoneLeftSince(before, "test");
    }
}
