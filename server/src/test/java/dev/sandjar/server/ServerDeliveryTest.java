package dev.sandjar.server;

import static dev.sandjar.server.ServerHarness.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.net.URLDecoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pack catalog and module delivery: the headers a runner checks a module by, revalidation, and
 * one 404, byte for byte, for every id that is not delivered to the caller (unknown, a path that
 * tries to climb out, or a pack the token's policy leaves out).
 */
@ExtendWith(EngineLeakCheck.class)
class ServerDeliveryTest {
    private static final String CI = "delivery-ci-token";
    private static final String NARROW = "delivery-narrow-token";
    private static final String COLLECTIONS = "@sandjar/collections";

    private static ServerHarness h;

    @BeforeAll
    static void start() {
        h =
                ServerHarness.start(
                        SandjarServer.builder()
                                .pool(1)
                                .tokens(
                                        Tokens.of(
                                                List.of(
                                                        Tokens.token(
                                                                "ci", CI, ServerHarness.policy()),
                                                        Tokens.token(
                                                                "narrow",
                                                                NARROW,
                                                                ServerHarness.withPacks(
                                                                        Set.of(
                                                                                "@sandjar/text")))))));
    }

    @AfterAll
    static void stop() {
        if (h != null) {
            h.close();
        }
    }

    private static Set<String> packsListed(String token) {
        HttpResponse<String> res = h.get("/api/packs", token);
        assertEquals(200, res.statusCode(), res.body());
        Set<String> packs = new TreeSet<>();
        for (JsonNode m : json(res).get("modules")) {
            packs.add(m.get("pack").asText());
            assertEquals(m.get("specifier").asText(), m.get("id").asText());
            assertFalse(m.get("graphDigest").asText().isBlank(), m.toString());
        }
        return packs;
    }

    @Test
    void thePackListIsFilteredByThePolicy() {
        Set<String> all = packsListed(CI);
        assertTrue(
                all.containsAll(Set.of(COLLECTIONS, "@sandjar/text", "@sandjar/diff")),
                all.toString());
        assertEquals(Set.of("@sandjar/text"), packsListed(NARROW));

        JsonNode modules = json(h.get("/api/packs", CI)).get("modules");
        List<String> specifiers = new ArrayList<>();
        modules.forEach(m -> specifiers.add(m.get("specifier").asText()));
        assertTrue(specifiers.contains(COLLECTIONS), specifiers.toString());
        assertTrue(specifiers.contains(COLLECTIONS + "/stats"), specifiers.toString());
    }

    @Test
    void aModuleComesWithItsDigestsDependenciesAndCacheHeaders() {
        HttpResponse<String> res = h.get("/api/sandbox-modules/" + COLLECTIONS, CI);
        assertEquals(200, res.statusCode(), res.body());
        var headers = res.headers();
        assertEquals(
                "text/javascript; charset=utf-8", headers.firstValue("Content-Type").orElse(null));
        assertEquals(
                "public, max-age=31536000, immutable",
                headers.firstValue("Cache-Control").orElse(null));
        assertEquals("nosniff", headers.firstValue("X-Content-Type-Options").orElse(null));
        assertTrue(headers.firstValue("X-Request-Id").isPresent());
        String digest = headers.firstValue("X-Content-Digest").orElseThrow();
        assertEquals("\"" + digest + "\"", headers.firstValue("ETag").orElseThrow());
        assertEquals(sha256Hex(res.body()), headers.firstValue("X-Content-Sha256").orElseThrow());
        assertTrue(res.body().contains("export function chunk"), "the module's source");

        String deps = headers.firstValue("X-Sandbox-Module-Dependencies").orElseThrow();
        assertFalse(deps.isBlank(), "collections imports ./compare.js");
        // Each dependency is delivered by its id, and checks out against its own hash.
        for (String dep : deps.split(", ")) {
            String id = URLDecoder.decode(dep, StandardCharsets.UTF_8);
            assertTrue(id.startsWith(COLLECTIONS), id);
            HttpResponse<String> d = h.get("/api/sandbox-modules/" + dep, CI);
            assertEquals(200, d.statusCode(), dep + ": " + d.body());
            assertEquals(
                    sha256Hex(d.body()), d.headers().firstValue("X-Content-Sha256").orElse(null));
        }
    }

    @Test
    void aCompiledNpmBundleNamesWhatItWasCompiledFrom() {
        // Its line in the graph digest names them, so a client can only recompute the digest
        // (RemoteCatalog does) if the delivery says what they are.
        HttpResponse<String> yaml = h.get("/api/sandbox-modules/@sandjar/yaml", CI);
        assertEquals(200, yaml.statusCode(), yaml.body());
        String npm = yaml.headers().firstValue("X-Sandbox-Npm").orElseThrow();
        assertTrue(
                npm.startsWith("js-yaml@")
                        && npm.contains(" integrity:sha512-")
                        && npm.contains(" compiler:"),
                npm);
        HttpResponse<String> authored = h.get("/api/sandbox-modules/" + COLLECTIONS, CI);
        assertTrue(authored.headers().firstValue("X-Sandbox-Npm").isEmpty());
    }

    @Test
    void ifNoneMatchWithTheEtagIs304() {
        HttpResponse<String> first = h.get("/api/sandbox-modules/" + COLLECTIONS, CI);
        String etag = first.headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> again =
                ServerHarness.send(
                        h.request("/api/sandbox-modules/" + COLLECTIONS, CI)
                                .header("If-None-Match", etag)
                                .GET()
                                .build());
        assertEquals(304, again.statusCode());
        assertEquals("", again.body());
        assertEquals(etag, again.headers().firstValue("ETag").orElse(null));

        HttpResponse<String> stale =
                ServerHarness.send(
                        h.request("/api/sandbox-modules/" + COLLECTIONS, CI)
                                .header("If-None-Match", "\"something-else\"")
                                .GET()
                                .build());
        assertEquals(200, stale.statusCode());
        assertTrue(h.metric(CI, "sandjar_delivery_total{result=\"not_modified\"}") >= 1);
    }

    @Test
    void everyIdNotDeliveredToTheCallerIsTheSame404() {
        List<String[]> cases =
                List.of(
                        new String[] {CI, "/api/sandbox-modules/@sandjar/no-such-pack", "no-such"},
                        new String[] {CI, "/api/sandbox-modules/..%2F..%2Fetc%2Fpasswd", "passwd"},
                        new String[] {CI, "/api/sandbox-modules/@sandjar/../../pom.xml", "pom.xml"},
                        new String[] {CI, "/api/sandbox-modules/%2e%2e/%2e%2e/pom.xml", "pom.xml"},
                        new String[] {
                            CI, "/api/sandbox-modules/@sandjar/collections/%2e%2e/text", "text"
                        },
                        new String[] {
                            CI,
                            "/api/sandbox-modules/@sandjar%2Fcollections%2F..%2F..%2Fpom.xml",
                            "pom.xml"
                        },
                        new String[] {
                            CI, "/api/sandbox-modules/@sandjar/collections::src/../pom.xml", "pom"
                        },
                        // Jetty refuses these after parsing, before the route: still the 404.
                        new String[] {
                            CI, "/api/sandbox-modules/%C0%AE%C0%AE/%C0%AE%C0%AE/pom.xml", "pom"
                        },
                        new String[] {CI, "/api/sandbox-modules/..;/..;/pom.xml", "pom"},
                        new String[] {CI, "/api/sandbox-modules/%ff", "%ff"},
                        new String[] {
                            NARROW, "/api/sandbox-modules/" + COLLECTIONS, "collections"
                        });
        String body = null;
        for (String[] c : cases) {
            HttpResponse<String> res = h.get(c[1], c[0]);
            assertEquals(404, res.statusCode(), c[1] + ": " + res.body());
            assertTrue(res.headers().firstValue("X-Request-Id").isPresent(), c[1]);
            assertFalse(res.body().contains(c[2]), c[1] + " is echoed: " + res.body());
            assertNotNull(json(res).get("code"), res.body());
            if (body == null) {
                body = res.body();
            }
            assertEquals(body, res.body(), c[1]);
        }
        assertEquals("NOT_FOUND", json(body).get("code").asText());
    }

    /**
     * Headers past Jetty's request-header buffer are refused by Jetty itself, before any route; the
     * answer still carries a code of its own, as every error does, not the 400's.
     */
    @Test
    void headersOverJettysLimitAre431WithTheirOwnCode() {
        HttpResponse<String> res =
                ServerHarness.send(
                        h.request("/api/packs", CI)
                                .header("X-Padding", "a".repeat(16_000))
                                .GET()
                                .build());
        assertEquals(431, res.statusCode(), res.body());
        assertTrue(res.headers().firstValue("X-Request-Id").isPresent());
        JsonNode body = json(res);
        assertEquals("HEADERS_TOO_LARGE", body.get("code").asText(), res.body());
        assertFalse(body.get("message").asText().contains("aaaa"), res.body());
    }

    /**
     * A request Jetty's parser refuses loses its path before anything of ours runs, so it cannot be
     * told from any other path: the same JSON 400 everywhere, naming nothing.
     */
    @Test
    void aRequestJettyCannotParseIsTheSame400OnEveryPath() {
        String body = null;
        for (String path :
                List.of(
                        "/api/sandbox-modules/%00",
                        "/api/sandbox-modules/@sandjar/text%00",
                        "/api/sandbox-modules/../../../etc/passwd",
                        "/api/runs/%00",
                        "/metrics/../../x")) {
            HttpResponse<String> res = h.get(path, CI);
            assertEquals(400, res.statusCode(), path + ": " + res.body());
            assertTrue(res.headers().firstValue("X-Request-Id").isPresent(), path);
            assertEquals("BAD_REQUEST", json(res).get("code").asText(), res.body());
            if (body == null) {
                body = res.body();
            }
            assertEquals(body, res.body(), path);
        }
        assertFalse(body.contains("sandjar") || body.contains("passwd"), body);
    }

    private static String sha256Hex(String text) {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
