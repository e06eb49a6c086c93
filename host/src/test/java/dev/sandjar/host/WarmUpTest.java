package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.testing.SandboxExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link Sandbox#warmUp}: real runs through every instance and the parser, bounded and stoppable.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WarmUpTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(2);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    @Test
    void theMixComputesTheSameAsAScriptAndAsAModule() {
        RunResult script =
                sandbox.run(RunRequest.builder(WarmUp.SCRIPT).input("rows", WarmUp.ROWS).build());
        RunResult module =
                sandbox.run(RunRequest.builder(WarmUp.MODULE).input("rows", WarmUp.ROWS).build());
        @SuppressWarnings("unchecked")
        Map<String, Object> v = (Map<String, Object>) script.valueOrThrow();
        assertEquals(v, module.valueOrThrow());
        assertEquals(610L, v.get("fib"));
        long total = WarmUp.ROWS.stream().mapToLong(r -> (Long) r.get("n")).sum();
        assertEquals(total, v.get("total"));
        assertEquals(37L, v.get("names"));
        assertEquals("TypeError", v.get("caught"));
        assertEquals(List.of(2L, 4L, 6L), v.get("doubled"));
        assertEquals(List.of(119L, 118L, 117L), v.get("sorted"));
        List<?> rows = (List<?>) v.get("rows");
        assertTrue(rows.size() > 60 && rows.size() < 120, "filtered rows: " + rows.size());
        assertEquals("ITEM-0", ((Map<?, ?>) rows.get(0)).get("tag"));
        assertEquals(
                Map.of("id", 7L, "label", "item-7#7", "score", 5.25),
                sandbox.run(
                                RunRequest.builder(WarmUp.SMALL)
                                        .input("item", WarmUp.ROWS.get(7))
                                        .build())
                        .valueOrThrow());
    }

    @Test
    void aWarmUpRunsOnEveryInstanceAndTheParserAtLeastOnce() {
        WarmUpReport report = sandbox.warmUp(Duration.ofMillis(1));
        int perRound = 2 * (1 + WarmUp.SMALL_PER_ROUND);
        assertTrue(report.runs() >= perRound, report.toString());
        assertEquals(report.runs() / perRound, report.parses(), report.toString());
        assertFalse(report.interrupted());
        assertEquals(2L, sandbox.run(RunRequest.builder("return 1 + 1").build()).valueOrThrow());
    }

    @Test
    void durationsOutOfRangeAreRefused() {
        for (Duration d : List.of(Duration.ZERO, Duration.ofSeconds(-1), Duration.ofMinutes(11))) {
            InvalidRequestException e =
                    assertThrows(InvalidRequestException.class, () -> sandbox.warmUp(d));
            assertTrue(e.getMessage().contains("at most 10 minutes, got " + d), e.getMessage());
        }
    }

    @Test
    void limitsTooTightForTheMixFailWithTheRunsError() {
        try (Sandbox tight =
                Sandbox.builder()
                        .poolSize(1)
                        .defaults(Limits.builder().outputBytes(1024).build())
                        .build()) {
            EngineException e =
                    assertThrows(EngineException.class, () -> tight.warmUp(Duration.ofSeconds(30)));
            assertTrue(e.getMessage().contains("OUTPUT, OutputTooLarge"), e.getMessage());
            assertTrue(e.getMessage().contains("defaults and ceilings"), e.getMessage());
        }
    }

    @Test
    void anInterruptedCallerStopsEarlyWithItsFlagSetAgain() {
        Thread.currentThread().interrupt();
        WarmUpReport report;
        try {
            report = sandbox.warmUp(Duration.ofMinutes(5));
        } finally {
            assertTrue(Thread.interrupted(), "the interrupt flag was not set again");
        }
        assertTrue(report.interrupted(), report.toString());
        assertEquals(2L, sandbox.run(RunRequest.builder("return 1 + 1").build()).valueOrThrow());
    }

    @Test
    void closingTheSandboxDuringAWarmUpEndsItWithThatReason() throws Exception {
        Sandbox closing = Sandbox.builder().poolSize(1).build();
        java.util.concurrent.CompletableFuture<Throwable> outcome =
                new java.util.concurrent.CompletableFuture<>();
        Thread warm =
                new Thread(
                        () -> {
                            try {
                                closing.warmUp(Duration.ofMinutes(5));
                                outcome.complete(null);
                            } catch (Throwable t) {
                                outcome.complete(t);
                            }
                        });
        warm.start();
        Thread.sleep(1500); // whatever the warm-up is doing when the close comes, it must stop
        closing.close();
        Throwable t = outcome.get(60, TimeUnit.SECONDS);
        assertTrue(t instanceof EngineException, String.valueOf(t));
        assertTrue(t.getMessage().contains("closed"), t.getMessage());
    }

    @Test
    void aClosedSandboxRefuses() {
        Sandbox closed = Sandbox.builder().poolSize(1).build();
        closed.close();
        assertThrows(EngineException.class, () -> closed.warmUp(Duration.ofSeconds(1)));
    }
}
