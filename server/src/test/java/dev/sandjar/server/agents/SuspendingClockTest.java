package dev.sandjar.server.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Limits;
import dev.sandjar.host.RunError;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxClock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The suspending clock: a tool that waits for a person's approval does not use the action's
 * wall-clock budget, and a runaway loop is still cut at the CPU budget. The approval takes twice
 * the wall bound: without the suspension the same wait ends the action.
 */
@Timeout(120)
class SuspendingClockTest {
    private static final Duration WALL = Duration.ofSeconds(2);
    private static final long APPROVAL_MS = 2 * WALL.toMillis();

    private static final Limits LIMITS =
            Limits.builder()
                    .timeout(Duration.ofSeconds(1))
                    .wallTimeout(WALL)
                    .suspendAllowance(Duration.ofMinutes(1))
                    .build();

    private static Sandbox sandbox;

    @BeforeAll
    static void start() {
        sandbox = Sandbox.create();
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    /** A person who answers "yes" after {@link #APPROVAL_MS}. */
    private static CompletableFuture<Object> person() {
        return CompletableFuture.supplyAsync(
                () -> Map.of("approved", true),
                CompletableFuture.delayedExecutor(APPROVAL_MS, TimeUnit.MILLISECONDS));
    }

    private static AgentExecutor executor() {
        ToolRegistry registry =
                ToolRegistry.builder()
                        .addTool(
                                Tool.builder("ops", "approve")
                                        .withDescription("Asks a person to approve a step")
                                        .suspendsClock()
                                        .withHandler(call -> person())
                                        .build())
                        .addTool(
                                Tool.builder("ops", "ask_nobody")
                                        .withDescription("A prompt nobody answers")
                                        .suspendsClock()
                                        .withHandler(call -> new CompletableFuture<Object>())
                                        .build())
                        .addTool(
                                Tool.builder("ops", "approve_by_hand")
                                        .withDescription("Suspends only while the person is asked")
                                        .withHandler(
                                                call -> {
                                                    SandboxClock.Suspension s = call.suspendClock();
                                                    return person().whenComplete(
                                                                    (v, t) -> s.close());
                                                })
                                        .build())
                        .addTool(
                                Tool.builder("ops", "approve_unsuspended")
                                        .withDescription("The same wait, charged to the action")
                                        .withHandler(call -> person())
                                        .build())
                        .build();
        return AgentExecutor.builder(sandbox, registry).withLimits(LIMITS).build();
    }

    @Test
    void anApprovalLongerThanTheWallBoundDoesNotEndTheAction() {
        ActionResult r =
                executor()
                        .execute(
                                "import { approve } from \"@sandjar/tools/ops\";\n"
                                        + "const a = await approve({});\n"
                                        + "finish(a.approved);");
        assertTrue(r.ran(), () -> String.valueOf(r.error()));
        assertTrue(r.finished());
        assertEquals(true, r.result());
    }

    @Test
    void aHandlerMaySuspendTheClockItself() {
        ActionResult r =
                executor()
                        .execute(
                                "import { approve_by_hand } from \"@sandjar/tools/ops\";\n"
                                        + "finish((await approve_by_hand({})).approved);");
        assertTrue(r.finished(), () -> String.valueOf(r.error()));
    }

    @Test
    void theSameWaitUnsuspendedEndsTheActionAtTheWallBound() {
        ActionResult r =
                executor()
                        .execute(
                                "import { approve_unsuspended } from \"@sandjar/tools/ops\";\n"
                                        + "finish((await approve_unsuspended({})).approved);");
        assertFalse(r.finished());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind());
        assertTrue(
                r.error().message().contains("wall-clock bound (wallTimeout) of 2000 ms"),
                r.error().message());
    }

    @Test
    void aRunawayLoopIsCutAtTheCpuBudgetEvenWhileTheClockIsSuspended() {
        // the prompt is pending, the clock suspended for good, while the guest spins: only the CPU
        // budget can end it
        ActionResult r =
                executor()
                        .execute(
                                "import { ask_nobody } from \"@sandjar/tools/ops\";\n"
                                        + "const pending = ask_nobody({});\n"
                                        + "while (true) {}");
        assertFalse(r.finished());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind());
        assertTrue(
                r.error().message().contains("CPU budget (timeout) of 1000 ms"),
                r.error().message());
    }

    @Test
    void aLoopAfterAnApprovalIsStillCut() {
        // the clock runs again once the approval is in: the loop ends at the CPU budget or the
        // wall bound, whichever a loaded machine reaches first
        ActionResult r =
                executor()
                        .execute(
                                "import { approve } from \"@sandjar/tools/ops\";\n"
                                        + "await approve({});\n"
                                        + "while (true) {}");
        assertTrue(r.toolCalls().get(0).ok());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind());
    }

    @Test
    void aTurnsClockIsSharedAndSuspendableFromOutside() {
        SandboxClock turn = SandboxClock.create();
        ActionResult r;
        // a plan approval around the action: the whole wait is suspended
        SandboxClock.Suspension plan = turn.suspend();
        try {
            r =
                    executor()
                            .execute(
                                    "import { approve_unsuspended } from \"@sandjar/tools/ops\";\n"
                                            + "finish((await approve_unsuspended({})).approved);",
                                    e -> {},
                                    turn);
        } finally {
            plan.close();
        }
        assertFalse(turn.isSuspended());
        assertTrue(r.finished(), () -> String.valueOf(r.error()));
    }
}
