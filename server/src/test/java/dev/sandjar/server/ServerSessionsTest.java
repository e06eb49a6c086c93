package dev.sandjar.server;

import static dev.sandjar.server.ServerHarness.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sessions over HTTP: open, calls that share a scope, fork, close, ownership by token, the errors a
 * body or a state earns, and persistence across a server restart with {@code --sessions-dir}.
 */
@ExtendWith(EngineLeakCheck.class)
class ServerSessionsTest {
    private static final String CI = "sessions-ci-token";
    private static final String OTHER = "sessions-other-token";

    @TempDir Path dir;

    private static SandjarServer.Builder server(Path sessions) {
        SandjarServer.Builder b =
                SandjarServer.builder()
                        .pool(2)
                        .queue(2)
                        .tokens(
                                Tokens.of(
                                        List.of(
                                                Tokens.token("ci", CI, ServerHarness.policy()),
                                                Tokens.token(
                                                        "other", OTHER, ServerHarness.policy()))));
        return sessions == null ? b : b.sessionsDir(sessions);
    }

    private static HttpResponse<String> post(
            ServerHarness h, String path, String token, String body) {
        return h.post(path, token, body);
    }

    private static String open(ServerHarness h, String token, String body) {
        return h.openSession(token, body);
    }

    private static JsonNode call(ServerHarness h, String id, String token, String code) {
        return h.sessionCall(id, token, code);
    }

    @Test
    void callsShareTheSessionsScopeAndForksAreIndependent() {
        try (ServerHarness h = ServerHarness.start(server(null))) {
            String id = open(h, CI, "");
            JsonNode first =
                    call(h, id, CI, "let counter = 0; function inc() { return ++counter }");
            assertTrue(first.get("ok").asBoolean(), first.toString());
            assertEquals(1, call(h, id, CI, "return inc()").get("value").asInt());
            assertEquals(2, call(h, id, CI, "return inc()").get("value").asInt());
            JsonNode failed = call(h, id, CI, "throw new Error('boom')");
            assertFalse(failed.get("ok").asBoolean());
            assertEquals("boom", failed.get("error").get("message").asText());

            HttpResponse<String> fork = post(h, "/api/sessions/" + id + "/fork", CI, "");
            assertEquals(200, fork.statusCode(), fork.body());
            String copy = json(fork).get("id").asText();
            assertEquals(3, call(h, copy, CI, "return inc()").get("value").asInt());
            assertEquals(3, call(h, id, CI, "return inc()").get("value").asInt());
            assertEquals(4, call(h, copy, CI, "return inc()").get("value").asInt());

            // another token sees none of them: the same 404 as an unknown id
            HttpResponse<String> foreign =
                    post(h, "/api/sessions/" + id + "/runs", OTHER, "{\"code\": \"return 1\"}");
            assertEquals(404, foreign.statusCode());
            assertEquals(404, h.delete("/api/sessions/" + id, OTHER).statusCode());
            assertEquals(404, post(h, "/api/sessions/" + id + "/fork", OTHER, "").statusCode());

            HttpResponse<String> closed = h.delete("/api/sessions/" + id, CI);
            assertEquals(200, closed.statusCode(), closed.body());
            assertTrue(json(closed).get("closed").asBoolean());
            assertEquals(
                    404,
                    post(h, "/api/sessions/" + id + "/runs", CI, "{\"code\": \"return 1\"}")
                            .statusCode());
            assertEquals(4 + 1, call(h, copy, CI, "return inc()").get("value").asInt());
        }
    }

    @Test
    void badBodiesAreRefusedNamingWhatIsWrong() {
        try (ServerHarness h = ServerHarness.start(server(null))) {
            HttpResponse<String> unknown = post(h, "/api/sessions", CI, "{\"code\": \"x\"}");
            assertEquals(400, unknown.statusCode());
            assertTrue(unknown.body().contains("unknown field 'code'"), unknown.body());
            HttpResponse<String> fetch =
                    post(h, "/api/sessions", CI, "{\"capabilities\": {\"fetch\": {}}}");
            assertEquals(400, fetch.statusCode());
            assertTrue(fetch.body().contains("may only withhold"), fetch.body());
            String id =
                    open(
                            h,
                            CI,
                            "{\"limits\": {\"memoryMb\": 32, \"timeoutMs\": 2000},"
                                    + " \"idleTimeoutMs\": 60000}");
            HttpResponse<String> memory =
                    post(
                            h,
                            "/api/sessions/" + id + "/runs",
                            CI,
                            "{\"code\": \"return 1\", \"limits\": {\"memoryMb\": 64}}");
            assertEquals(400, memory.statusCode());
            assertTrue(memory.body().contains("memoryMb"), memory.body());
            HttpResponse<String> caps =
                    post(
                            h,
                            "/api/sessions/" + id + "/runs",
                            CI,
                            "{\"code\": \"return 1\", \"capabilities\": {\"withhold\":"
                                    + " [\"console\"]}}");
            assertEquals(400, caps.statusCode());
            // a call with inputs and its own timeout
            HttpResponse<String> inputs =
                    post(
                            h,
                            "/api/sessions/" + id + "/runs",
                            CI,
                            "{\"code\": \"return inputs.a * 2\", \"inputs\": {\"a\": 21},"
                                    + " \"limits\": {\"timeoutMs\": 1000}}");
            assertEquals(200, inputs.statusCode(), inputs.body());
            assertEquals(42, json(inputs).get("value").asInt());
            JsonNode spin = call(h, id, CI, "for (;;) {}");
            assertEquals("TIMEOUT", spin.get("error").get("kind").asText(), spin.toString());
            assertEquals(
                    404,
                    post(h, "/api/sessions/nope/runs", CI, "{\"code\": \"return 1\"}")
                            .statusCode());
        }
    }

    @Test
    void sessionsSurviveARestartWithASessionsDirectory() throws Exception {
        Path sessions = Files.createDirectories(dir.resolve("sessions"));
        String id;
        String gone;
        try (ServerHarness h = ServerHarness.start(server(sessions))) {
            id = open(h, CI, "{\"limits\": {\"memoryMb\": 48}}");
            call(h, id, CI, "let notes = ['first']; const add = (n) => notes.push(n);");
            call(h, id, CI, "add('second')");
            gone = open(h, CI, "");
            assertEquals(200, h.delete("/api/sessions/" + gone, CI).statusCode());
            try (Stream<Path> files = Files.list(sessions)) {
                assertEquals(
                        List.of(SessionFiles.KEY_FILE, id + ".session"),
                        files.map(p -> p.getFileName().toString()).sorted().toList());
            }
        }
        try (ServerHarness h = ServerHarness.start(server(sessions))) {
            JsonNode back = call(h, id, CI, "add('third'); return notes");
            assertEquals(
                    "[\"first\",\"second\",\"third\"]",
                    back.get("value").toString(),
                    back.toString());
            assertEquals(
                    404,
                    post(h, "/api/sessions/" + id + "/runs", OTHER, "{\"code\": \"return 1\"}")
                            .statusCode());
            assertEquals(
                    404,
                    post(h, "/api/sessions/" + gone + "/runs", CI, "{\"code\": \"return 1\"}")
                            .statusCode());
        }
    }
}
