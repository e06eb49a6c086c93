package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.sandjar.bridges.secrets.SecretStore;
import dev.sandjar.bridges.video.VideoConfig;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a policy grants works end to end over HTTP: fetch to a private address, a workspace under
 * the server's root (DIR/TOKEN/ID, persisting across runs), a secret by name, a withheld default;
 * and readiness waits for the warm-up.
 */
class ServerCapabilitiesTest {
    private static final String TOKEN = "capable-token";
    private static final String NO_VIDEO = "no-video-token";

    @TempDir static Path workspaces;
    private static ServerHarness h;
    private static HttpServer site;

    @BeforeAll
    static void start() throws Exception {
        site = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        site.createContext(
                "/hello.json",
                x -> {
                    byte[] body = "{\"name\":\"site\"}".getBytes(StandardCharsets.UTF_8);
                    x.getResponseHeaders().add("Content-Type", "application/json");
                    x.sendResponseHeaders(200, body.length);
                    x.getResponseBody().write(body);
                    x.close();
                });
        site.start();
        Policy all =
                new Policy(
                        Set.of(
                                "console",
                                "sleep",
                                "format",
                                "fetch",
                                "allowPrivateNetwork",
                                "workspace",
                                "secrets",
                                "video"),
                        Set.of("GREETING"),
                        10_000,
                        64,
                        Optional.empty(),
                        2);
        h =
                ServerHarness.start(
                        SandjarServer.builder()
                                .pool(1)
                                .workspaces(workspaces)
                                .secrets(SecretStore.of(Map.of("GREETING", "Hello", "OTHER", "x")))
                                .video(VideoConfig.defaults())
                                .tokens(
                                        Tokens.of(
                                                List.of(
                                                        Tokens.token("cap", TOKEN, all),
                                                        Tokens.token(
                                                                "plain",
                                                                NO_VIDEO,
                                                                new Policy(
                                                                        Set.of("console"),
                                                                        Set.of(),
                                                                        10_000,
                                                                        64,
                                                                        Optional.empty(),
                                                                        2))))));
    }

    @AfterAll
    static void stop() {
        if (h != null) {
            h.close();
        }
        if (site != null) {
            site.stop(0);
        }
    }

    @Test
    void fetchWorkspaceAndSecretsWorkWhenThePolicyGrantsThem() throws Exception {
        String base = "http://127.0.0.1:" + site.getAddress().getPort();
        String code =
                "const data = await (await fetch(base + '/hello.json')).json();"
                        + " await workspace.write('greeting.txt', getSecret('GREETING') + ', '"
                        + " + data.name);"
                        + " return {read: await workspace.read('greeting.txt'),"
                        + " crypto: typeof crypto};";
        String body =
                ServerHarness.JSON
                        .createObjectNode()
                        .put("code", code)
                        .set("globals", ServerHarness.JSON.createObjectNode().put("base", base))
                        .toString();
        JsonNode request = ServerHarness.JSON.readTree(body);
        ((com.fasterxml.jackson.databind.node.ObjectNode) request)
                .set(
                        "capabilities",
                        ServerHarness.json(
                                "{\"fetch\":{\"allowPrivateNetwork\":true},"
                                        + "\"workspace\":{\"id\":\"job-1\"},"
                                        + "\"secrets\":[\"GREETING\"]}"));
        JsonNode r = ServerHarness.json(h.postRun(TOKEN, request.toString()));
        assertTrue(r.path("ok").asBoolean(), r.toString());
        assertEquals("Hello, site", r.at("/value/read").asText());
        assertEquals("undefined", r.at("/value/crypto").asText(), "crypto is not in the policy");
        assertEquals(
                2,
                r.at("/stats/bridgeCallsByCapability/fetch").asLong(),
                "the request and its body: " + r);
        Path file = workspaces.resolve("cap").resolve("job-1").resolve("greeting.txt");
        assertEquals("Hello, site", Files.readString(file), "DIR/TOKEN/ID on the host");

        JsonNode again =
                ServerHarness.json(
                        h.postRun(
                                TOKEN,
                                "{\"code\":\"return await workspace.read('greeting.txt')\","
                                        + "\"capabilities\":{\"workspace\":{\"id\":\"job-1\"}}}"));
        assertEquals("Hello, site", again.path("value").asText(), "the workspace persists");
    }

    @Test
    void videoIsARequestedGrantThePolicyMustAllow() {
        String code = "{\"code\":\"return [typeof video, typeof audio]\"";
        JsonNode asked =
                ServerHarness.json(h.postRun(TOKEN, code + ",\"capabilities\":{\"video\":true}}"));
        assertEquals(
                "[\"object\",\"undefined\"]", asked.path("value").toString(), asked.toString());
        JsonNode not = ServerHarness.json(h.postRun(TOKEN, code + "}"));
        assertEquals("[\"undefined\",\"undefined\"]", not.path("value").toString(), not.toString());
        HttpResponse<String> refused =
                h.postRun(NO_VIDEO, code + ",\"capabilities\":{\"video\":true}}");
        assertEquals(403, refused.statusCode(), refused.body());
        HttpResponse<String> bad = h.postRun(TOKEN, code + ",\"capabilities\":{\"video\":1}}");
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("capabilities.video must be true or false"), bad.body());
    }

    @Test
    void aWithheldDefaultIsGoneAndAFetchWithoutPrivateNetworkIsGuarded() {
        String base = "http://127.0.0.1:" + site.getAddress().getPort();
        JsonNode r =
                ServerHarness.json(
                        h.postRun(
                                TOKEN,
                                "{\"code\":\"const c = typeof console; try { await fetch(base +"
                                        + " '/hello.json'); return c + ' fetched'; } catch (e) {"
                                        + " return c + ' ' + e.name; }\","
                                        + "\"globals\":{\"base\":\""
                                        + base
                                        + "\"},\"capabilities\":{\"fetch\":{},\"withhold\":[\"console\"]}}"));
        assertTrue(r.path("ok").asBoolean(), r.toString());
        String value = r.path("value").asText();
        assertTrue(value.startsWith("undefined "), value);
        assertFalse(value.endsWith("fetched"), "the SSRF guard refuses loopback: " + value);
    }

    @Test
    void readinessWaitsForTheWarmUp() {
        try (ServerHarness cold =
                ServerHarness.startWarming(
                        SandjarServer.builder()
                                .pool(1)
                                .warmUp(Duration.ofSeconds(2))
                                .insecureNoAuth())) {
            assertEquals(503, cold.get("/readyz", null).statusCode(), "warming");
            assertEquals(200, cold.get("/healthz", null).statusCode());
            ServerHarness.await(
                    "ready after the warm-up", () -> cold.get("/readyz", null).statusCode() == 200);
        }
    }
}
