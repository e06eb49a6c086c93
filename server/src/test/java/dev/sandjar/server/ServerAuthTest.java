package dev.sandjar.server;

import static dev.sandjar.server.ServerHarness.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may call what: the open probes, the bearer token on every other route (one 401 for a missing
 * and an unknown token), request ids, the checks {@code build()} makes, and token reload.
 */
@ExtendWith(EngineLeakCheck.class)
class ServerAuthTest {
    private static final String TOKEN = "auth-test-token";

    @TempDir static Path dir;

    private static Path tokensFile;
    private static ServerHarness h;

    /**
     * The server reads its tokens from a file, so that {@link #reloadSwapsTheTokens} can swap them.
     */
    @BeforeAll
    static void start() throws IOException {
        tokensFile = dir.resolve("tokens.json");
        Files.writeString(tokensFile, tokenFile("old", "old-token"));
        h = ServerHarness.start(SandjarServer.builder().pool(1).tokensFile(tokensFile));
    }

    @AfterAll
    static void stop() {
        if (h != null) {
            h.close();
        }
    }

    /** Each guarded route, as a request with the given token (or none). */
    private static Map<String, Function<String, HttpRequest>> guardedRoutes() {
        Map<String, Function<String, HttpRequest>> routes = new LinkedHashMap<>();
        routes.put("POST /api/runs", t -> h.runRequest(t, ServerHarness.run("return 1")).build());
        routes.put(
                "DELETE /api/runs/{id}",
                t -> h.request("/api/runs/no-such-run", t).DELETE().build());
        routes.put("GET /api/packs", t -> h.request("/api/packs", t).GET().build());
        routes.put(
                "GET /api/sandbox-modules/{id}",
                t -> h.request("/api/sandbox-modules/@sandjar/collections", t).GET().build());
        routes.put("GET /metrics", t -> h.request("/metrics", t).GET().build());
        routes.put("GET /openapi.json", t -> h.request("/openapi.json", t).GET().build());
        return routes;
    }

    @Test
    void healthAndReadinessNeedNoToken() {
        for (String path : List.of("/healthz", "/readyz")) {
            HttpResponse<String> res = h.get(path, null);
            assertEquals(200, res.statusCode(), path + ": " + res.body());
            assertTrue(res.headers().firstValue("X-Request-Id").isPresent(), path);
        }
        assertEquals("ready", json(h.get("/readyz", null)).get("status").asText());
        assertEquals("up", json(h.get("/healthz", null)).get("status").asText());
    }

    @Test
    void everyOtherRouteAnswersAMissingAndAnUnknownTokenWithTheSame401() {
        String first = null;
        for (var route : guardedRoutes().entrySet()) {
            HttpResponse<String> missing = ServerHarness.send(route.getValue().apply(null));
            HttpResponse<String> unknown =
                    ServerHarness.send(route.getValue().apply("not-a-token"));
            for (HttpResponse<String> res : List.of(missing, unknown)) {
                assertEquals(401, res.statusCode(), route.getKey() + ": " + res.body());
                assertEquals(
                        "Bearer",
                        res.headers().firstValue("WWW-Authenticate").orElse(null),
                        route.getKey());
                assertTrue(res.headers().firstValue("X-Request-Id").isPresent(), route.getKey());
                assertEquals("UNAUTHORIZED", json(res).get("code").asText(), route.getKey());
            }
            assertEquals(missing.body(), unknown.body(), route.getKey());
            if (first == null) {
                first = missing.body();
            }
            assertEquals(first, missing.body(), route.getKey() + ": the same 401 everywhere");
        }
        // Another scheme, or the token without its scheme, is no token either.
        HttpResponse<String> basic =
                ServerHarness.send(
                        h.request("/api/packs", null)
                                .header("Authorization", "Basic " + TOKEN)
                                .build());
        assertEquals(401, basic.statusCode());
        assertEquals(first, basic.body());
        HttpResponse<String> bare =
                ServerHarness.send(
                        h.request("/api/packs", null).header("Authorization", TOKEN).build());
        assertEquals(401, bare.statusCode());
    }

    @Test
    void theTokenOpensEveryRoute() {
        Map<String, Integer> expected =
                Map.of(
                        "POST /api/runs", 200,
                        "DELETE /api/runs/{id}", 404,
                        "GET /api/packs", 200,
                        "GET /api/sandbox-modules/{id}", 200,
                        "GET /metrics", 200,
                        "GET /openapi.json", 200);
        for (var route : guardedRoutes().entrySet()) {
            HttpResponse<String> res = ServerHarness.send(route.getValue().apply(TOKEN));
            assertEquals(
                    expected.get(route.getKey()),
                    res.statusCode(),
                    route.getKey() + ": " + res.body());
            assertTrue(res.headers().firstValue("X-Request-Id").isPresent(), route.getKey());
        }
        HttpResponse<String> openApi = h.get("/openapi.json", TOKEN);
        assertTrue(
                json(openApi).path("paths").has("/api/runs"),
                "the OpenAPI document lists /api/runs: " + openApi.body());
    }

