package dev.sandjar.server;

import static dev.sandjar.server.ServerHarness.json;
import static dev.sandjar.server.ServerHarness.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.bridges.Capabilities;
import dev.sandjar.host.Limits;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs over HTTP: the JSON answer, every 4xx a body or a policy earns, the SSE event order,
 * cancellation by DELETE, a token's concurrency share and the meters runs leave behind. One server
 * (pool 2, queue 2) serves the class.
 */
@ExtendWith(EngineLeakCheck.class)
class ServerRunsTest {
    private static final String CI = "runs-ci-token";
    private static final String OTHER = "runs-other-token";
    private static final String NARROW = "runs-narrow-token";
    private static final String SOLO = "runs-solo-token";
    private static final long MAX_BODY = 16 * 1024;

    /** The default capabilities and secrets, one secret, a 1 s timeout, one pack. */
    private static final Policy NARROW_POLICY =
            new Policy(
                    union(Capabilities.DEFAULTS, List.of("secrets")),
                    Set.of("A"),
                    1_000,
                    64,
                    Optional.of(Set.of("@sandjar/text")),
                    4);

    private static ServerHarness h;

    @BeforeAll
    static void start() {
        h =
                ServerHarness.start(
                        SandjarServer.builder()
                                .pool(2)
                                .queue(2)
                                .maxBodyBytes(MAX_BODY)
                                .tokens(
                                        Tokens.of(
                                                List.of(
                                                        Tokens.token(
                                                                "ci", CI, ServerHarness.policy()),
                                                        Tokens.token(
                                                                "other",
                                                                OTHER,
                                                                ServerHarness.policy()),
                                                        Tokens.token(
                                                                "narrow", NARROW, NARROW_POLICY),
                                                        Tokens.token(
                                                                "solo",
                                                                SOLO,
                                                                ServerHarness.withMaxConcurrentRuns(
                                                                        1))))));
    }

    @AfterAll
    static void stop() {
        if (h != null) {
            h.close();
        }
    }

    private static Set<String> union(List<String> a, List<String> b) {
        Set<String> out = new HashSet<>(a);
        out.addAll(b);
        return out;
    }

