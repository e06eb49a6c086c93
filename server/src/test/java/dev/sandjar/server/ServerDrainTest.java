package dev.sandjar.server;

import static dev.sandjar.server.ServerHarness.json;
import static dev.sandjar.server.ServerHarness.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Shutdown: while draining nothing new is admitted and {@code /readyz} fails, runs in flight finish
 * within the grace, and what is left after it is cancelled with its client told so. Each test stops
 * a server of its own.
 */
@ExtendWith(EngineLeakCheck.class)
class ServerDrainTest {
    private static final String CI = "drain-ci-token";

    private ServerHarness h;

    private ServerHarness start(Duration grace) {
        h =
                ServerHarness.start(
                        SandjarServer.builder()
                                .pool(1)
                                .drainGrace(grace)
                                .tokens(ServerHarness.ci(CI)));
        return h;
    }

    @AfterEach
    void close() {
        if (h != null) {
            h.close();
        }
    }

    @Test
    void aRunInFlightFinishesWhileNewRunsAre503() throws Exception {
        start(Duration.ofSeconds(30));
        // The sleep only has to outlast the few requests below, made once the run has logged.
        String code = "console.log('sleeping');\nawait sleep(2000);\nreturn 'woke';";
        try (SseStream s = h.stream(CI, run(code))) {
            assertEquals("run", s.next().name());
            assertEquals("log", s.next().name(), "the run is under way");

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(h.server::stop);
            ServerHarness.await(
                    "/readyz to fail", () -> h.get("/readyz", null).statusCode() == 503);
            assertFalse(h.server.isReady());
            assertEquals("DRAINING", json(h.get("/readyz", null)).get("code").asText());
            assertEquals(200, h.get("/healthz", null).statusCode(), "alive while draining");

            HttpResponse<String> refused = h.postRun(CI, run("return 1"));
            assertEquals(503, refused.statusCode(), refused.body());
            assertEquals("DRAINING", json(refused).get("code").asText());

            List<SseStream.Event> rest = s.rest();
            SseStream.Event last = rest.get(rest.size() - 1);
            assertEquals("result", last.name(), rest.toString());
            JsonNode r = json(last.data());
            assertTrue(r.get("ok").asBoolean(), last.data());
            assertEquals("woke", r.get("value").asText());

            stopping.get(ServerHarness.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void withNoGraceARunInFlightIsCancelledAndItsClientToldSo() throws Exception {
        start(Duration.ZERO);
        CompletableFuture<HttpResponse<String>> json =
                h.postRunAsync(CI, run("while (true) {}", 600_000));
        try (SseStream s = h.stream(CI, run("while (true) {}", 600_000))) {
            assertEquals("run", s.next().name());
            // One engine: one of the two runs holds it, the other waits in the queue.
            ServerHarness.await(
                    "both runs to be admitted", () -> h.metric(CI, "sandjar_queue_depth") == 1);
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(h.server::stop);

            List<SseStream.Event> rest = s.rest();
            assertFalse(rest.isEmpty(), "the client hears how its run ended");
            SseStream.Event last = rest.get(rest.size() - 1);
            assertEquals("result", last.name(), rest.toString());
            assertEquals("CANCELLED", json(last.data()).get("error").get("kind").asText());

            HttpResponse<String> answered =
                    json.get(ServerHarness.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(200, answered.statusCode(), answered.body());
            assertEquals(
                    "CANCELLED", json(answered).get("error").get("kind").asText(), answered.body());

            stopping.get(ServerHarness.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
    }
}
