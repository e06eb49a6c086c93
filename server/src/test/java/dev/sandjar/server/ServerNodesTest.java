package dev.sandjar.server;

import static dev.sandjar.server.ServerHarness.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sandjar.bridges.Capabilities;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code POST /api/nodes/runs}: a Code node's events as SSE, over real HTTP. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerNodesTest {
    private static final String CI = "nodes-ci-token";
    private static final String PLAIN = "nodes-plain-token";
    private static final String PATH = "/api/nodes/runs";

    private static ServerHarness h;

    @BeforeAll
    static void start() {
        h =
                ServerHarness.start(
                        SandjarServer.builder()
                                .pool(2)
                                .queue(2)
                                .tokens(
                                        Tokens.of(
                                                List.of(
                                                        Tokens.token(
                                                                "ci", CI, ServerHarness.policy()),
                                                        Tokens.token(
                                                                "plain",
                                                                PLAIN,
                                                                new Policy(
                                                                        Set.copyOf(
                                                                                Capabilities
                                                                                        .DEFAULTS),
                                                                        Set.of(),
                                                                        30_000,
                                                                        64,
                                                                        Optional.empty(),
                                                                        4))))));
    }

    @AfterAll
    static void stop() {
        if (h != null) {
            h.close();
        }
    }

    private static String body(String code, String outputs, String more) {
        ObjectNode b = ServerHarness.JSON.createObjectNode();
        b.put("code", code);
        b.set("outputs", ServerHarness.JSON.createArrayNode());
        for (String o : outputs.split(",")) {
            ((com.fasterxml.jackson.databind.node.ArrayNode) b.get("outputs")).add(o);
        }
        String text = b.toString();
        return more.isEmpty() ? text : text.substring(0, text.length() - 1) + "," + more + "}";
    }

    private static List<String> lines(List<SseStream.Event> events) {
        return events.stream().map(e -> e.name() + " " + e.data()).toList();
    }

    @Test
    void theKeptRowsExampleStreamsItsEventsThenItsResult() {
        String code =
                "const kept = inputs.rows.filter((r) => r.score > inputs.threshold);\n"
                        + "progress(50, `kept ${kept.length}`);\n"
                        + "for (const row of kept) await emit(\"row\", row);\n"
                        + "await output(\"count\", kept.length);";
        String more =
                "\"inputs\":{\"rows\":[{\"id\":1,\"score\":5},{\"id\":2,\"score\":15}],"
                        + "\"threshold\":10}";
        try (SseStream s = h.stream(PATH, CI, body(code, "row,count", more))) {
            List<SseStream.Event> events = s.rest();
            assertEquals("run", events.get(0).name());
            assertEquals(
                    List.of(
                            "progress {\"percent\":50.0,\"message\":\"kept 1\"}",
                            "emit {\"handle\":\"row\",\"value\":{\"id\":2,\"score\":15},"
                                    + "\"sequence\":1}",
                            "outputs {\"outputs\":{\"count\":1},\"state\":{},\"invocation\":1}"),
                    lines(events.subList(1, events.size() - 1)));
            SseStream.Event last = events.get(events.size() - 1);
            assertEquals("result", last.name());
            JsonNode result = json(last.data());
            assertTrue(result.get("ok").asBoolean(), last.data());
            assertEquals(json(events.get(0).data()).get("id"), result.get("id"));
            assertEquals(1, result.get("outputs").get("count").asInt());
            assertEquals(1, result.get("emitted").asInt());
            assertTrue(result.get("stats").has("guestCpuMs"));
        }
    }

    @Test
    void streamsStateAndAnyComeFromTheBody() {
        String code =
                "for await (const [h, v] of stream.any()) await emit('seen', h + v);\n"
                        + "state.n = (state.n ?? 0) + 1;\n"
                        + "await output('done', true);";
        String more = "\"streams\":{\"a\":[1,2],\"b\":[3]},\"state\":{\"n\":1}";
        try (SseStream s = h.stream(PATH, CI, body(code, "seen,done", more))) {
            List<SseStream.Event> events = s.rest();
            List<String> emits =
                    events.stream()
                            .filter(e -> e.name().equals("emit"))
                            .map(e -> json(e.data()).get("value").asText())
                            .toList();
            assertEquals(List.of("a1", "b3", "a2"), emits);
            JsonNode result = json(events.get(events.size() - 1).data());
            assertEquals(2, result.get("state").get("n").asInt());
        }
    }

    @Test
    void aFailedBodyEndsWithItsErrorAfterWhatItEmitted() {
        try (SseStream s =
                h.stream(
                        PATH,
                        CI,
                        body("await emit('row', 1);\nawait emit('nope', 2);", "row", ""))) {
            List<SseStream.Event> events = s.rest();
            assertEquals("emit", events.get(1).name());
            JsonNode result = json(events.get(2).data());
            assertEquals(false, result.get("ok").asBoolean());
            assertEquals("EXCEPTION", result.get("error").get("kind").asText());
            assertTrue(
                    result.get("error")
                            .get("message")
                            .asText()
                            .startsWith("emit: 'nope' is not a declared output"),
                    result.toString());
        }
    }

    @Test
    void aClientThatLeavesCancelsItsNodeAndFreesTheSlot() {
        String code = "let i = 0;\nwhile (true) await emit('tick', i++);";
        try (SseStream s =
                h.stream(
                        PATH,
                        CI,
                        body(code, "tick", "\"emitQueue\":1,\"limits\":{\"timeoutMs\":600000}"))) {
            assertEquals("run", s.next().name());
            assertEquals("emit", s.next().name());
        }
        ServerHarness.await(
                "the node cancelled once its client left",
                () -> h.metric(CI, "sandjar_runs_total{outcome=\"cancelled\"}") >= 1);
        ServerHarness.await("its slot back", () -> h.metric(CI, "sandjar_pool_busy") == 0);
    }

    @Test
    void deleteCancelsANodeByItsRunId() {
        String code = "while (true) await emit('t', 1);";
        try (SseStream s =
                h.stream(
                        PATH,
                        CI,
                        body(code, "t", "\"emitQueue\":1,\"limits\":{\"timeoutMs\":600000}"))) {
            String id = json(s.next().data()).get("id").asText();
            assertEquals(404, h.delete("/api/runs/" + id, PLAIN).statusCode());
            assertEquals(202, h.delete("/api/runs/" + id, CI).statusCode());
            SseStream.Event last = null;
            for (SseStream.Event e; (e = s.next()) != null; ) {
                last = e;
            }
            assertEquals("result", last.name());
            assertEquals("CANCELLED", json(last.data()).get("error").get("kind").asText());
        }
    }

    @Test
    void aNodeRunIsAlwaysAStream() {
        HttpResponse<String> res =
                ServerHarness.send(
                        h.request(PATH, CI)
                                .header("Content-Type", "application/json")
                                .POST(BodyPublishers.ofString(body("return 1", "x", "")))
                                .build());
        assertEquals(406, res.statusCode());
        assertEquals("NOT_ACCEPTABLE", json(res).get("code").asText());
    }

    @Test
    void badBodiesAndPolicyBreachesAreRefusedBeforeTheStream() {
        assertEquals(
                "a node's body needs \"outputs\": the output handles emit and output may name",
                refused(400, CI, "{\"code\":\"return 1\"}"));
        assertTrue(
                refused(400, CI, body("return 1", "x", "\"globals\":{\"a\":1}"))
                        .startsWith("the body has an unknown field 'globals'"));
        assertEquals(
                "streams.a must be an array of the handle's items",
                refused(400, CI, body("return 1", "x", "\"streams\":{\"a\":1}")));
        assertTrue(
                refused(403, PLAIN, body("return 1", "x", "\"capabilities\":{\"fetch\":{}}"))
                        .startsWith("capability fetch is not in the token's policy"));
    }

    private static String refused(int status, String token, String body) {
        HttpResponse<String> res =
                ServerHarness.send(
                        h.request(PATH, token)
                                .header("Content-Type", "application/json")
                                .header("Accept", "text/event-stream")
                                .POST(BodyPublishers.ofString(body))
                                .build());
        assertEquals(status, res.statusCode(), res.body());
        return json(res).get("message").asText();
    }
}