    /** Asserts the status and the error code, and returns the message. */
    private static String error(HttpResponse<String> res, int status, String code) {
        assertEquals(status, res.statusCode(), res.body());
        assertTrue(
                res.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        JsonNode body = json(res);
        assertEquals(code, body.get("code").asText(), res.body());
        return body.get("message").asText();
    }

    @Test
    void aRunAnswersWithItsValueLogsAndStats() {
        HttpResponse<String> res = h.postRun(CI, run("console.log('hi'); return {n: 1 + 2};"));
        assertEquals(200, res.statusCode(), res.body());
        JsonNode r = json(res);
        assertTrue(r.get("ok").asBoolean(), res.body());
        assertEquals(3, r.get("value").get("n").asInt());
        assertFalse(r.get("id").asText().isBlank());
        assertEquals("hi", r.get("logs").get(0).get("message").asText());
        assertEquals(1, r.get("stats").get("bridgeCallsByCapability").get("console").asInt());
    }

    @Test
    void aGuestErrorIsAResultNotAnHttpError() {
        HttpResponse<String> res = h.postRun(CI, run("throw new TypeError('nope')"));
        assertEquals(200, res.statusCode(), res.body());
        JsonNode r = json(res);
        assertFalse(r.get("ok").asBoolean());
        assertEquals("EXCEPTION", r.get("error").get("kind").asText());
        assertEquals("TypeError", r.get("error").get("name").asText());
    }

    @Test
    void anUnknownFieldIs400NamingIt() {
        String msg =
                error(h.postRun(CI, "{\"code\":\"return 1\",\"timeout\":5}"), 400, "BAD_REQUEST");
        assertTrue(msg.contains("'timeout'"), msg);
        String nested =
                error(
                        h.postRun(CI, "{\"code\":\"return 1\",\"limits\":{\"cpuMs\":5}}"),
                        400,
                        "BAD_REQUEST");
        assertTrue(nested.contains("'cpuMs'"), nested);
    }

    @Test
    void badJsonAndAMissingCodeAre400() {
        String msg = error(h.postRun(CI, "{\"code\": \"return 1\""), 400, "BAD_REQUEST");
        assertTrue(msg.contains("not valid JSON"), msg);
        error(h.postRun(CI, "[1, 2]"), 400, "BAD_REQUEST");
        error(h.postRun(CI, "{\"code\": 5}"), 400, "BAD_REQUEST");
        error(h.postRun(CI, "{\"code\": \"1\"} trailing"), 400, "BAD_REQUEST");
    }

    /**
     * A key given twice could mean either value to a reader in front of the server; every body the
     * server reads refuses it, naming the key and where it is.
     */
    @Test
    void aDuplicatedKeyIs400NamingItOnEveryRouteThatReadsABody() {
        String top =
                error(
                        h.postRun(CI, "{\"code\":\"return 1\",\"code\":\"return 2\"}"),
                        400,
                        "BAD_REQUEST");
        assertTrue(top.contains("'code'") && top.contains("at /code"), top);
        String nested =
                error(
                        h.postRun(
                                CI,
                                "{\"code\":\"return inputs.a\",\"inputs\":{\"a\":1,\"b\":{\"c\":2,"
                                        + "\"c\":3}}}"),
                        400,
                        "BAD_REQUEST");
        assertTrue(nested.contains("'c'") && nested.contains("at /inputs/b/c"), nested);
        String limits = "{\"code\":\"\",\"limits\":{\"memoryMb\":8,\"memoryMb\":512}}";
        for (String path :
                List.of("/api/runs", "/api/sessions", "/api/nodes/runs", "/api/runner/fetches")) {
            HttpResponse<String> res =
                    ServerHarness.send(
                            h.request(path, CI)
                                    .header("Content-Type", "application/json")
                                    .header("Accept", "text/event-stream")
                                    .POST(BodyPublishers.ofString(limits))
                                    .build());
            String msg = error(res, 400, "BAD_REQUEST");
            assertTrue(msg.contains("'memoryMb'") && msg.contains("/limits/memoryMb"), msg);
        }
    }

    @Test
    void aMalformedTransportMarkerIs400SayingWhatAndWhere() {
        String input =
                error(
                        h.postRun(
                                CI,
                                "{\"code\":\"return"
                                        + " 1\",\"inputs\":{\"rows\":[1,{\"$sj\":\"bogus\"}]}}"),
                        400,
                        "BAD_REQUEST");
        assertTrue(input.startsWith("inputs.rows[1]: unknown transport marker \"bogus\""), input);
        String global =
                error(
                        h.postRun(
                                CI,
                                "{\"code\":\"return"
                                    + " 1\",\"globals\":{\"state\":{\"n\":{\"$sj\":\"num\"}}}}"),
                        400,
                        "BAD_REQUEST");
        assertTrue(
                global.startsWith("globals.state.n: a \"num\" marker's \"v\" must be one of"),
                global);
        String date =
                error(
                        h.postRun(
                                CI,
                                "{\"code\":\"return"
                                    + " 1\",\"inputs\":{\"at\":{\"$sj\":\"date\",\"v\":\"x\"}}}"),
                        400,
                        "BAD_REQUEST");
        for (String m : List.of(input, global, date)) {
            assertFalse(m.contains("java") || m.contains("Exception"), m);
        }
    }

    @Test
    void aBodyThatIsNotJsonIs415() {
        HttpResponse<String> res =
                ServerHarness.send(
                        h.request("/api/runs", CI)
                                .header("Content-Type", "text/plain")
                                .POST(BodyPublishers.ofString(run("return 1")))
                                .build());
        String msg = error(res, 415, "UNSUPPORTED_MEDIA_TYPE");
        assertTrue(msg.contains("text/plain"), msg);
    }

    @Test
    void aBodyOverTheCapIs413WithContentLengthAndChunked() {
        String big = run("return '" + "x".repeat((int) MAX_BODY) + "'");
        HttpResponse<String> declared = h.postRun(CI, big);
        assertTrue(
                error(declared, 413, "PAYLOAD_TOO_LARGE").contains(String.valueOf(MAX_BODY)),
                declared.body());

        byte[] bytes = big.getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> chunked =
                ServerHarness.send(
                        h.request("/api/runs", CI)
                                .header("Content-Type", "application/json")
                                .POST(
                                        BodyPublishers.ofInputStream(
                                                () -> new ByteArrayInputStream(bytes)))
                                .build());
        assertTrue(
                error(chunked, 413, "PAYLOAD_TOO_LARGE").contains(String.valueOf(MAX_BODY)),
                chunked.body());

        // Just under the cap, chunked, is read and run.
        String fits = run("return '" + "y".repeat((int) MAX_BODY - 100) + "'.length");
        byte[] fitBytes = fits.getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> ok =
                ServerHarness.send(
                        h.request("/api/runs", CI)
                                .header("Content-Type", "application/json")
                                .POST(
                                        BodyPublishers.ofInputStream(
                                                () -> new ByteArrayInputStream(fitBytes)))
                                .build());
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals(MAX_BODY - 100, json(ok).get("value").asLong());
    }

    @Test
    void aCapabilityBeyondThePolicyIs403NamingItAndWhatThePolicyAllows() {
        String msg =
                error(
                        h.postRun(
                                NARROW, "{\"code\":\"return 1\",\"capabilities\":{\"fetch\":{}}}"),
                        403,
                        "FORBIDDEN");
        assertTrue(msg.contains("fetch"), msg);
        assertTrue(
                msg.contains(
                        "it allows [audio, canvas, console, crypto, format, helpers, image, media,"
                                + " progress, secrets, sleep]"),
                msg);
    }

    @Test
    void limitsBeyondThePolicyAre403AndBeyondTheServerAre400() {
        String policy = error(h.postRun(NARROW, run("return 1", 5_000)), 403, "FORBIDDEN");
        assertTrue(policy.contains("maxTimeoutMs"), policy);
        assertTrue(policy.contains("1000"), policy);
        assertTrue(policy.contains("5000"), policy);
        // At the bound is fine.
        assertEquals(200, h.postRun(NARROW, run("return 1", 1_000)).statusCode());

        long ceiling = Limits.CEILINGS.timeout().toMillis();
        String server = error(h.postRun(CI, run("return 1", ceiling + 1)), 400, "BAD_REQUEST");
        assertTrue(server.contains("ceiling " + ceiling), server);
        String memory =
                error(
                        h.postRun(CI, "{\"code\":\"return 1\",\"limits\":{\"memoryMb\":100000}}"),
                        400,
                        "BAD_REQUEST");
        assertTrue(memory.contains("memoryMb"), memory);
    }

    @Test
    void aSecretOutsideThePolicyIs403() {
        String msg =
                error(
                        h.postRun(
                                NARROW,
                                "{\"code\":\"return 1\",\"capabilities\":{\"secrets\":[\"B\"]}}"),
                        403,
                        "FORBIDDEN");
        assertTrue(msg.contains("'B'"), msg);
        assertTrue(msg.contains("[A]"), msg);
        String noCapability =
                error(
                        h.postRun(
                                CI,
                                "{\"code\":\"return 1\",\"capabilities\":{\"secrets\":[\"A\"]}}"),
                        403,
                        "FORBIDDEN");
        assertTrue(noCapability.contains("capability secrets"), noCapability);
    }

    @Test
    void aPackOutsideThePolicyIs403AndInsideItRuns() {
        String code = "import { chunk } from '@sandjar/collections';\nreturn chunk([1, 2, 3], 2);";
        String msg = error(h.postRun(NARROW, run(code)), 403, "FORBIDDEN");
        assertTrue(msg.contains("'@sandjar/collections'"), msg);
        assertTrue(msg.contains("[@sandjar/text]"), msg);

        HttpResponse<String> ok = h.postRun(CI, run(code));
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals("[[1,2],[3]]", json(ok).get("value").toString(), ok.body());
    }

    @Test
    void anUnresolvableImportIsAnImportResult() {
        HttpResponse<String> res =
                h.postRun(CI, run("import x from '@sandjar/no-such-pack';\nreturn x;"));
        assertEquals(200, res.statusCode(), res.body());
        JsonNode r = json(res);
        assertFalse(r.get("ok").asBoolean(), res.body());
        assertEquals("IMPORT", r.get("error").get("kind").asText());
    }

    @Test
    void sseSendsRunThenLogsAndProgressInOrderThenOneResult() {
        String code =
                "console.log('one');\n"
                        + "progress(50, 'half');\n"
                        + "await sleep(150);\n"
                        + "console.log('two');\n"
                        + "progress(100, 'done');\n"
                        + "return 'finished';";
        List<SseStream.Event> events;
        try (SseStream s = h.stream(CI, run(code))) {
            assertTrue(
                    s.response
                            .headers()
                            .firstValue("Content-Type")
                            .orElse("")
                            .startsWith("text/event-stream"));
            assertTrue(s.response.headers().firstValue("X-Request-Id").isPresent());
            events = s.rest();
        }
        assertEquals("run", events.get(0).name(), events.toString());
        String id = json(events.get(0).data()).get("id").asText();
        SseStream.Event last = events.get(events.size() - 1);
        assertEquals("result", last.name(), events.toString());
        assertEquals(
                1,
                events.stream().filter(e -> e.name().equals("result")).count(),
                events.toString());
        JsonNode result = json(last.data());
        assertEquals(id, result.get("id").asText());
        assertTrue(result.get("ok").asBoolean(), last.data());
        assertEquals("finished", result.get("value").asText());

        List<String> logs = new ArrayList<>();
        List<Integer> percents = new ArrayList<>();
        List<Long> sequences = new ArrayList<>();
        for (SseStream.Event e : events.subList(1, events.size() - 1)) {
            JsonNode d = json(e.data());
            switch (e.name()) {
                case "log" -> logs.add(d.get("message").asText());
                case "progress" -> {
                    percents.add(d.get("percent").asInt());
                    sequences.add(d.get("sequence").asLong());
                }
                default -> throw new AssertionError("unexpected event " + e);
            }
        }
        // Each kind in its order. How logs and progress interleave is not asserted: the sandbox
        // hands progress to its listener off the engine thread (docs/bridges.md, "progress").
        assertEquals(List.of("one", "two"), logs);
        assertEquals(List.of(50, 100), percents);
        assertEquals(List.of(1L, 2L), sequences);
    }

    @Test
    void deleteCancelsTheRunAndOnlyItsOwnTokenMayDeleteIt() {
        try (SseStream s = h.stream(CI, run("while (true) {}", 600_000))) {
            SseStream.Event started = s.next();
            assertEquals("run", started.name());
            String id = json(started.data()).get("id").asText();

            HttpResponse<String> foreign = h.delete("/api/runs/" + id, OTHER);
            String msg = error(foreign, 404, "NOT_FOUND");
            assertFalse(msg.contains(id), msg);
            assertEquals(
                    error(h.delete("/api/runs/no-such-id", OTHER), 404, "NOT_FOUND"),
                    msg,
                    "another token's run looks like no run at all");

            HttpResponse<String> mine = h.delete("/api/runs/" + id, CI);
            assertEquals(202, mine.statusCode(), mine.body());
            assertTrue(json(mine).get("cancelling").asBoolean());

            SseStream.Event result = next(s, "result");
            JsonNode r = json(result.data());
            assertFalse(r.get("ok").asBoolean());
            assertEquals("CANCELLED", r.get("error").get("kind").asText(), result.data());
            assertNull(s.next(), "nothing after the result");

            ServerHarness.await(
                    "the cancelled run to leave",
                    () -> h.delete("/api/runs/" + id, CI).statusCode() == 404);
        }
    }

    @Test
    void aTokensConcurrencyShareIs429WhileTheServerHasRoom() {
        try (SseStream s = h.stream(SOLO, run("while (true) {}", 600_000))) {
            String id = json(s.next().data()).get("id").asText();

            HttpResponse<String> second = h.postRun(SOLO, run("return 1"));
            String msg = error(second, 429, "TOO_MANY_RUNS");
            assertTrue(msg.contains("maxConcurrentRuns"), msg);
            assertEquals("1", second.headers().firstValue("Retry-After").orElse(null));

            HttpResponse<String> someoneElse = h.postRun(CI, run("return 2"));
            assertEquals(200, someoneElse.statusCode(), someoneElse.body());

            assertEquals(202, h.delete("/api/runs/" + id, SOLO).statusCode());
            assertEquals(
                    "CANCELLED", json(next(s, "result").data()).get("error").get("kind").asText());
        }
        ServerHarness.await(
                "the token's share to come back",
                () -> h.postRun(SOLO, run("return 3")).statusCode() == 200);
    }

    @Test
    void metricsCountRunsDurationsQueueAndBridgeCalls() {
        HttpResponse<String> res = h.postRun(CI, run("console.log('m'); return 1"));
        assertEquals(200, res.statusCode(), res.body());
        HttpResponse<String> scrape = h.get("/metrics", CI);
        assertEquals(200, scrape.statusCode());
        assertTrue(scrape.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        String text = scrape.body();
        for (String name :
                List.of(
                        "sandjar_runs_total{outcome=\"ok\"}",
                        "sandjar_run_duration_seconds_count",
                        "sandjar_run_duration_seconds_bucket",
                        "sandjar_queue_depth",
                        "sandjar_pool_busy",
                        "sandjar_bridge_calls_total{capability=\"console\"}")) {
            assertTrue(text.contains(name), name + " in\n" + text);
        }
        assertTrue(h.metric(CI, "sandjar_runs_total{outcome=\"ok\"}") >= 1);
        assertTrue(h.metric(CI, "sandjar_bridge_calls_total{capability=\"console\"}") >= 1);
    }

    /** The next event named {@code name}, skipping others; fails at the end of the stream. */
    private static SseStream.Event next(SseStream s, String name) {
        for (SseStream.Event e; (e = s.next()) != null; ) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        throw new AssertionError("the stream ended before a '" + name + "' event");
    }
}
