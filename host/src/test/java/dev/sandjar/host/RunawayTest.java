package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.testing.GuestSignal;
import dev.sandjar.host.testing.SandboxExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Guest code that the interrupt handler cannot stop: native built-ins walking a huge length never
 * poll it (issue 12). Each case runs on a pool of one instance, so a run that held its engine
 * forever would also starve the next one, which every case checks. Times are asserted against
 * generous bounds (a loaded machine), never tight ones: without the watchdog these runs never end.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RunawayTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    /** Budget + grace + room for a loaded machine; a stuck run would never end. */
    private static final Duration ENDS_WITHIN = Duration.ofSeconds(20);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    /** The next ordinary run on the same (only) instance gets it and the right value. */
    @AfterEach
    void theNextRunSucceeds() {
        RunResult next =
                sandbox.run(
                        RunRequest.builder("return [1, 2, 3].map((x) => x * 2).join('-')").build());
        assertEquals("2-4-6", next.valueOrThrow());
        assertFalse(next.stats().watchdogFired());
    }

    private static RunResult runWithBudget(String code, Duration budget) {
        long t0 = System.nanoTime();
        RunResult r =
                sandbox.run(
                        RunRequest.builder(code)
                                .limits(Limits.builder().timeout(budget).build())
                                .build());
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(ENDS_WITHIN) < 0, "the run took " + took + ": " + r.error());
        return r;
    }

    private static void assertStoppedByWatchdog(String code) {
        RunResult r = runWithBudget(code, Duration.ofSeconds(1));
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind(), r.error().toString());
        assertTrue(r.error().message().contains("CPU budget"), r.error().message());
        assertTrue(r.stats().watchdogFired(), "the watchdog fired");
    }

    @Test
    void includesOnAHugeArrayLike() {
        assertStoppedByWatchdog(
                "return Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 'needle')");
    }

    @Test
    void indexOfOnAHugeArrayLike() {
        assertStoppedByWatchdog(
                "return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 'needle')");
    }

    @Test
    void lastIndexOfOnAHugeArrayLike() {
        assertStoppedByWatchdog(
                "return Array.prototype.lastIndexOf.call({ length: 2 ** 53 - 1 }, 'needle')");
    }

    @Test
    void joinOfAHugeArrayLike() {
        assertStoppedByWatchdog("return Array.prototype.join.call({ length: 2 ** 32 - 1 })");
    }

    @Test
    void sortOfAHugeSparseArrayLike() {
        assertStoppedByWatchdog(
                "return Array.prototype.sort.call({ length: 2 ** 32 - 1, 0: 2, 7: 1 })[0]");
    }

    private static final String FILL =
            "return Array.prototype.fill.call({ length: 2 ** 53 - 1 }, 0)";

    /**
     * Runs {@code code} on a sandbox of its own whose watchdog waits 10 minutes: what ends the run
     * is then the guest's own return, so the outcome shows what the run does when control comes
     * back, not what the watchdog does.
     */
    private static RunResult runWithPatientWatchdog(String code, Limits limits) {
        try (Sandbox patient = Sandbox.builder().poolSize(1).build()) {
            patient.watchdog().withGrace(Duration.ofMinutes(10));
            long t0 = System.nanoTime();
            RunResult r = patient.run(RunRequest.builder(code).limits(limits).build());
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertTrue(took.compareTo(ENDS_WITHIN) < 0, "the run took " + took);
            assertFalse(r.stats().watchdogFired(), "the watchdog waited");
            return r;
        }
    }

    @Test
    void fillOfAHugeArrayLikeRunsOutOfMemoryWithinAGenerousBudget() {
        // The control for the next case: fill adds a property per index until the heap is full.
        RunResult r = runWithBudget(FILL, Duration.ofSeconds(60));
        assertEquals(RunError.Kind.MEMORY, r.error().kind(), r.error().toString());
    }

    @Test
    void fillOfAHugeArrayLikePastItsBudgetIsATimeoutNotMemory() {
        // The same loop with a 100 ms budget and twice the heap spends its budget long before the
        // heap is full (natively: the interrupt handler is not polled), then fails out of memory.
        // The budget wins.
        RunResult r =
                runWithPatientWatchdog(
                        FILL,
                        Limits.builder()
                                .timeout(Duration.ofMillis(100))
                                .heapBytes(128L << 20)
                                .build());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind(), r.error().toString());
    }

    @Test
    void aNativeCallThatOvershootsAndReturnsIsATimeout() {
        // copyWithin over a 3e6-long array-like runs natively well past a 100 ms budget, then
        // returns: before, its value came back as OK.
        RunResult r =
                runWithPatientWatchdog(
                        "Array.prototype.copyWithin.call({ length: 3e6 }, 0, 1); return 'done'",
                        Limits.builder().timeout(Duration.ofMillis(100)).build());
        assertFalse(r.isOk(), "an overshooting run returned " + r.value());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind(), r.error().toString());
    }

    @Test
    void aNativeCallThatOvershootsOnTheSharedPoolIsATimeout() {
        // The same on the default watchdog: it may or may not fire first, depending on the
        // machine's speed; the kind does not.
        RunResult r =
                runWithBudget(
                        "Array.prototype.copyWithin.call({ length: 3e6 }, 0, 1); return 'done'",
                        Duration.ofMillis(100));
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind(), r.error().toString());
    }

    @Test
    void cancelStopsARunStuckInNativeCode() throws Exception {
        GuestSignal started = GuestSignal.named("started");
        SandboxRun run =
                sandbox.submit(
                        RunRequest.builder(
                                        "started();"
                                                + " return Array.prototype.includes.call("
                                                + "{ length: 2 ** 53 - 1 }, 'needle')")
                                .bridge(started.bridge())
                                .limits(Limits.builder().timeout(Duration.ofSeconds(60)).build())
                                .build());
        started.await(ENDS_WITHIN);
        Thread.sleep(300); // inside includes by now (the signal's call returned just before)
        long t0 = System.nanoTime();
        run.cancel();
        RunResult r = run.result().get(ENDS_WITHIN.toSeconds(), TimeUnit.SECONDS);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertEquals(RunError.Kind.CANCELLED, r.error().kind(), r.error().toString());
        assertTrue(r.stats().watchdogFired(), "the watchdog fired");
        assertTrue(took.compareTo(ENDS_WITHIN) < 0, "cancel took " + took);
    }

    @Test
    void anOversizedResultFailsAsOutputLongBeforeItsBudget() {
        long t0 = System.nanoTime();
        RunResult r = runWithBudget("return Array(1e6).fill({ a: 1 })", Duration.ofSeconds(60));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertEquals(RunError.Kind.OUTPUT, r.error().kind(), r.error().toString());
        assertTrue(took.compareTo(Duration.ofSeconds(30)) < 0, "took " + took);
        assertFalse(r.stats().watchdogFired());
    }
}
