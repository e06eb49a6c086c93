package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.testing.SandboxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The pool heals after anything (issue 34, item 4): an interrupt as the watchdog sends it, or an
 * {@link OutOfMemoryError} as a full heap throws it, at each named point of a run (the template
 * restore, a bridge completion, the result), and the watchdog's interrupt landing while host code
 * runs out of memory. After each, no interrupt status, half-restored memory or broken instance
 * reaches another run: every engine of the pool serves the next runs correctly.
 */
class PoolHealingTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(2);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    /** {@code later(n)}: a promise of {@code n} completed on another thread. */
    static final Bridge LATER =
            Bridge.builder("later")
                    .guest("(host) => ({ later: (n) => host.call('later', n) })")
                    .operation(
                            Operation.builder("later")
                                    .param(Param.integer("n"))
                                    .handler(
                                            c -> {
                                                long n = c.integer(0, 0);
                                                return CompletableFuture.supplyAsync(() -> n);
                                            })
                                    .build())
                    .build();

    @AfterEach
    void everyEngineServes() throws Exception {
        FaultPoints.inject(null);
        sandbox.watchdog().withGrace(Watchdog.GRACE);
        for (int i = 0; i < 6; i++) {
            RunResult r =
                    sandbox.run(
                            RunRequest.builder("return (await later(20)) + 1")
                                    .bridge(LATER)
                                    .build());
            assertTrue(r.isOk(), "run " + i + " after the fault: " + r);
            assertEquals(21L, r.value());
        }
        // Both engines at once, each through a whole run.
        List<SandboxRun> both = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            both.add(
                    sandbox.submit(
                            RunRequest.builder(
                                            "let s = 0; for (let i = 0; i < 200000; i++) s += i;"
                                                    + " return s")
                                    .build()));
        }
        for (SandboxRun r : both) {
            assertEquals(19999900000L, r.result().get().valueOrThrow());
        }
        assertEquals(0, sandbox.leaks());
    }

    private static void faultOnce(String point, Runnable fault) {
        AtomicBoolean fired = new AtomicBoolean();
        FaultPoints.inject(
                p -> {
                    if (p.equals(point) && fired.compareAndSet(false, true)) {
                        fault.run();
                    }
                });
    }

    private static RunResult faultyRun() {
        return sandbox.run(
                RunRequest.builder("return (await later(41)) + 1").bridge(LATER).build());
    }

    private static void interruptAt(String point) {
        faultOnce(point, () -> Thread.currentThread().interrupt());
        RunResult r = faultyRun();
        // Interrupted inside the engine the run fails; interrupted where it is not looked at it
        // may still finish. Either way the next runs must not see the interrupt.
        if (!r.isOk()) {
            assertTrue(
                    r.error().kind() == RunError.Kind.INTERNAL
                            || r.error().kind() == RunError.Kind.CANCELLED,
                    r.toString());
        }
    }

    private static void outOfMemoryAt(String point) {
        faultOnce(
                point,
                () -> {
                    throw new OutOfMemoryError("injected at " + point);
                });
        RunResult r = faultyRun();
        assertFalse(r.isOk(), r.toString());
        assertEquals(RunError.Kind.INTERNAL, r.error().kind(), r.toString());
    }

    @Test
    void anInterruptDuringTheTemplateRestore() {
        interruptAt(FaultPoints.RESTORE);
    }

    @Test
    void anInterruptDuringABridgeCompletion() {
        interruptAt(FaultPoints.COMPLETION);
    }

    @Test
    void anInterruptWhileTheResultIsRead() {
        interruptAt(FaultPoints.RESULT);
    }

    @Test
    void outOfMemoryDuringTheTemplateRestore() {
        outOfMemoryAt(FaultPoints.RESTORE);
    }

    @Test
    void outOfMemoryDuringABridgeCompletion() {
        outOfMemoryAt(FaultPoints.COMPLETION);
    }

    @Test
    void outOfMemoryWhileTheResultIsRead() {
        outOfMemoryAt(FaultPoints.RESULT);
    }

    /**
     * The review's case: the watchdog interrupts an engine thread while host code on it runs out of
     * memory. A synchronous handler ignores the run's bound until the watchdog's interrupt arrives,
     * then throws {@link OutOfMemoryError}.
     */
    @Test
    void theWatchdogsInterruptDuringAnOutOfMemoryInHostCode() {
        Bridge hog =
                Bridge.builder("hog")
                        .guest("(host) => ({ hog: () => host.call('hog') })")
                        .operation(
                                Operation.builder("hog")
                                        .handler(
                                                c -> {
                                                    long x = 0;
                                                    while (!Thread.currentThread()
                                                            .isInterrupted()) {
                                                        x++;
                                                    }
                                                    throw new OutOfMemoryError(
                                                            "injected after " + x);
                                                })
                                        .build())
                        .build();
        RunResult r =
                sandbox.run(
                        RunRequest.builder("hog()")
                                .bridge(hog)
                                .limits(Limits.builder().timeout(Duration.ofMillis(50)).build())
                                .build());
        assertFalse(r.isOk(), r.toString());
    }

    /**
     * Cancellations at random moments with a 1 ms watchdog grace, so the watchdog's interrupt lands
     * wherever the run is: queued, restoring, evaluating, waiting for or applying a host
     * completion, encoding the result.
     */
    @Test
    void interruptsAtRandomMoments() throws Exception {
        sandbox.watchdog().withGrace(Duration.ofMillis(1));
        Random random = new Random(34);
        String[] bodies = {
            "return (await later(1)) + (await later(2))",
            "let s = 0; for (let i = 0; i < 300000; i++) s += i; return s",
            "return Array.from({length: 20000}, (_, i) => ({i, s: 'x' + i}))",
            "return [1, 2, 3].includes.call({ length: 2 ** 40 }, 'x')",
        };
        for (int i = 0; i < 40; i++) {
            SandboxRun run =
                    sandbox.submit(
                            RunRequest.builder(bodies[i % bodies.length])
                                    .bridge(LATER)
                                    .limits(Limits.builder().outputBytes(10L << 20).build())
                                    .build());
            Thread.sleep(random.nextInt(6));
            run.cancel();
            run.result().get(); // any outcome; what matters is the runs after it
        }
    }
}
