package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.testing.GuestSignal;
import dev.sandjar.host.testing.SandboxExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults injected into runs on a pool of one: bridges that throw, never complete or have their
 * async work rejected, a stack overflow inside a host call, and a cancel at each phase of a run.
 * After each, the one engine must serve the next run with the right value and no run may have
 * leaked engine objects ({@link Sandbox#leaks()}; the extension checks threads and engines after
 * the class).
 */
class FaultInjectionTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    private static final Duration WAIT = Duration.ofSeconds(30);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    /** The pool serves an ordinary run correctly and nothing leaked. */
    @AfterEach
    void poolStillServes() {
        RunResult r = sandbox.run(RunRequest.builder("return 6 * 7").build());
        assertTrue(r.isOk(), r.toString());
        assertEquals(42L, r.value());
        assertEquals(0, sandbox.leaks(), "a run left engine objects open");
    }

    /** A bridge {@code fault()} whose handler is {@code handler}. */
    private static Bridge fault(Operation.Handler handler) {
        return Bridge.builder("fault")
                .guest("(host) => ({ fault: () => host.call(\"fault\") })")
                .operation(Operation.builder("fault").handler(handler).build())
                .build();
    }

    private static RunResult runWith(String code, Bridge bridge, Limits limits) {
        return sandbox.run(RunRequest.builder(code).bridge(bridge).limits(limits).build());
    }

    private static void assertFails(RunResult r, RunError.Kind kind) {
        assertFalse(r.isOk(), r.toString());
        assertEquals(kind, r.error().kind(), r.toString());
    }

    @Test
    void aBridgeThatThrowsARuntimeExceptionFailsOnlyItsCall() {
        Bridge b =
                fault(
                        c -> {
                            throw new IllegalStateException("injected");
                        });
        RunResult r =
                runWith(
                        "try { fault(); } catch (e) { return 'caught ' + e.name; }",
                        b,
                        Limits.none());
        assertTrue(r.isOk(), r.toString());
        assertEquals("caught HostError", r.value());
        assertFails(runWith("fault()", b, Limits.none()), RunError.Kind.EXCEPTION);
    }

    @Test
    void aBridgeThatThrowsAnErrorEndsTheRunWithoutBreakingThePool() {
        for (Supplier<Error> error :
                java.util.List.<Supplier<Error>>of(
                        () -> new AssertionError("injected"),
                        () -> new StackOverflowError(),
                        () -> new OutOfMemoryError("injected"))) {
            Bridge b =
                    fault(
                            c -> {
                                throw error.get();
                            });
            assertRunFailsOrEngineReplaced(() -> runWith("fault(); return 1", b, Limits.none()));
            RunResult next = sandbox.run(RunRequest.builder("return 'next'").build());
            assertEquals("next", next.value(), next.toString());
        }
    }

    @Test
    void aRealStackOverflowInsideAHostCall() {
        Bridge b = fault(c -> recurse(0));
        assertRunFailsOrEngineReplaced(() -> runWith("fault(); return 1", b, Limits.none()));
    }

    /**
     * A {@link Error} out of a host call may leave the engine thread's wasm state undefined (a
     * stack overflow does: the import fails mid-call), so the sandbox declares the instance broken,
     * replaces it and fails the run with {@link EngineException} rather than a result; either is
     * fine here, as long as the pool serves the next run ({@link #poolStillServes}).
     */
    private static void assertRunFailsOrEngineReplaced(Supplier<RunResult> run) {
        try {
            RunResult r = run.get();
            assertFalse(r.isOk(), r.toString());
        } catch (EngineException e) {
            assertTrue(e.getMessage().contains("Error"), e.getMessage());
        }
    }

    private static int recurse(int n) {
        return recurse(n + 1) + 1;
    }

    @Test
    void aStageThatNeverCompletesEndsAtTheWallBound() {
        Bridge b = fault(c -> new CompletableFuture<>());
        long t0 = System.nanoTime();
        RunResult r =
                runWith(
                        "await fault(); return 1",
                        b,
                        Limits.builder().wallTimeout(Duration.ofSeconds(1)).build());
        assertFails(r, RunError.Kind.TIMEOUT);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "ended late");
    }

    @Test
    void rejectedAsyncWorkFailsTheCall() {
        Executor rejecting =
                task -> {
                    throw new RejectedExecutionException("injected: the executor is full");
                };
        Bridge thrown = fault(c -> CompletableFuture.supplyAsync(() -> 1, rejecting));
        assertFails(
                runWith("await fault(); return 1", thrown, Limits.none()), RunError.Kind.EXCEPTION);
        Bridge failedStage =
                fault(
                        c ->
                                CompletableFuture.failedFuture(
                                        new RejectedExecutionException("injected")));
        RunResult r =
                runWith(
                        "try { await fault(); } catch (e) { return 'caught ' + e.name; }",
                        failedStage,
                        Limits.none());
        assertEquals("caught HostError", r.value(), r.toString());
    }

    // ---------------------------------------------------------------------------------------
    // cancel() at each phase.

    @Test
    void cancelWhileQueued() throws Exception {
        GuestSignal started = GuestSignal.named("started");
        SandboxRun holder =
                sandbox.submit(
                        RunRequest.builder("started(); await fault();")
                                .bridge(started.bridge())
                                .bridge(fault(c -> new CompletableFuture<>()))
                                .build());
        started.await(WAIT);
        SandboxRun queued = sandbox.submit(RunRequest.builder("return 'ran'").build());
        queued.cancel();
        RunResult q = queued.result().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertFails(q, RunError.Kind.CANCELLED);
        holder.cancel();
        assertFails(
                holder.result().get(WAIT.toSeconds(), TimeUnit.SECONDS), RunError.Kind.CANCELLED);
    }

    @Test
    void anUncaughtCancelledErrorFromAHostCallEndsTheRunAsCancelled() throws Exception {
        // Found by cancelWhileQueued: a cancel that lands between two host calls reaches the
        // guest as a CancelledError from the second; uncaught, the run ended as EXCEPTION.
        CompletableFuture<SandboxRun> self = new CompletableFuture<>();
        Bridge cancelSelf =
                fault(
                        c -> {
                            self.join().cancel();
                            return null;
                        });
        SandboxRun run =
                sandbox.submit(
                        RunRequest.builder("fault(); fault(); return 1")
                                .bridge(cancelSelf)
                                .build());
        self.complete(run);
        assertFails(run.result().get(WAIT.toSeconds(), TimeUnit.SECONDS), RunError.Kind.CANCELLED);
    }

    @Test
    void cancelRightAfterSubmitLandsInSetupOrBefore() throws Exception {
        for (int i = 0; i < 40; i++) {
            SandboxRun run =
                    sandbox.submit(
                            RunRequest.builder(
                                            "let s = 0; for (let i = 0; i < 1e5; i++) s += i;"
                                                    + " return s")
                                    .global("input", java.util.Map.of("i", i))
                                    .build());
            if (i % 2 == 1) {
                Thread.sleep(i % 4);
            }
            run.cancel();
            RunResult r = run.result().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            if (r.isOk()) {
                assertEquals(4999950000L, r.value()); // it finished before the cancel
            } else {
                assertEquals(RunError.Kind.CANCELLED, r.error().kind(), r.toString());
            }
            RunResult next = sandbox.run(RunRequest.builder("return " + i).build());
            assertEquals((long) i, next.value(), next.toString());
        }
    }

    @Test
    void cancelDuringEvaluation() throws Exception {
        GuestSignal looping = GuestSignal.named("looping");
        SandboxRun run =
                sandbox.submit(
                        RunRequest.builder("looping(); while (true) {}")
                                .bridge(looping.bridge())
                                .build());
        looping.await(WAIT);
        run.cancel();
        assertFails(run.result().get(WAIT.toSeconds(), TimeUnit.SECONDS), RunError.Kind.CANCELLED);
    }

    @Test
    void cancelDuringAPendingHostCall() throws Exception {
        GuestSignal calling = GuestSignal.named("calling");
        CompletableFuture<Object> pending = new CompletableFuture<>();
        SandboxRun run =
                sandbox.submit(
                        RunRequest.builder("const p = fault(); calling(); return await p;")
                                .bridge(calling.bridge())
                                .bridge(fault(c -> pending))
                                .build());
        calling.await(WAIT);
        run.cancel();
        assertFails(run.result().get(WAIT.toSeconds(), TimeUnit.SECONDS), RunError.Kind.CANCELLED);
        assertTrue(pending.isCancelled(), "the host work in flight was not cancelled");
    }

    @Test
    void cancelDuringResultEncoding() throws Exception {
        // An element getter runs while the result is written out, after the user code returned.
        GuestSignal encoding = GuestSignal.named("encoding");
        SandboxRun run =
                sandbox.submit(
                        RunRequest.builder(
                                        "const a = [1, {x: 1}];\n"
                                                + "let once = false;\n"
                                                + "Object.defineProperty(a, 0, { get() {\n"
                                                + "  if (!once) { once = true; encoding(); }\n"
                                                + "  while (true) {}\n"
                                                + "}, enumerable: true });\n"
                                                + "return a;")
                                .bridge(encoding.bridge())
                                .build());
        encoding.await(WAIT);
        run.cancel();
        assertFails(run.result().get(WAIT.toSeconds(), TimeUnit.SECONDS), RunError.Kind.CANCELLED);
    }
}
