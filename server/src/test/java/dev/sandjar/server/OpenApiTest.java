package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.javalin.router.ParsedEndpoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document stays true: it lists exactly the routes Javalin registered, each with its
 * method. The server runs embedded here, in a Javalin app the test owns, as a service would.
 */
class OpenApiTest {
    private static SandjarServer server;
    private static Javalin app;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        server =
                SandjarServer.builder()
                        .pool(1)
                        .warmUp(Duration.ZERO)
                        .tokens(
                                Tokens.of(
                                        java.util.List.of(
                                                Tokens.token(
                                                        "docs",
                                                        "docs-token",
                                                        new Policy(
                                                                java.util.Set.of("console"),
                                                                java.util.Set.of(),
                                                                10_000,
                                                                64,
                                                                java.util.Optional.empty(),
                                                                2)))))
                        .build();
        app =
                Javalin.create(
                                c -> {
                                    c.startup.showJavalinBanner = false;
                                    c.routes.get("/app/own", ctx -> ctx.result("mine"));
                                    server.install(c);
                                })
                        .start("127.0.0.1", 0);
    }

    @AfterAll
    static void stop() {
        app.stop();
        server.close();
    }

    @Test
    void theDocumentListsExactlyTheRegisteredRoutes() throws Exception {
        HttpResponse<String> r = get("/openapi.json", "docs-token");
        assertEquals(200, r.statusCode());
        JsonNode doc = new ObjectMapper().readTree(r.body());
        assertTrue(doc.path("openapi").asText().startsWith("3."), "an OpenAPI 3 document");

        Set<String> documented = new TreeSet<>();
        for (Map.Entry<String, JsonNode> path : doc.get("paths").properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                documented.add(op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey());
            }
        }
        Set<String> registered = new TreeSet<>();
        for (ParsedEndpoint e : app.unsafe.internalRouter.allHttpHandlers()) {
            if (e.endpoint.method.isHttpMethod() && !e.endpoint.path.startsWith("/app/")) {
                registered.add(
                        e.endpoint.method.name()
                                + " "
                                + e.endpoint.path.replace('<', '{').replace('>', '}'));
            }
        }
        assertEquals(registered, documented);
    }

    /** Every code an error body can carry is in the document's {@code Error} schema, no more. */
    @Test
    void theErrorSchemaListsEveryCode() throws Exception {
        JsonNode doc = new ObjectMapper().readTree(get("/openapi.json", "docs-token").body());
        Set<String> documented = new TreeSet<>();
        doc.at("/components/schemas/Error/properties/code/enum")
                .forEach(c -> documented.add(c.asText()));
        Set<String> codes = new TreeSet<>();
        for (ApiException.Code c : ApiException.Code.values()) {
            codes.add(c.name());
        }
        assertEquals(codes, documented);
    }

    @Test
    void embeddedRoutesLeaveTheAppsOwnRoutesAlone() throws Exception {
        HttpResponse<String> own = get("/app/own", null);
        assertEquals(200, own.statusCode(), "no token needed on the app's own route");
        assertEquals("mine", own.body());
        assertEquals(401, get("/api/packs", null).statusCode());
        assertEquals(200, get("/api/packs", "docs-token").statusCode());
        assertEquals(200, get("/healthz", null).statusCode());
    }

    private static HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
