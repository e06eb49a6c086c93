package dev.sandjar.server;

import static dev.sandjar.server.ServerHarness.json;
import static dev.sandjar.server.ServerHarness.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One engine and no queue: a full house is 429, a client that goes away frees its engine, and a run
 * that spends its whole budget leaves the engine fit for the next. Each test leaves the engine free
 * for the next one ({@link #engineIsFree}).
 */
@ExtendWith(EngineLeakCheck.class)
class ServerLimitsTest {
    private static final String CI = "limits-ci-token";
    private static final String CANCELLED = "sandjar_runs_total{outcome=\"cancelled\"}";

    private static ServerHarness h;

    @BeforeAll
    static void start() {
        h =
                ServerHarness.start(
                        SandjarServer.builder().pool(1).queue(0).tokens(ServerHarness.ci(CI)));
    }

    @AfterAll
    static void stop() {
        if (h != null) {
            h.close();
        }
    }

    /** Waits until a run is admitted again: a test's endless run must not leak into the next. */
    @AfterEach
    void engineIsFree() {
        ServerHarness.await(
                "the engine to take a run",
                () -> h.postRun(CI, run("return 0")).statusCode() == 200);
    }

    @Test
    void aFullHouseIs429WithRetryAfter() {
        double rejected = h.metric(CI, "sandjar_runs_rejected_total");
        try (SseStream s = h.stream(CI, run("while (true) {}", 600_000))) {
            String id = json(s.next().data()).get("id").asText();

            HttpResponse<String> second = h.postRun(CI, run("return 1"));
            assertEquals(429, second.statusCode(), second.body());
            assertEquals("TOO_MANY_RUNS", json(second).get("code").asText());
            assertTrue(json(second).get("message").asText().contains("slots"), second.body());
            assertEquals("1", second.headers().firstValue("Retry-After").orElse(null));
            assertTrue(h.metric(CI, "sandjar_runs_rejected_total") >= rejected + 1);
            assertEquals(1, h.metric(CI, "sandjar_pool_busy"));

            assertEquals(202, h.delete("/api/runs/" + id, CI).statusCode());
            List<SseStream.Event> rest = s.rest();
            SseStream.Event result = rest.get(rest.size() - 1);
            assertEquals("result", result.name());
            assertEquals("CANCELLED", json(result.data()).get("error").get("kind").asText());
        }
    }

    @Test
    void aClientThatGoesAwayCancelsItsRun() {
        double cancelled = h.metric(CI, CANCELLED);
        SseStream s = h.stream(CI, run("while (true) {}", 600_000));
        assertEquals("run", s.next().name());
        assertEquals(1, h.metric(CI, "sandjar_pool_busy"));
        s.close();

        // The server notices at its next write (a heartbeat at the latest) and cancels.
        ServerHarness.await(
                "the abandoned run to be cancelled",
                () -> h.metric(CI, CANCELLED) >= cancelled + 1);
        // engineIsFree then shows the one engine takes a run again.
    }

    @Test
    void aRunThatSpendsItsCpuBudgetIsATimeoutAndTheEngineServesTheNext() {
        HttpResponse<String> hostile = h.postRun(CI, run("while (true) {}", 200));
        assertEquals(200, hostile.statusCode(), hostile.body());
        JsonNode r = json(hostile);
        assertFalse(r.get("ok").asBoolean(), hostile.body());
        assertEquals("TIMEOUT", r.get("error").get("kind").asText(), hostile.body());

        HttpResponse<String> next = h.postRun(CI, run("return [1, 2, 3].map(x => x * 2)"));
        assertEquals(200, next.statusCode(), next.body());
        assertTrue(json(next).get("ok").asBoolean(), next.body());
        assertEquals("[2,4,6]", json(next).get("value").toString());
    }

    @Test
    void aRunThatExhaustsItsHeapIsAMemoryErrorAndTheEngineServesTheNext() {
        HttpResponse<String> hostile =
                h.postRun(
                        CI,
                        "{\"code\":\"const a = []; while (true) a.push(new Array(1e5).fill(1));\","
                                + "\"limits\":{\"memoryMb\":16,\"timeoutMs\":60000}}");
        assertEquals(200, hostile.statusCode(), hostile.body());
        JsonNode r = json(hostile);
        assertFalse(r.get("ok").asBoolean(), hostile.body());
        assertEquals("MEMORY", r.get("error").get("kind").asText(), hostile.body());

        HttpResponse<String> next = h.postRun(CI, run("return 'fine'"));
        assertEquals(200, next.statusCode(), next.body());
        assertEquals("fine", json(next).get("value").asText(), next.body());
    }
}
