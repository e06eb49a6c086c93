package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.ModuleCatalog;
import io.javalin.Javalin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the server does for the browser runner's guests, over real HTTP: a WebAssembly module's
 * binary on the delivery route ({@code <specifier>::wasm}), a host module's export called through
 * {@code POST /api/runner/host-calls}, and a guest fetch through {@code POST /api/runner/fetches}
 * under the server's own Fetch bridge; and the refusals of each: a token without the grant or the
 * pack gets nothing it could not get from a run.
 */
@Timeout(300)
class ServerRunnerCallsTest {
    private static final String FULL = "runner-calls-full";
    private static final String PLAIN = "runner-calls-plain";
    private static final String NARROW = "runner-calls-narrow";

    /** Made before the servers start: JDK 17's client has no close(). */
    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir static Path dir;

    private static Sandbox sandbox;
    private static ServerHarness h;

    /** The address a guest fetches: on loopback, so only allowPrivateNetwork reaches it. */
    private static Javalin target;

    @BeforeAll
    static void start() {
        sandbox = Sandbox.builder().poolSize(1).build();
        ModuleCatalog catalog =
                ModuleCatalog.builder(sandbox)
                        .shippedPacks(false)
                        .hostModules(ParityFixture.HOST_MODULES)
                        .trust(ParityFixture.TRUSTED)
                        .searchPath(ParityFixture.writePacks(dir.resolve("packs")))
                        .build();
        Policy base = ServerHarness.policy();
        Set<String> fetching = new java.util.HashSet<>(base.capabilities());
        fetching.addAll(List.of("fetch", "allowPrivateNetwork"));
        Policy full =
                new Policy(
                        fetching,
                        Set.of(),
                        base.maxTimeoutMs(),
                        base.maxMemoryMb(),
                        base.packs(),
                        base.maxConcurrentRuns());
        h =
                ServerHarness.start(
                        SandjarServer.builder()
                                .sandbox(sandbox)
                                .catalog(catalog)
                                .tokens(
                                        Tokens.of(
                                                List.of(
                                                        Tokens.token("full", FULL, full),
                                                        Tokens.token("plain", PLAIN, base),
                                                        Tokens.token(
                                                                "narrow",
                                                                NARROW,
                                                                ServerHarness.withPacks(
                                                                        Set.of(
                                                                                ParityFixture
                                                                                        .TRUSTED)))))));
        target =
                Javalin.create(
                                c ->
                                        c.routes.get(
                                                "/hello",
                                                ctx -> {
                                                    ctx.header("X-Test", "yes");
                                                    ctx.result("hi from the target");
                                                }))
                        .start("127.0.0.1", 0);
    }

    @AfterAll
    static void stop() {
        if (target != null) {
            target.stop();
        }
        if (h != null) {
            h.close();
        }
        if (sandbox != null) {
            sandbox.close();
        }
    }

    private static HttpResponse<String> post(String path, String token, JsonNode body) {
        return ServerHarness.send(
                h.request(path, token)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                        .build());
    }

    private static ObjectNode object() {
        return ServerHarness.JSON.createObjectNode();
    }

