package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.Limits;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.CatalogResolution;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.packs.RemoteCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parity table: every body of {@code parity/cases.json} run two ways, by a local {@link
 * Sandbox} whose {@link ModuleCatalog} holds the packs, and by a second {@code Sandbox} whose
 * imports resolve through a {@link RemoteCatalog} against a real {@link SandjarServer} started on
 * port 0 with the same packs. Each way must give the row's expected outcome, so both give the same
 * outcome kind, error name and message. A third runner (the browser runner) adds its column to the
 * same file.
 *
 * <h2>The format of {@code cases.json}</h2>
 *
 * <pre>{@code
 * { "format": 1,
 *   "cases": [
 *     { "name": "node built-in",                  // unique, names the row in test reports
 *       "body": "import fs from 'node:fs';\nreturn 1;",   // a run's code (a Code-node body)
 *       "timeoutMs": 300,                         // optional: the run's timeout
 *       "expect": { "outcome": "error",           // "ok" or "error"
 *                   "kind": "IMPORT",             // error only: RunError.Kind, as the HTTP API writes it
 *                   "name": "ImportError",        // error only: the JavaScript error name
 *                   "message": "'node:fs': ..." } // error only: the whole message
 *     },
 *     { "name": "...", "body": "...",
 *       "expect": { "outcome": "ok", "value": <the JSON value the body returns> } } ] }
 * }</pre>
 *
 * Rows are added, never reshaped: a runner reads {@code format} 1 and may ignore fields it does not
 * know. A body's imports are its declaration: a runner resolves them before the run starts, and
 * when one does not resolve the outcome is what the HTTP API answers for such a run, an {@code
 * IMPORT} error named {@code ImportError} whose message lists each problem as {@code 'specifier':
 * why}, joined by {@code "; "}. Every run gets a {@code fetch} global (a stand-in here, the real
 * one in a browser), so a row can show an untrusted pack does not see it.
 *
 * <p>The packs the bodies import are {@link ParityFixture}'s: {@code @parity/geo} (untrusted, with
 * an internal file and a WebAssembly module), {@code @parity/text} (trusted) and {@code
 * @parity/shout} (a host module). Every runner serves them alike; Sandjar's shipped packs are not
 * part of the table.
 */
class ParityTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX =
            SandboxExtension.poolSize(1).preloadAnalyzer().ignoringThreads("sandjar-wasm");

    private static final String TOKEN = "parity-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Made before the leak check's baseline: JDK 17's client has no close(). */
    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** Stands in for the fetch capability, which untrusted packs must not see. */
    private static final Bridge FETCH =
            Bridge.builder("parityfetch")
                    .guest("(host) => ({ fetch: async (u) => 'fetched ' + u })")
                    .build();

    @TempDir static Path dir;

    private static Sandbox local;
    private static ModuleCatalog localCatalog;
    private static ServerHarness server;
    private static Sandbox replica;
    private static RemoteCatalog remote;

    /** One row of the table. */
    record Case(String name, String body, Long timeoutMs, Outcome expect) {}

    /** What a run came to: a value (as JSON), or an error's kind, name and message. */
    record Outcome(String outcome, JsonNode value, String kind, String name, String message) {
        static Outcome ok(JsonNode value) {
            return new Outcome("ok", value, null, null, null);
        }

        static Outcome error(String kind, String name, String message) {
            return new Outcome("error", null, kind, name, message);
        }
    }

    @BeforeAll
    static void start(Sandbox shared) {
        local = shared;
        Path packs = ParityFixture.writePacks(dir.resolve("packs"));
        localCatalog =
                ModuleCatalog.builder(local)
                        .shippedPacks(false)
                        .hostModules(ParityFixture.HOST_MODULES)
                        .trust(ParityFixture.TRUSTED)
                        .searchPath(packs)
                        .build();
        assertEquals(List.of(), localCatalog.diagnostics());
        // The server serves the local column's catalog (the same packs, discovered once), from a
        // sandbox of its own.
        server =
                ServerHarness.start(
                        SandjarServer.builder()
                                .pool(1)
                                .catalog(localCatalog)
                                .tokens(ServerHarness.ci(TOKEN)));
        replica = Sandbox.builder().poolSize(1).build();
        // The replica holds the WebAssembly pack for its host side only; every module's code
        // comes from the server.
        ModuleCatalog hostSide =
                ModuleCatalog.builder(replica)
                        .shippedPacks(false)
                        .hostModules(ParityFixture.HOST_MODULES)
                        .searchPath(packs)
                        .build();
        remote =
                RemoteCatalog.builder(replica, URI.create(server.base))
                        .withToken(TOKEN)
                        .withHttpClient(HTTP)
                        .withLocalCatalog(hostSide)
                        .trust(ParityFixture.TRUSTED)
                        .withCacheDirectory(dir.resolve("cache"))
                        .build();
    }

    @AfterAll
    static void stop() {
        if (replica != null) {
            replica.close();
        }
        if (server != null) {
            server.close();
        }
    }

    static List<Case> cases() {
        try (InputStream in = ParityTest.class.getResourceAsStream("/parity/cases.json")) {
            JsonNode root = JSON.readTree(in);
            assertEquals(1, root.get("format").asInt(), "cases.json format");
            List<Case> out = new ArrayList<>();
            for (JsonNode c : root.get("cases")) {
                JsonNode e = c.get("expect");
                Outcome expect =
                        "ok".equals(e.get("outcome").asText())
                                ? Outcome.ok(e.get("value"))
                                : Outcome.error(
                                        e.get("kind").asText(),
                                        e.get("name").asText(),
                                        e.get("message").asText());
                out.add(
                        new Case(
                                c.get("name").asText(),
                                c.get("body").asText(),
                                c.has("timeoutMs") ? c.get("timeoutMs").asLong() : null,
                                expect));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theTableCoversWhatTheIssueNames() {
        List<String> bodies = cases().stream().map(Case::body).toList();
        List<String> names = cases().stream().map(Case::name).toList();
        assertEquals(names.size(), names.stream().distinct().count(), "row names are unique");
        for (String needle :
                List.of("node:", "import(", "/util.js", "@acme/missing", "@parity/geo/math")) {
            assertTrue(bodies.stream().anyMatch(b -> b.contains(needle)), needle);
        }
        for (String kind : List.of("IMPORT", "SYNTAX", "EXCEPTION", "TIMEOUT")) {
            assertTrue(
                    cases().stream().anyMatch(c -> kind.equals(c.expect().kind())),
                    "a row fails with " + kind);
        }
    }

    @TestFactory
    Stream<DynamicTest> localSandbox() {
        return cases().stream()
                .map(
                        c ->
                                DynamicTest.dynamicTest(
                                        c.name(),
                                        () ->
                                                assertEquals(
                                                        c.expect(),
                                                        run(local, localCatalog::resolveBody, c),
                                                        c.body())));
    }

    @TestFactory
    Stream<DynamicTest> remoteCatalog() {
        return cases().stream()
                .map(
                        c ->
                                DynamicTest.dynamicTest(
                                        c.name(),
                                        () ->
                                                assertEquals(
                                                        c.expect(),
                                                        run(replica, remote::resolveBody, c),
                                                        c.body())));
    }

    /**
     * Runs one row: resolves the body's imports with {@code resolve}, answers a body whose imports
     * do not resolve as the HTTP API does, and otherwise runs it.
     */
    static Outcome run(Sandbox sandbox, Function<String, CatalogResolution> resolve, Case c) {
        RunRequest.Builder request = RunRequest.builder(c.body()).bridges(List.of(FETCH));
        if (c.timeoutMs() != null) {
            request.limits(Limits.builder().timeout(Duration.ofMillis(c.timeoutMs())).build());
        }
        CatalogResolution modules = resolve.apply(c.body());
        if (!modules.isOk()) {
            List<String> problems = new ArrayList<>();
            modules.errors().forEach(p -> problems.add(p.toString()));
            return Outcome.error("IMPORT", "ImportError", String.join("; ", problems));
        }
        request.modules(modules.moduleResolution());
        RunResult result = sandbox.run(request.build());
        if (result.isOk()) {
            try {
                return Outcome.ok(JSON.readTree(result.valueJson()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Outcome.error(
                result.error().kind().name(), result.error().name(), result.error().message());
    }
}
