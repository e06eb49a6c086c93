package dev.sandjar.bridges.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Limits;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxRun;
import dev.sandjar.host.testing.GuestSignal;
import dev.sandjar.host.testing.SandboxExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** sleep(ms): waiting on the host's timer, checked arguments, and cancellation. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SleepTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(2);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    @Test
    void sleepWaitsWithoutSpendingTheCpuBudget() {
        long start = System.nanoTime();
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const v = await sleep(1500);\n"
                                                + "await Promise.all([1, 2, 3].map(() =>"
                                                + " sleep(1000.5)));\n"
                                                + "return v === undefined;")
                                .bridge(Sleep.bridge())
                                .limits(Limits.builder().timeout(Duration.ofMillis(2000)).build())
                                .build());
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(true, r.valueOrThrow());
        // 1,500 ms then three overlapping 1,000 ms sleeps: 2,500 ms of waiting, past the 2,000 ms
        // CPU budget. The budget is generous because it also pays for building the engine's
        // template on a cold JVM (hundreds of ms of CPU), which a 300 ms budget did not survive.
        assertTrue(elapsed >= 2500, "elapsed " + elapsed);
        assertTrue(r.stats().guestCpuNanos() < TimeUnit.MILLISECONDS.toNanos(2000));
    }

    @Test
    void badDurationsAreRefusedWithTheLimit() {
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const out = [];\n"
                                            + "for (const ms of [-1, NaN, Infinity, 30001, '100',"
                                            + " undefined, 10n]) {\n"
                                            + "  try { await sleep(ms); out.push('slept'); }\n"
                                            + "  catch (e) { out.push(`${e.name} ${e.code}:"
                                            + " ${e.message}`); }\n"
                                            + "}\n"
                                            + "await sleep(0);\n"
                                            + "return out;")
                                .bridge(Sleep.bridge())
                                .limits(
                                        Limits.builder()
                                                .wallTimeout(Duration.ofMillis(30000))
                                                .build())
                                .build());
        // The wall bound counts engine start and template building on a cold JVM too: 30 s, so
        // the run itself never hits it.
        String limit = "sleep: ms must be from 0 to 30000 (the run's wallTimeout), got ";
        assertEquals(
                List.of(
                        "RangeError INVALID_DELAY: " + limit + "-1",
                        "RangeError INVALID_DELAY: " + limit + "NaN",
                        "RangeError INVALID_DELAY: " + limit + "Infinity",
                        "RangeError INVALID_DELAY: " + limit + "30001",
                        "TypeError INVALID_ARGUMENT: sleep: ms must be a number, got a string",
                        "TypeError INVALID_ARGUMENT: sleep.sleep: argument 1 (ms) is required,"
                                + " got undefined",
                        "TypeError INVALID_ARGUMENT: sleep: ms must be a number, got a bigint"),
                r.valueOrThrow());
    }

    @Test
    void cancellingTheRunCutsASleepShort() throws Exception {
        GuestSignal sleeping = GuestSignal.named("sleeping");
        SandboxRun run =
                sandbox.submit(
                        RunRequest.builder(
                                        "const slept = sleep(20000);\nsleeping();\nawait"
                                                + " slept;\nreturn 'woke';")
                                .bridge(Sleep.bridge())
                                .bridge(sleeping.bridge())
                                .build());
        sleeping.await(Duration.ofSeconds(30)); // the sleep is in flight
        long start = System.nanoTime();
        run.cancel();
        RunResult r = run.result().get(10, TimeUnit.SECONDS);
        assertEquals(RunError.Kind.CANCELLED, r.error().kind());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void theWallClockBoundEndsARunThatSleepsPastIt() {
        long start = System.nanoTime();
        RunResult r =
                sandbox.run(
                        RunRequest.builder("await sleep(500); await sleep(500);")
                                .bridge(Sleep.bridge())
                                .limits(
                                        Limits.builder()
                                                .wallTimeout(Duration.ofMillis(700))
                                                .build())
                                .build());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind());
        assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(5000));
    }
}