    private static HttpResponse<byte[]> getBytes(String path, String token) {
        HttpRequest r =
                HttpRequest.newBuilder(URI.create(h.base + path))
                        .timeout(ServerHarness.PATIENCE)
                        .header("Authorization", "Bearer " + token)
                        .GET()
                        .build();
        try {
            return HTTP.send(r, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String graphDigest(String specifier) {
        for (JsonNode m : ServerHarness.json(h.get("/api/packs", FULL)).get("modules")) {
            if (m.get("specifier").asText().equals(specifier)) {
                return m.get("graphDigest").asText();
            }
        }
        throw new AssertionError("the pack list has no " + specifier);
    }

    @Test
    void aWasmBinaryIsDeliveredWithTheHashItsGraphDigestNames() throws Exception {
        HttpResponse<byte[]> res = getBytes("/api/sandbox-modules/@parity/geo/math::wasm", FULL);
        assertEquals(200, res.statusCode());
        assertArrayEquals(ParityFixture.addWasm(), res.body());
        assertEquals("application/wasm", res.headers().firstValue("Content-Type").orElseThrow());
        String sha =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(res.body()));
        assertEquals(sha, res.headers().firstValue("X-Content-Sha256").orElseThrow());
        assertEquals(
                graphDigest("@parity/geo/math"),
                res.headers().firstValue("X-Content-Digest").orElseThrow());
        assertEquals(
                "public, max-age=31536000, immutable",
                res.headers().firstValue("Cache-Control").orElseThrow());
        assertEquals(
                "add (i32,i32)->i32 add",
                URLDecoder.decode(
                        res.headers().firstValue("X-Sandbox-Wasm-Exports").orElseThrow(),
                        StandardCharsets.UTF_8));
        String notFound = h.get("/api/sandbox-modules/@acme/none::wasm", FULL).body();
        assertTrue(notFound.contains("no module is delivered under that id"), notFound);
        for (String[] refused :
                new String[][] {
                    {"@parity/geo/math::wasm", NARROW}, // a pack the policy leaves out
                    {"@parity/geo::wasm", FULL}, // a module that is not WebAssembly
                    {"@parity/geo/math::facade::wasm", FULL} // only by its specifier
                }) {
            HttpResponse<String> r = h.get("/api/sandbox-modules/" + refused[0], refused[1]);
            assertEquals(404, r.statusCode(), refused[0]);
            assertEquals(notFound, r.body(), "one 404 for every id not delivered");
        }
        assertEquals(401, h.get("/api/sandbox-modules/@parity/geo/math::wasm", null).statusCode());
    }

    private static ObjectNode hostCall(String module, String export, Object... args) {
        ObjectNode b = object().put("module", module).put("export", export);
        b.set("args", ServerHarness.JSON.valueToTree(List.of(args)));
        return b;
    }

    @Test
    void aHostCallAnswersAsTheFacadeDoesInARun() {
        HttpResponse<String> ok =
                post("/api/runner/host-calls", FULL, hostCall("@parity/shout", "shout", "quiet"));
        assertEquals(200, ok.statusCode(), ok.body());
        JsonNode r = ServerHarness.json(ok);
        assertTrue(r.get("ok").asBoolean(), ok.body());
        assertEquals("QUIET", r.get("value").get("value").asText());
        JsonNode bad =
                ServerHarness.json(
                                post(
                                        "/api/runner/host-calls",
                                        FULL,
                                        hostCall("@parity/shout", "shout", 42)))
                        .get("value")
                        .get("error");
        assertEquals("TypeError", bad.get("name").asText());
        assertEquals("INVALID_ARGUMENT", bad.get("code").asText());
        assertEquals(
                "packs.host.shout.shout: argument 1 (text) must be a string, got a number",
                bad.get("message").asText());
    }

    @Test
    void aHostCallIsRefusedWhatARunWouldBeRefused() {
        HttpResponse<String> narrow =
                post("/api/runner/host-calls", NARROW, hostCall("@parity/shout", "shout", "x"));
        assertEquals(403, narrow.statusCode());
        assertEquals(
                "the token's policy does not allow pack '@parity/shout' (imported as"
                        + " '@parity/shout'); it allows [@parity/text]",
                ServerHarness.json(narrow).get("message").asText());
        HttpResponse<String> notHost =
                post("/api/runner/host-calls", FULL, hostCall("@parity/geo", "sum", 1, 2));
        assertEquals(404, notHost.statusCode());
        assertTrue(
                notHost.body().contains("no host module is served as '@parity/geo'"),
                notHost.body());
        HttpResponse<String> badName =
                post("/api/runner/host-calls", FULL, hostCall("@parity/shout", "a; b", "x"));
        assertEquals(400, badName.statusCode());
        assertTrue(badName.body().contains("export must be a JavaScript name"), badName.body());
        ObjectNode extra = hostCall("@parity/shout", "shout", "x").put("extra", 1);
        HttpResponse<String> unknown = post("/api/runner/host-calls", FULL, extra);
        assertEquals(400, unknown.statusCode());
        assertTrue(unknown.body().contains("unknown field 'extra'"), unknown.body());
        ObjectNode noArgs = object().put("module", "@parity/shout").put("export", "shout");
        HttpResponse<String> missing = post("/api/runner/host-calls", FULL, noArgs);
        assertEquals(400, missing.statusCode());
        assertTrue(missing.body().contains("args must be an array"), missing.body());
        assertEquals(
                401,
                post("/api/runner/host-calls", null, hostCall("@parity/shout", "shout", "x"))
                        .statusCode());
    }

    private static ObjectNode fetchOf(String url) {
        ObjectNode b = object().put("url", url).put("method", "GET");
        b.putArray("headers");
        b.putNull("bytes");
        b.putNull("text");
        return b.put("truncate", false);
    }

    @Test
    void aGuestFetchGoesThroughTheServersFetchBridge() {
        String url = "http://127.0.0.1:" + target.port() + "/hello";
        HttpResponse<String> res =
                post("/api/runner/fetches", FULL, fetchOf(url).put("allowPrivateNetwork", true));
        assertEquals(200, res.statusCode(), res.body());
        JsonNode v = ServerHarness.json(res).get("value").get("value");
        assertEquals(200, v.get("status").asInt(), res.body());
        assertEquals("yes", v.get("headers").get("x-test").get(0).asText(), res.body());
        assertEquals("bytes", v.get("body").get("$sj").asText());
        assertEquals(
                "hi from the target",
                new String(
                        Base64.getDecoder().decode(v.get("body").get("base64").asText()),
                        StandardCharsets.UTF_8));
        // Without allowPrivateNetwork the SSRF guard refuses the loopback address, as in a run.
        JsonNode blocked =
                ServerHarness.json(post("/api/runner/fetches", FULL, fetchOf(url)))
                        .get("value")
                        .get("error");
        assertEquals("FetchError", blocked.get("name").asText(), blocked.toString());
        assertEquals("BLOCKED_ADDRESS", blocked.get("code").asText(), blocked.toString());
    }

    @Test
    void aFetchNeedsTheTokensGrant() {
        String url = "http://127.0.0.1:" + target.port() + "/hello";
        HttpResponse<String> plain = post("/api/runner/fetches", PLAIN, fetchOf(url));
        assertEquals(403, plain.statusCode());
        String message = ServerHarness.json(plain).get("message").asText();
        assertTrue(
                message.startsWith("capability fetch is not in the token's policy; it allows ["),
                message);
        HttpResponse<String> probe =
                post("/api/runner/fetches", PLAIN, object().put("probe", true));
        assertEquals(403, probe.statusCode());
        assertEquals(message, ServerHarness.json(probe).get("message").asText());
        HttpResponse<String> granted =
                post("/api/runner/fetches", FULL, object().put("probe", true));
        assertEquals(200, granted.statusCode());
        assertEquals("{\"fetch\":true}", granted.body());
        HttpResponse<String> noUrl =
                post("/api/runner/fetches", FULL, object().put("method", "GET"));
        assertEquals(400, noUrl.statusCode());
        assertTrue(noUrl.body().contains("url must be a string"), noUrl.body());
        assertEquals(401, post("/api/runner/fetches", null, fetchOf(url)).statusCode());
    }
}
