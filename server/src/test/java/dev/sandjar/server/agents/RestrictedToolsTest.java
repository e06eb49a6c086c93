package dev.sandjar.server.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Limits;
import dev.sandjar.host.RunError;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Restricted tools and authorized code (issue 17): unauthorized code fails fast, authorized code
 * (outright or by an approved digest) runs, and an approver approves, refuses or never answers with
 * the clock suspended; a disabled or unknown tool fails with NOT_FOUND without reaching its
 * handler.
 */
@Timeout(120)
class RestrictedToolsTest {
    private static final Duration WALL = Duration.ofSeconds(2);
    private static final Limits LIMITS =
            Limits.builder()
                    .timeout(Duration.ofSeconds(2))
                    .wallTimeout(WALL)
                    .suspendAllowance(Duration.ofSeconds(3))
                    .build();

    private static final String TRANSFER =
            "import { transfer } from \"@sandjar/tools/bank\";\n"
                    + "try { finish(await transfer({ amount: 5 })); }\n"
                    + "catch (e) { finish([e.name, e.code, e.message]); }";

    private static Sandbox sandbox;
    private static final AtomicInteger HANDLED = new AtomicInteger();

    @BeforeAll
    static void start() {
        sandbox = Sandbox.builder().poolSize(1).build();
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    private static AgentExecutor executor() {
        ToolRegistry registry =
                ToolRegistry.builder()
                        .addTool(
                                Tool.builder("bank", "transfer")
                                        .withDescription("Moves money")
                                        .withParameters(
                                                "{\"type\":\"object\",\"properties\":{\"amount\":{\"type\":\"number\"}},\"required\":[\"amount\"]}")
                                        .restricted()
                                        .withHandler(
                                                call -> {
                                                    HANDLED.incrementAndGet();
                                                    return "sent "
                                                            + ((Map<?, ?>) call.arguments())
                                                                    .get("amount");
                                                })
                                        .build())
                        .addTool(
                                Tool.builder("bank", "balance")
                                        .withDescription("Reads the balance")
                                        .withHandler(call -> 100)
                                        .build())
                        .addTool(
                                Tool.builder("bank", "close_account")
                                        .withDescription("Closes the account")
                                        .disabled("closing accounts is switched off")
                                        .withHandler(
                                                call -> {
                                                    HANDLED.incrementAndGet();
                                                    return "closed";
                                                })
                                        .build())
                        .build();
        return AgentExecutor.builder(sandbox, registry).withLimits(LIMITS).build();
    }

    private static ActionResult act(String code, Authorization auth) {
        return executor().execute(code, e -> {}, SandboxClock.create(), auth);
    }

    @Test
    void unauthorizedCodeFailsFastWithoutAnApprover() {
        int before = HANDLED.get();
        ActionResult r = act(TRANSFER, Authorization.none());
        assertTrue(r.finished(), () -> String.valueOf(r.error()));
        List<?> e = (List<?>) r.result();
        assertEquals("ToolError", e.get(0));
        assertEquals(ToolException.REQUIRES_AUTHORIZED_CODE, e.get(1));
        assertTrue(((String) e.get(2)).contains("bank/transfer is restricted"), e.toString());
        assertEquals(before, HANDLED.get(), "the handler did not run");
        assertEquals(ToolException.REQUIRES_AUTHORIZED_CODE, r.toolCalls().get(0).errorCode());
        // an unrestricted tool of the same namespace is not affected
        ActionResult open =
                act(
                        "import { balance } from \"@sandjar/tools/bank\";\n"
                                + "finish(await balance());",
                        Authorization.none());
        assertEquals(100L, open.result());
    }

    @Test
    void authorizedCodeCallsTheTool() {
        assertEquals("sent 5", act(TRANSFER, Authorization.authorized()).result());
        assertEquals(
                "sent 5",
                act(TRANSFER, Authorization.approvedDigests(Set.of(Authorization.digest(TRANSFER))))
                        .result());
        // a digest of other code does not authorize this code
        List<?> other =
                (List<?>)
                        act(
                                        TRANSFER,
                                        Authorization.approvedDigests(
                                                Set.of(Authorization.digest(TRANSFER + " "))))
                                .result();
        assertEquals(ToolException.REQUIRES_AUTHORIZED_CODE, other.get(1));
    }

    @Test
    void anApproverDecidesWithTheClockSuspended() {
        // approves after longer than the wall bound: the suspension keeps the action alive
        List<Authorization.ApprovalRequest> asked = new java.util.ArrayList<>();
        ActionResult approved =
                act(
                        TRANSFER,
                        Authorization.none()
                                .withApprover(
                                        request -> {
                                            asked.add(request);
                                            return CompletableFuture.supplyAsync(
                                                    () -> true,
                                                    CompletableFuture.delayedExecutor(
                                                            WALL.toMillis() + 500,
                                                            TimeUnit.MILLISECONDS));
                                        }));
        assertEquals("sent 5", approved.result(), () -> String.valueOf(approved.error()));
        assertEquals("bank/transfer", asked.get(0).tool());
        assertEquals(Authorization.digest(TRANSFER), asked.get(0).codeDigest());
        assertEquals(Map.of("amount", 5L), asked.get(0).arguments());

        ActionResult refused =
                act(
                        TRANSFER,
                        Authorization.none()
                                .withApprover(r -> CompletableFuture.completedFuture(false)));
        List<?> e = (List<?>) refused.result();
        assertEquals(ToolException.DENIED, e.get(1));
        assertTrue(((String) e.get(2)).contains("was not approved"), e.toString());
    }

    @Test
    void anApproverThatNeverAnswersEndsAtTheWallBound() {
        // the suspension is credited up to the suspendAllowance (3 s); then the wall bound ends it
        ActionResult r =
                act(TRANSFER, Authorization.none().withApprover(req -> new CompletableFuture<>()));
        assertFalse(r.finished());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind());
        assertTrue(r.error().message().contains("wallTimeout"), r.error().message());
    }

    @Test
    void aDisabledOrUnknownToolFailsWithNotFoundWithoutReachingTheHost() {
        int before = HANDLED.get();
        ActionResult disabled =
                act(
                        "import { close_account } from \"@sandjar/tools/bank\";\n"
                                + "try { await close_account({}); } catch (e) { finish([e.name,"
                                + " e.code, e.message]); }",
                        Authorization.authorized());
        assertEquals(
                List.of(
                        "ToolError",
                        "NOT_FOUND",
                        "tool bank/close_account is disabled: closing accounts is switched off"),
                disabled.result());
        assertEquals(0, disabled.toolCalls().size(), "no call reached the host");
        assertEquals(before, HANDLED.get());
        ActionResult unknown =
                act(
                        "import { wire } from \"@sandjar/tools/bank\";\nfinish(await wire({}));",
                        Authorization.authorized());
        assertFalse(unknown.ran());
        assertEquals(RunError.Kind.IMPORT, unknown.error().kind());
        assertTrue(
                unknown.error()
                        .message()
                        .startsWith("NOT_FOUND: @sandjar/tools/bank has no tool 'wire'"),
                unknown.error().message());
        assertTrue(unknown.error().message().contains("transfer"), unknown.error().message());
    }
}
