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
 * rows in {@link #EXCLUDED}.
 */
@Timeout(600)
class BrowserParityTest {
    private static final String TOKEN = "browser-parity-token";

    private static final String NO_HOST_SIDE =
            ", and the browser runner has no host side to run it";

    /**
     * The one list of known exclusions, each with what the browser runner answers instead: a
     * generated facade's other half (a host module, a WebAssembly module run by the JVM) does not
     * exist in a browser, so a body that reaches one fails before it starts, naming the module; and
     * the page grants no capability but {@code console}.
     */
    static final Map<String, Outcome> EXCLUDED =
            Map.of(
                    "pack module with an internal file and a sibling WASM module",
                    reachesWasm("@parity/geo"),
                    "WASM facade",
                    isWasm(),
                    "WASM facade refuses an argument out of i32 range",
                    isWasm(),
                    "host module facade",
                    Outcome.error(
                            "IMPORT",
                            "ImportError",
                            "'@parity/shout': it is a host module (shout)" + NO_HOST_SIDE),
                    // The page grants no capability but console: a trusted pack sees no fetch.
                    "trusted pack sees the run's capabilities",
                    Outcome.ok(
                            ServerHarness.JSON
                                    .createArrayNode()
                                    .add("Cr\u00e8me Br\u00fbl\u00e9e")
                                    .add("undefined")),
                    "untrusted pack does not see a withheld capability",
                    reachesWasm("@parity/geo"),
                    "runtime error inside a pack module",
                    reachesWasm("@parity/geo"));

    private static Outcome reachesWasm(String specifier) {
        return Outcome.error(
                "IMPORT",
                "ImportError",
                "'"
                        + specifier
                        + "': it imports @parity/geo/math, a WebAssembly module"
                        + NO_HOST_SIDE);
    }

    private static Outcome isWasm() {
        return Outcome.error(
                "IMPORT",
                "ImportError",
                "'@parity/geo/math': it is a WebAssembly module" + NO_HOST_SIDE);
    }

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
                                .tokens(ServerHarness.ci(TOKEN)));
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
                rows.size() - EXCLUDED.size() >= 10,
                "the browser runs most of the table, not only its exclusions");
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
        Map<String, ?> options =
                c.timeoutMs() == null
                        ? Map.of()
                        : Map.of("limits", Map.of("timeoutMs", c.timeoutMs()));
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