    @Test
    void everyResponseCarriesARequestIdAndAGoodClientIdIsKept() {
        HttpResponse<String> noRoute = h.get("/api/no-such-route", TOKEN);
        assertEquals(404, noRoute.statusCode());
        assertTrue(noRoute.headers().firstValue("X-Request-Id").isPresent());
        HttpResponse<String> outside = h.get("/no-such-page", null);
        assertEquals(404, outside.statusCode());
        assertTrue(outside.headers().firstValue("X-Request-Id").isPresent());
        HttpResponse<String> refusedByJetty = h.get("/api/%00", TOKEN);
        assertEquals(400, refusedByJetty.statusCode());
        assertEquals("BAD_REQUEST", json(refusedByJetty).get("code").asText());
        assertTrue(refusedByJetty.headers().firstValue("X-Request-Id").isPresent());
        HttpResponse<String> badJson =
                ServerHarness.send(
                        h.request("/api/runs", TOKEN)
                                .header("Content-Type", "application/json")
                                .POST(BodyPublishers.ofString("{"))
                                .build());
        assertEquals(400, badJson.statusCode());
        assertTrue(badJson.headers().firstValue("X-Request-Id").isPresent());

        HttpResponse<String> kept =
                ServerHarness.send(
                        h.request("/healthz", null).header("X-Request-Id", "trace-42.a").build());
        assertEquals("trace-42.a", kept.headers().firstValue("X-Request-Id").orElseThrow());
        HttpResponse<String> replaced =
                ServerHarness.send(
                        h.request("/healthz", null)
                                .header("X-Request-Id", "no spaces <allowed>")
                                .build());
        String id = replaced.headers().firstValue("X-Request-Id").orElseThrow();
        assertNotEquals("no spaces <allowed>", id);
        assertFalse(id.isBlank());
    }

    @Test
    void aTokenFileWithAnUnknownPolicyFieldFailsTheBuildNamingIt() throws IOException {
        Path file = dir.resolve("bad-tokens.json");
        Files.writeString(
                file,
                "{\"tokens\":[{\"name\":\"ci\",\"sha256\":\""
                        + sha256Hex("x")
                        + "\",\"policy\":{\"maxTimeoutMS\":1000}}]}");
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> SandjarServer.builder().pool(1).tokensFile(file).port(0).build());
        assertTrue(e.getMessage().contains("'maxTimeoutMS'"), e.getMessage());
        assertTrue(e.getMessage().contains("tokens[0]"), e.getMessage());
    }

    @Test
    void aTokenFileWithADuplicatedKeyFailsTheBuildNamingIt() throws IOException {
        Path file = dir.resolve("twice-tokens.json");
        Files.writeString(
                file,
                "{\"tokens\":[{\"name\":\"ci\",\"sha256\":\""
                        + sha256Hex("x")
                        + "\",\"policy\":{\"maxTimeoutMs\":1000,\"maxTimeoutMs\":600000}}]}");
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> SandjarServer.builder().pool(1).tokensFile(file).port(0).build());
        assertTrue(e.getMessage().contains("'maxTimeoutMs'"), e.getMessage());
        assertTrue(e.getMessage().contains("/tokens/0/policy/maxTimeoutMs"), e.getMessage());
    }

    @Test
    void insecureWithoutTokensIsRefusedOffLoopback() {
        IllegalStateException e =
                assertThrows(
                        IllegalStateException.class,
                        () ->
                                SandjarServer.builder()
                                        .insecureNoAuth()
                                        .bind("0.0.0.0")
                                        .port(0)
                                        .build());
        assertTrue(e.getMessage().contains("0.0.0.0"), e.getMessage());
        IllegalStateException none =
                assertThrows(
                        IllegalStateException.class, () -> SandjarServer.builder().port(0).build());
        assertTrue(none.getMessage().contains("no tokens"), none.getMessage());
    }

    @Test
    void insecureOnLoopbackRunsWithoutAToken() {
        try (ServerHarness open =
                ServerHarness.start(SandjarServer.builder().pool(1).insecureNoAuth())) {
            HttpResponse<String> res = open.postRun(null, ServerHarness.run("return 40 + 2"));
            assertEquals(200, res.statusCode(), res.body());
            assertEquals(42, json(res).get("value").asInt());
            assertEquals(200, open.get("/api/packs", null).statusCode());
        }
    }

    @Test
    void reloadSwapsTheTokens() throws IOException {
        Files.writeString(tokensFile, tokenFile("old", "old-token"));
        h.server.reloadTokens();
        assertEquals(200, h.get("/api/packs", "old-token").statusCode());
        assertEquals(401, h.get("/api/packs", "new-token").statusCode());

        Files.writeString(tokensFile, tokenFile("new", "new-token"));
        h.server.reloadTokens();
        assertEquals(401, h.get("/api/packs", "old-token").statusCode());
        assertEquals(200, h.get("/api/packs", "new-token").statusCode());
        assertEquals(200, h.get("/api/packs", TOKEN).statusCode());

        // A bad file leaves the tokens as they were.
        Files.writeString(tokensFile, "{\"tokens\":[{\"name\":\"x\",\"sha256\":\"00\"}]}");
        assertThrows(IllegalArgumentException.class, h.server::reloadTokens);
        assertEquals(200, h.get("/api/packs", "new-token").statusCode());
        assertEquals(200, h.get("/api/packs", TOKEN).statusCode());
    }

    /** {@link #TOKEN} as "ci" under the server's base policy, and one more token. */
    private static String tokenFile(String name, String token) {
        return "{\"tokens\":["
                + "{\"name\":\"ci\",\"sha256\":\""
                + sha256Hex(TOKEN)
                + "\"},{\"name\":\""
                + name
                + "\",\"sha256\":\""
                + sha256Hex(token)
                + "\",\"policy\":{\"capabilities\":[\"console\"]}}]}";
    }

    static String sha256Hex(String token) {
        try {
            return HexFormat.of()
                    .formatHex(
                            java.security.MessageDigest.getInstance("SHA-256")
                                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
