package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.testing.GuestSignal;
import dev.sandjar.host.testing.SandboxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The bridge SPI, the event loop, time while waiting, and cancellation. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BridgeAndEventLoopTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(2);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    /** {@code hold()}: makes the run's result wait for {@code delivery}. */
    private static Bridge holdBridge(java.util.concurrent.CompletableFuture<Void> delivery) {
        return Bridge.builder("hold")
                .guest("(host) => ({ hold: () => host.call(\"hold\") })")
                .operation(
                        Operation.builder("hold")
                                .handler(
                                        call -> {
                                            call.session().holdResultUntil(delivery);
                                            return null;
                                        })
                                .build())
                .build();
    }

    @Test
    void aHeldResultWaitsForItsStageWhileTheEngineServesTheNextRun() throws Exception {
        try (Sandbox one = Sandbox.builder().poolSize(1).build()) {
            java.util.concurrent.CompletableFuture<Void> delivery =
                    new java.util.concurrent.CompletableFuture<>();
            SandboxRun held =
                    one.submit(
                            RunRequest.builder("hold(); return 'held';")
                                    .bridge(holdBridge(delivery))
                                    .build());
            // The only engine is free: a second run completes while the first result waits.
            assertEquals(
                    "next", one.run(RunRequest.builder("return 'next'").build()).valueOrThrow());
            assertTrue(!held.isDone(), "the result did not wait for its stage");
            delivery.completeExceptionally(new IllegalStateException("however it ends"));
            assertEquals("held", held.result().get(30, TimeUnit.SECONDS).valueOrThrow());
        }
    }

    @Test
    void aHoldThatNeverEndsLetsTheResultGoAfterTheCap() {
        RunResult r =
                sandbox.run(
                        RunRequest.builder("hold(); return 'released';")
                                .bridge(holdBridge(new java.util.concurrent.CompletableFuture<>()))
                                .build());
        assertEquals("released", r.valueOrThrow());
    }

    @Test
    void promiseAllOverFiveSlowCallsOverlapsThem() {
        TestBridges.Sleep sleep = new TestBridges.Sleep();
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const calls = [1, 2, 3, 4, 5].map(() => sleep(1000));\n"
                                                + "await Promise.all(calls);\nreturn 'done';")
                                .bridge(sleep.bridge)
                                .build());
        assertEquals("done", r.valueOrThrow());
        assertEquals(5, sleep.spans.size());
        long lastStart =
                sleep.spans.stream().mapToLong(TestBridges.Span::startNanos).max().orElseThrow();
        long firstEnd =
                sleep.spans.stream().mapToLong(TestBridges.Span::endNanos).min().orElseThrow();
        // All five were started by the host before any of them finished: one round trip. Each
        // waits 1 s so that issuing five calls on a cold, loaded JVM fits well inside one wait.
        assertTrue(lastStart < firstEnd, "the calls ran one after another");
        assertEquals(5, r.stats().bridgeCalls());
    }

    @Test
    void workStartsWhenCalledNotWhenAwaited() {
        TestBridges.Sleep sleep = new TestBridges.Sleep();
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const a = sleep(1000);\n"
                                            + "let n = 0; for (let i = 0; i < 1000; i++) n += i;\n"
                                            + "const b = sleep(1000);\n"
                                            + "await a; await b; return n;")
                                .bridge(sleep.bridge)
                                .build());
        assertEquals(499500L, r.valueOrThrow());
        // Started when called, b starts long before a ends (1 s sleeps leave room for a cold guest
        // between the two calls); started when awaited, b would start only after a ended.
        assertTrue(sleep.spans.get(1).startNanos() < sleep.spans.get(0).endNanos());
    }

    @Test
    void waitingOnTheHostDoesNotBurnTheCpuBudget() {
        TestBridges.Sleep sleep = new TestBridges.Sleep();
        RunResult r =
                sandbox.run(
                        RunRequest.builder("await sleep(2500);\nreturn 'slept';")
                                .bridge(sleep.bridge)
                                .limits(Limits.builder().timeout(Duration.ofMillis(2000)).build())
                                .build());
        // The CPU budget also pays for building the engine's template on a cold JVM (hundreds of
        // ms), so it is 2 s; the wait is longer than the budget, which is the point.
        assertEquals("slept", r.valueOrThrow());
        assertTrue(r.stats().guestCpuNanos() < TimeUnit.MILLISECONDS.toNanos(2000));
    }

    @Test
    void theWallClockBoundStopsAGuestThatOnlyWaits() {
        TestBridges.Sleep sleep = new TestBridges.Sleep();
        RunResult r =
                sandbox.run(
                        RunRequest.builder("while (true) await sleep(100);")
                                .bridge(sleep.bridge)
                                .limits(
                                        Limits.builder()
                                                .wallTimeout(Duration.ofMillis(400))
                                                .build())
                                .build());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind());
        assertTrue(r.error().message().contains("wallTimeout"), r.error().message());
    }

    @Test
    void aSuspendedClockDoesNotCountAgainstTheWallBound() throws Exception {
        SandboxClock clock = SandboxClock.create();
        TestBridges.Sleep sleep = new TestBridges.Sleep();
        RunResult r;
        SandboxClock.Suspension waiting = clock.suspend();
        try {
            r =
                    sandbox.run(
                            RunRequest.builder("await sleep(700);\nreturn 'answered';")
                                    .bridge(sleep.bridge)
                                    .clock(clock)
                                    .limits(
                                            Limits.builder()
                                                    .wallTimeout(Duration.ofMillis(300))
                                                    .build())
                                    .build());
        } finally {
            waiting.close();
        }
        assertEquals("answered", r.valueOrThrow());
        assertTrue(clock.suspended().toMillis() >= 700);

        // The allowance caps the credit: with none, the same wait is cut.
        SandboxClock stingy = SandboxClock.create();
        SandboxClock.Suspension unpaid = stingy.suspend();
        try {
            r =
                    sandbox.run(
                            RunRequest.builder("await sleep(700);\nreturn 'answered';")
                                    .bridge(sleep.bridge)
                                    .clock(stingy)
                                    .limits(
                                            Limits.builder()
                                                    .wallTimeout(Duration.ofMillis(300))
                                                    .suspendAllowance(Duration.ZERO)
                                                    .build())
                                    .build());
        } finally {
            unpaid.close();
        }
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind());
    }

    @Test
    void argumentsAreCheckedBeforeAnyHandlerRuns() {
        TestBridges.Typed typed = new TestBridges.Typed();
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const out = [typed('a', 2), typed('b', 3, new"
                                            + " Uint8Array(5))];\n"
                                            + "for (const bad of [[1, 2], ['a'], ['a', 11], ['a',"
                                            + " 1.5], ['toolongname', 1], ['a', 1, 'x'], ['a', 1,"
                                            + " null, 'extra']]) {\n"
                                            + "  try { typed(...bad); out.push('accepted'); }\n"
                                            + "  catch (e) { out.push(e.name + ' ' + e.code + ' ' +"
                                            + " e.message); }\n"
                                            + "}\n"
                                            + "try { typedRaw('nope'); } catch (e) {"
                                            + " out.push(e.code + ' ' + e.message); }\n"
                                            + "return out;")
                                .bridge(typed.bridge)
                                .build());
        List<?> out = (List<?>) r.valueOrThrow();
        assertEquals("a:2:-1", out.get(0));
        assertEquals("b:3:5", out.get(1));
        assertEquals(
                "TypeError INVALID_ARGUMENT typed.op: argument 1 (name) must be a string, got a"
                        + " number",
                out.get(2));
        assertEquals(
                "TypeError INVALID_ARGUMENT typed.op: argument 2 (count) is required", out.get(3));
        assertTrue(((String) out.get(4)).contains("must be between 1 and 10"), (String) out.get(4));
        assertTrue(((String) out.get(5)).contains("must be an integer"), (String) out.get(5));
        assertTrue(((String) out.get(6)).contains("at most 8"), (String) out.get(6));
        assertTrue(
                ((String) out.get(7)).contains("Uint8Array or ArrayBuffer"), (String) out.get(7));
        assertTrue(((String) out.get(8)).contains("at most 3 argument"), (String) out.get(8));
        assertEquals("UNKNOWN_OPERATION bridge typed has no operation 'nope'", out.get(9));
        assertEquals(2, typed.calls.get(), "a handler ran for a refused call");
    }

    @Test
    void bridgeFailuresAreRealErrorsWithStableNamesAndCodes() {
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const out = [];\n"
                                            + "for (const f of [failBridge, failHost]) {\n"
                                            + "  try { f(); } catch (e) { out.push([e instanceof"
                                            + " Error, e.name, e.code, e.message]); }\n"
                                            + "}\n"
                                            + "try { await failLater(); } catch (e) { out.push([e"
                                            + " instanceof Error, e.name, e.code, e.message]); }\n"
                                            + "return out;")
                                .bridge(TestBridges.failing())
                                .build());
        assertEquals(
                List.of(
                        List.of(true, "QuotaError", "QUOTA", "the quota is 3 calls"),
                        List.of(
                                true,
                                "HostError",
                                "HOST_ERROR",
                                "fail.host failed on the host (IllegalStateException)"),
                        List.of(true, "FetchError", "BLOCKED_ADDRESS", "10.0.0.1 is private")),
                r.valueOrThrow());
    }

    @Test
    void valuesCrossToAndFromOperationsWithTheirTypes() {
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const v = {d: new Date(5), b: new Uint8Array([1, 2]), m:"
                                            + " new Map([[1, 'one']]), big: 2n ** 70n, u:"
                                            + " undefined, nan: NaN, s: 'x'.repeat(9000)};\n"
                                            + "const back = echo(v);\n"
                                            + "const later = await echoLater(v);\n"
                                            + "return [back.d instanceof Date, back.d.getTime(),"
                                            + " back.b instanceof Uint8Array, back.m.get(1),"
                                            + " back.big === 2n ** 70n, 'u' in back,"
                                            + " Number.isNaN(later.nan), later.s.length,"
                                            + " echo(null), echo(), echo(-0) ===0 && 1/echo(-0)];")
                                .bridge(TestBridges.echo())
                                .build());
        assertEquals(
                java.util.Arrays.asList(
                        true,
                        5L,
                        true,
                        "one",
                        true,
                        true,
                        true,
                        9000L,
                        null,
                        null,
                        Double.NEGATIVE_INFINITY),
                r.valueOrThrow());
    }

    @Test
    void aFunctionArgumentFailsInTheGuestNamingItsPath() {
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "try { echo({cb: () => 1}); } catch (e) { return e.name +"
                                                + " ': ' + e.message; }")
                                .bridge(TestBridges.echo())
                                .build());
        assertEquals(
                "TransportError: echo.echo[0].cb is a function, which cannot leave the sandbox",
                r.valueOrThrow());
    }

    @Test
    void hostOperationsInFlightAreCapped() {
        TestBridges.Hang hang = new TestBridges.Hang();
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const started = [];\n"
                                            + "try { for (let i = 0; i < 10; i++)"
                                            + " started.push(hang()); }\n"
                                            + "catch (e) { return [started.length, e.name, e.code];"
                                            + " }")
                                .bridge(hang.bridge)
                                .limits(Limits.builder().pendingOperations(4).build())
                                .build());
        assertEquals(List.of(4L, "RangeError", "PENDING_LIMIT"), r.valueOrThrow());
        assertEquals(4, hang.handled.get());
        // The run ended with work in flight: all of it was cancelled, every end action ran.
        assertTrue(hang.started.stream().allMatch(f -> f.isCancelled()));
        assertEquals(4, hang.ended.get());
    }

    @Test
    void cancellationInterruptsACpuBoundLoopAndStopsBridgeWork() throws Exception {
        TestBridges.Hang hang = new TestBridges.Hang();
        SandboxRun run =
                sandbox.submit(
                        RunRequest.builder("hang();\nlet n = 0;\nwhile (true) n++;")
                                .bridge(hang.bridge)
                                .build());
        // Once hang() was handled, the loop is all the guest has left to run.
        assertTrue(hang.called.await(30, TimeUnit.SECONDS), "hang() was not called");
        run.cancel();
        RunResult r = run.result().get(30, TimeUnit.SECONDS);
        assertEquals(RunError.Kind.CANCELLED, r.error().kind());
        assertTrue(hang.started.get(0).isCancelled());
        assertEquals(1, hang.ended.get());
    }

    @Test
    void afterCancellationFurtherBridgeCallsFailFast() throws Exception {
        TestBridges.Hang hang = new TestBridges.Hang();
        java.util.concurrent.CompletableFuture<SandboxRun> self =
                new java.util.concurrent.CompletableFuture<>();
        // cancelSelf() cancels the run from inside a host call, so the guest is still running
        // when it makes its next call. (A cancel from outside stops the guest at QuickJS's next
        // interrupt check, before any further call; that check comes once per ~10,000 calls and
        // jumps, so it all but never falls in the few operations between these two calls.)
        Bridge cancelSelf =
                Bridge.builder("cancel")
                        .guest("(host) => ({ cancelSelf: () => host.call(\"cancel\") })")
                        .operation(
                                Operation.builder("cancel")
                                        .handler(
                                                c -> {
                                                    self.join().cancel();
                                                    return c.session().isCancelled();
                                                })
                                        .build())
                        .build();
        SandboxRun run =
                sandbox.submit(
                        RunRequest.builder(
                                        "hang();\n"
                                                + "if (!cancelSelf()) throw new Error('not"
                                                + " cancelled');\n"
                                                + "try { hang(); } catch (e) {}\n"
                                                + "await new Promise(() => {});")
                                .bridge(hang.bridge)
                                .bridge(cancelSelf)
                                .build());
        self.complete(run);
        RunResult r = run.result().get(30, TimeUnit.SECONDS);
        assertEquals(RunError.Kind.CANCELLED, r.error().kind(), String.valueOf(r.error()));
        assertEquals(1, hang.handled.get(), "a call after cancellation reached its handler");
        assertTrue(hang.started.get(0).isCancelled(), "the call in flight was not cancelled");
    }

    @Test
    void aQueuedRunCancelledBeforeItStartsNeverRuns() throws Exception {
        try (Sandbox one = Sandbox.builder().poolSize(1).build()) {
            TestBridges.Hang hang = new TestBridges.Hang();
            SandboxRun busy =
                    one.submit(RunRequest.builder("await hang();").bridge(hang.bridge).build());
            TestBridges.Typed typed = new TestBridges.Typed();
            SandboxRun queued =
                    one.submit(RunRequest.builder("typed('x', 1)").bridge(typed.bridge).build());
            queued.cancel();
            assertEquals(
                    RunError.Kind.CANCELLED,
                    queued.result().get(10, TimeUnit.SECONDS).error().kind());
            busy.cancel();
            busy.result().get(10, TimeUnit.SECONDS);
            assertEquals(0, typed.calls.get());
            // The pool still serves.
            assertEquals(3L, one.run(RunRequest.builder("return 3").build()).valueOrThrow());
        }
    }

    @Test
    void interruptingACallerOfRunCancelsTheRun() throws Exception {
        GuestSignal started = GuestSignal.named("started");
        java.util.concurrent.CompletableFuture<RunResult> result =
                new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletableFuture<Boolean> flagSetAgain =
                new java.util.concurrent.CompletableFuture<>();
        Thread caller =
                new Thread(
                        () -> {
                            try {
                                result.complete(
                                        sandbox.run(
                                                RunRequest.builder("started(); while (true) {}")
                                                        .bridge(started.bridge())
                                                        .build()));
                                flagSetAgain.complete(Thread.currentThread().isInterrupted());
                            } catch (Throwable t) {
                                result.completeExceptionally(t);
                            }
                        });
        caller.start();
        started.await(Duration.ofSeconds(30));
        caller.interrupt();
        // Well inside the run's 30 s CPU budget: only the interrupt can have ended it by then.
        RunResult r;
        try {
            r = result.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("interrupting the caller did not end the run within 10 s", e);
        }
        assertEquals(RunError.Kind.CANCELLED, r.error().kind(), String.valueOf(r.error()));
        assertTrue(flagSetAgain.get(10, TimeUnit.SECONDS), "the interrupt flag was not set again");
        caller.join(10_000);
        assertFalse(caller.isAlive(), "the caller of run is still blocked");
    }

    @Test
    void theLogIsCappedWithOneNoticeAndSeenLive() {
        List<LogEntry> live = Collections.synchronizedList(new ArrayList<>());
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "for (let i = 0; i < 50; i++) log('INFO', 'line ' + i);\n"
                                                + "return 1;")
                                .bridge(TestBridges.log())
                                .limits(Limits.builder().logLines(10).build())
                                .onLog(live::add)
                                .build());
        List<LogEntry> logs = r.logs();
        assertEquals(11, logs.size());
        assertEquals("line 0", logs.get(0).message());
        assertEquals(LogEntry.Level.INFO, logs.get(0).level());
        LogEntry notice = logs.get(10);
        assertEquals("sandjar", notice.source());
        assertTrue(notice.message().contains("40 line(s)"), notice.message());
        assertTrue(notice.message().contains("logLines 10"), notice.message());
        assertEquals(11, live.size());

        RunResult chars =
                sandbox.run(
                        RunRequest.builder(
                                        "log('INFO', 'x'.repeat(100)); log('INFO',"
                                                + " 'y'.repeat(100));")
                                .bridge(TestBridges.log())
                                .limits(Limits.builder().logChars(150).build())
                                .build());
        assertEquals(2, chars.logs().size());
        assertTrue(chars.logs().get(1).message().contains("logChars 150"));
    }

    @Test
    void twoBridgesMayNotDefineOneGlobalAndReservedGlobalsAreRefused() {
        Bridge a = Bridge.builder("a").guest("(h) => ({ shared: 1 })").build();
        Bridge b = Bridge.builder("b").guest("(h) => ({ shared: 2 })").build();
        InvalidRequestException clash =
                assertThrows(
                        InvalidRequestException.class,
                        () ->
                                sandbox.run(
                                        RunRequest.builder("return 1")
                                                .bridge(a)
                                                .bridge(b)
                                                .build()));
        assertTrue(
                clash.getMessage().contains("both define the global 'shared'"), clash.getMessage());
        InvalidRequestException reserved =
                assertThrows(
                        InvalidRequestException.class,
                        () ->
                                sandbox.run(
                                        RunRequest.builder("return 1")
                                                .global("JSON", Map.of())
                                                .build()));
        assertTrue(reserved.getMessage().contains("'JSON' is reserved"), reserved.getMessage());
        InvalidRequestException bridgeName =
                assertThrows(
                        InvalidRequestException.class,
                        () ->
                                sandbox.run(
                                        RunRequest.builder("return 1")
                                                .bridge(a)
                                                .global("shared", 3)
                                                .build()));
        assertTrue(bridgeName.getMessage().contains("granted bridge a"), bridgeName.getMessage());
        assertThrows(
                InvalidRequestException.class,
                () -> RunRequest.builder("x").global("not-an-identifier", 1));
    }

    @Test
    void aHandlerCannotWaitForANestedRunButCanReturnOne() {
        Bridge nested =
                Bridge.builder("nested")
                        .guest(
                                "(host) => ({ nestedRun: (c) => host.call(\"run\", c),"
                                        + " nestedSubmit: (c) => host.call(\"submit\", c) })")
                        .operation(
                                Operation.builder("run")
                                        .param(Param.string("code"))
                                        .handler(
                                                c ->
                                                        sandbox.run(
                                                                        RunRequest.builder(
                                                                                        c.string(0))
                                                                                .build())
                                                                .value())
                                        .build())
                        .operation(
                                Operation.builder("submit")
                                        .param(Param.string("code"))
                                        .handler(
                                                c ->
                                                        sandbox.submit(
                                                                        RunRequest.builder(
                                                                                        c.string(0))
                                                                                .build())
                                                                .result()
                                                                .thenApply(RunResult::value))
                                        .build())
                        .build();
        RunResult refused =
                sandbox.run(
                        RunRequest.builder("return await nestedRun('return 1')")
                                .bridge(nested)
                                .build());
        // The handler's IllegalStateException is a host failure: the guest sees HostError only.
        assertEquals(RunError.Kind.EXCEPTION, refused.error().kind(), refused.error().toString());
        RunResult returned =
                sandbox.run(
                        RunRequest.builder("return await nestedSubmit('return 20 + 1')")
                                .bridge(nested)
                                .build());
        assertEquals(21L, returned.valueOrThrow());
    }
}
