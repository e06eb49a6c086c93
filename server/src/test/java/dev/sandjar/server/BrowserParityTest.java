package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.server.ParityTest.Case;
import dev.sandjar.server.ParityTest.Outcome;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parity table's third way ({@link ParityTest} has the format and the other two): every row of
 * {@code parity/cases.json} run by the browser runner in headless chromium, against a server
 * started with the same packs, must give the row's outcome kind, error name and message, except the
 * rows in {@link #EXCLUDED} (none today).
 */
@Timeout(600)
class BrowserParityTest {
    private static final String TOKEN = "browser-parity-token";

    /**
     * The one list of known exclusions, each with what the browser runner answers instead. Empty:
     * the page runs WebAssembly modules itself, calls host modules and fetches through the server,
     * and guards untrusted packs as a local catalog does. A row that must differ in the browser is
     * added here with its answer and the reason.
     */
    static final Map<String, Outcome> EXCLUDED = Map.of();

    /**
     * What every row asks the page for, as {@link ParityTest} gives every local run: {@code fetch}
     * (the token's policy grants it), and {@link ParityFixture#TRUSTED} trusted.
     */
    private static final Map<String, Object> OPTIONS =
            Map.of(
                    "capabilities",
                    Map.of("fetch", Map.of()),
                    "trust",
                    List.of(ParityFixture.TRUSTED));

    @TempDir static Path dir;

    private static Sandbox sandbox;
    private static ServerHarness server;
    private static HeadlessRunner browser;

    /**
     * A server with the table's packs, catalogued as {@link ParityTest}'s local column has them.
     */
    @BeforeAll
    static void start() {
        Path packs = ParityFixture.writePacks(dir.resolve("packs"));
        sandbox = Sandbox.builder().poolSize(1).build();
        ModuleCatalog catalog =
                ModuleCatalog.builder(sandbox)
                        .shippedPacks(false)
                        .hostModules(ParityFixture.HOST_MODULES)
                        .trust(ParityFixture.TRUSTED)
                        .searchPath(packs)
                        .build();
        assertEquals(List.of(), catalog.diagnostics());
        server =
                ServerHarness.start(
                        SandjarServer.builder()
                                .sandbox(sandbox)
                                .catalog(catalog)
                                .tokens(ServerHarness.ci(TOKEN, "fetch")));
        browser = HeadlessRunner.open(server.base, TOKEN, dir.resolve("chromium"));
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.close();
        }
        if (server != null) {
            server.close();
        }
        if (sandbox != null) {
            sandbox.close();
        }
    }

    @Test
    void everyExclusionNamesARowOfTheTable() {
        Set<String> rows = ParityTest.cases().stream().map(Case::name).collect(Collectors.toSet());
        for (String excluded : EXCLUDED.keySet()) {
            assertTrue(rows.contains(excluded), "no row is named '" + excluded + "'");
        }
        assertTrue(
                rows.size() - EXCLUDED.size() >= 20,
                "the browser runs the whole table, not only its exclusions");
    }

    @TestFactory
    Stream<DynamicTest> browserRunner() {
        return ParityTest.cases().stream()
                .map(
                        c ->
                                DynamicTest.dynamicTest(
                                        c.name(),
                                        () ->
                                                assertEquals(
                                                        EXCLUDED.getOrDefault(c.name(), c.expect()),
                                                        run(c),
                                                        c.body())));
    }

    /** One row in the page: its outcome as {@link ParityTest#run} reads a local one. */
    static Outcome run(Case c) {
        Map<String, Object> options = new java.util.HashMap<>(OPTIONS);
        if (c.timeoutMs() != null) {
            options.put("limits", Map.of("timeoutMs", c.timeoutMs()));
        }
        JsonNode r = browser.run(c.body(), options);
        if (r.has("refused")) {
            throw new AssertionError("the runner refused the request: " + r);
        }
        if (r.get("ok").asBoolean()) {
            return Outcome.ok(r.get("value"));
        }
        JsonNode e = r.get("error");
        return Outcome.error(
                e.get("kind").asText(), e.get("name").asText(), e.get("message").asText());
    }
}
