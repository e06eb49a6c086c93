package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The browser runner (docs/runners.md) in headless chromium against a real server: each body runs
 * in the page and through {@code POST /api/runs}, and the two answers agree on outcome, error kind,
 * name, message and position. Also: the runner's own bounds, the digest check, the page's route,
 * and screenshots.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BrowserRunnerTest {
    private static final String TOKEN = "browser-runner-token";

    /** Where a person finds the last screenshot of the page. */
    static final Path SCREENSHOTS = Path.of("target", "runner-screenshots");

    @TempDir static Path profile;

    /** While set, module deliveries carry a wrong X-Content-Sha256. */
    private static final AtomicBoolean TAMPER = new AtomicBoolean();

    /** While set, WebAssembly binaries ({@code <specifier>::wasm}) carry a wrong one. */
    private static final AtomicBoolean TAMPER_WASM = new AtomicBoolean();

    /** The first WebAssembly call reads its binary: the digest test must come before any other. */
    private static final String WASM_ADD =
            "import { add } from \"@parity/geo/math\";\nreturn await add(20, 22);";

    private static SandjarServer server;

    /**
     * The server's routes in an app whose after-handler can corrupt a delivery header, as a cache
     * or proxy between runner and server might.
     */
    private static Javalin app;

    private static String base;
    private static HeadlessRunner browser;

    @BeforeAll
    static void start() {
        server =
                SandjarServer.builder()
                        .pool(1)
                        .warmUp(Duration.ZERO)
                        .tokens(ServerHarness.ci(TOKEN))
                        // The parity table's packs beside the shipped ones: a WebAssembly module.
                        .packs(spinPack(ParityFixture.writePacks(profile.resolve("packs"))))
                        .build();
        app =
                Javalin.create(
                                c -> {
                                    server.install(c);
                                    c.routes.after(
                                            "/api/sandbox-modules/*",
                                            ctx -> {
                                                if (TAMPER.get()
                                                        || (TAMPER_WASM.get()
                                                                && ctx.path().endsWith("::wasm"))) {
                                                    ctx.header("X-Content-Sha256", "0".repeat(64));
                                                }
                                            });
                                })
                        .start("127.0.0.1", 0);
        base = "http://127.0.0.1:" + app.port();
        browser = HeadlessRunner.open(base, TOKEN, profile.resolve("chromium"));
    }

    /**
     * {@code @runner/spin}: {@code (module (func (export "spin") (loop (br 0))))}, a call that
     * never returns, written beside the parity packs.
     */
    private static Path spinPack(Path packs) {
        int[] b = {
            0x00,
            0x61,
            0x73,
            0x6d,
            0x01,
            0x00,
            0x00,
            0x00, // magic, version 1
            0x01,
            0x04,
            0x01,
            0x60,
            0x00,
            0x00, // type: () -> ()
            0x03,
            0x02,
            0x01,
            0x00, // function 0 has type 0
            0x07,
            0x08,
            0x01,
            0x04,
            0x73,
            0x70,
            0x69,
            0x6e,
            0x00,
            0x00, // export "spin"
            0x0a,
            0x09,
            0x01,
            0x07,
            0x00,
            0x03,
            0x40,
            0x0c,
            0x00,
            0x0b,
            0x0b // loop br 0
        };
        byte[] bytes = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            bytes[i] = (byte) b[i];
        }
        Path spin = packs.resolve("@runner").resolve("spin");
        try {
            Files.createDirectories(spin);
            Files.write(spin.resolve("spin.wasm"), bytes);
            Files.writeString(
                    spin.resolve("package.json"),
                    """
                    {
                      "name": "@runner/spin",
                      "version": "1.0.0",
                      "sandjar": {
                        "apiVersion": 1,
                        "sandboxModules": [
                          { "name": ".", "kind": "wasm", "file": "spin.wasm",
                            "memoryPagesMax": 1, "exports": ["spin"] }
                        ]
                      }
                    }
                    """);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return packs;
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.close();
        }
        if (app != null) {
            app.stop();
        }
        if (server != null) {
            server.stop();
        }
    }

    private static HttpResponse<String> get(String path, String token) {
        HttpRequest.Builder r =
                HttpRequest.newBuilder(URI.create(base + path)).timeout(ServerHarness.PATIENCE);
        if (token != null) {
            r.header("Authorization", "Bearer " + token);
        }
        return ServerHarness.send(r.GET().build());
    }

    /** The server's answer to the same body and limits. */
    private static JsonNode onServer(String code, Map<String, ?> limits) {
        ObjectNode body = ServerHarness.JSON.createObjectNode().put("code", code);
        body.set("limits", ServerHarness.JSON.valueToTree(limits));
        HttpResponse<String> res =
                ServerHarness.send(
                        HttpRequest.newBuilder(URI.create(base + "/api/runs"))
                                .timeout(ServerHarness.PATIENCE)
                                .header("Authorization", "Bearer " + TOKEN)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                                .build());
        assertEquals(200, res.statusCode(), res.body());
        return ServerHarness.json(res);
    }

    /** Runs {@code code} both ways and asserts the outcomes agree; returns the browser's. */
    private static JsonNode same(String code, Map<String, ?> limits) {
        JsonNode b = browser.run(code, Map.of("limits", limits));
        JsonNode s = onServer(code, limits);
        assertEquals(s.get("ok"), b.get("ok"), () -> "ok: server " + s + "\nbrowser " + b);
        if (s.get("ok").asBoolean()) {
            assertEquals(s.get("value"), b.get("value"), "the value");
        } else {
            for (String f : List.of("kind", "name", "message")) {
                assertEquals(
                        s.get("error").get(f).asText(),
                        b.get("error").get(f).asText(),
                        () -> f + ": server " + s + "\nbrowser " + b);
            }
        }
        return b;
    }

    private static JsonNode same(String code) {
        return same(code, Map.of());
    }

    @Test
    void plainBodiesAgreeWithTheServer() {
        assertEquals(3, same("return 1 + 2").get("value").asInt());
        JsonNode markers = same("return [undefined, NaN, -0, 10n, new Map([[1, 'a']]), 'x']");
        assertEquals("undef", markers.get("value").get(0).get("$sj").asText());
        assertEquals(
                "b",
                same("const o = await Promise.resolve({a: 'b'}); return o.a")
                        .get("value")
                        .asText());
        same("// import and export, in a comment only\nreturn \"script\";");
    }

    @Test
    void aPackModuleAndItsInternalFileLoadOverDelivery() {
        JsonNode r =
                same(
                        "import { chunk } from \"@sandjar/collections\";\n"
                                + "import { mean } from \"@sandjar/collections/stats\";\n"
                                + "return [chunk([1, 2, 3, 4, 5], 2), mean([1, 2, 3])];");
        assertEquals("[[[1,2],[3,4],[5]],2]", r.get("value").toString());
    }

    @Test
    void refusedImportsSayWhatALocalRunSays() {
        JsonNode node = same("import fs from \"node:fs\";\nreturn 1;");
        assertEquals("IMPORT", node.get("error").get("kind").asText());
        assertTrue(node.get("error").get("message").asText().contains("Node built-in"));
        same("import x from \"@acme/nothing-here\";\nreturn x;");
        same("import x from \"@sandjar/collections/src/compare.js\";\nreturn x;");
        same("import x from \"./local.js\";\nreturn x;");
        same("import x from \"https://example.com/x.js\";\nreturn x;");
    }

    @Test
    void dynamicImportIsRefusedEvenForADeclaredModule() {
        JsonNode r =
                same(
                        "import { chunk } from \"@sandjar/collections\";\n"
                                + "return await import(\"@sandjar/collections\");");
        assertEquals("IMPORT", r.get("error").get("kind").asText());
        assertTrue(r.get("error").get("message").asText().contains("dynamic import()"));
        same("const name = 'node:fs';\nreturn await import(name);");
    }

    @Test
    void syntaxAndRuntimeErrorsKeepTheirPositions() {
        JsonNode syntax = same("let x = ;\nreturn x;");
        assertEquals("SYNTAX", syntax.get("error").get("kind").asText());
        JsonNode parsed = same("import { chunk } from \"@sandjar/collections\";\nlet = = 1;");
        assertEquals("SYNTAX", parsed.get("error").get("kind").asText());
        JsonNode thrown = same("const a = 1;\nnull.x;\nreturn a;");
        assertEquals("EXCEPTION", thrown.get("error").get("kind").asText());
        assertEquals(2, thrown.get("error").get("line").asInt(), thrown.toString());
        same("throw 'plain';");
        same("throw new RangeError('out of range');");
        same("await new Promise(() => {});");
    }

    @Test
    void theRealmIsHardenedLikeTheJvmsOwn() {
        assertEquals("undefined", same("return typeof eval").get("value").asText());
        JsonNode f = same("return Function('return 1')()");
        assertEquals("EvalError", f.get("error").get("name").asText());
        same("return (async function () {}).constructor('return 1')");
        same("return typeof setTimeout");
    }

    @Test
    void limitsStopTheRunAsOnTheJvm() {
        JsonNode timeout = same("while (true) {}", Map.of("timeoutMs", 300));
        assertEquals("TIMEOUT", timeout.get("error").get("kind").asText());
        assertEquals(
                "the run used its CPU budget (timeout) of 300 ms",
                timeout.get("error").get("message").asText());
        JsonNode stack = same("function f(n) { return f(n + 1) + 1; }\nreturn f(0);");
        assertEquals("STACK", stack.get("error").get("kind").asText());
        JsonNode memory =
                browser.run(
                        "const keep = [];\nwhile (true) keep.push(new Array(100000).fill(1.5));",
                        Map.of("limits", Map.of("memoryMb", 16)));
        assertEquals("MEMORY", memory.get("error").get("kind").asText(), memory.toString());
        assertTrue(
                memory.get("error").get("message").asText().contains("heapBytes, is 16777216"),
                memory.toString());
    }

    @Test
    void limitsPastTheirBoundsAreRefusedNamingTheBound() {
        for (Map.Entry<String, String> c :
                Map.of(
                                "timeoutMs", "limits.timeoutMs (600001) must be <= 600000",
                                "memoryMb", "limits.memoryMb (513) must be <= 512",
                                "stackBytes", "limits.stackBytes (4194305) must be <= 4194304")
                        .entrySet()) {
            long past =
                    switch (c.getKey()) {
                        case "timeoutMs" -> 600_001;
                        case "memoryMb" -> 513;
                        default -> 4 * 1024 * 1024 + 1;
                    };
            JsonNode r = browser.run("return 1", Map.of("limits", Map.of(c.getKey(), past)));
            assertEquals("RunnerRequestError", r.get("refused").asText(), r.toString());
            assertEquals(c.getValue(), r.get("message").asText());
        }
        JsonNode zero = browser.run("return 1", Map.of("limits", Map.of("timeoutMs", 0)));
        assertEquals(
                "limits.timeoutMs must be a whole number >= 1, got 0",
                zero.get("message").asText());
        JsonNode unknown = browser.run("return 1", Map.of("limits", Map.of("heap", 1)));
        assertTrue(
                unknown.get("message").asText().contains("unknown field 'heap'"),
                unknown.toString());
        JsonNode code =
                browser.run(
                        "return 1;" + " ".repeat(1000), Map.of("limits", Map.of("codeChars", 100)));
        assertEquals(
                "the code is 1009 characters; the limit (codeChars) is 100",
                code.get("message").asText());
    }

    @Test
    void aBadTokenIsRefusedBeforeAnythingRuns() {
        JsonNode r =
                browser.run(
                        "import { chunk } from \"@sandjar/collections\";\nreturn 1;",
                        Map.of("token", "not-the-token"));
        assertEquals("RunnerRequestError", r.get("refused").asText(), r.toString());
        assertTrue(r.get("message").asText().contains("401"), r.toString());
    }

    @Test
    void aBodyThatDoesNotMatchItsDigestNeverRuns() {
        // A module no other test imports, so neither this page nor its HTTP cache holds it yet.
        String code = "import { slugify } from \"@sandjar/text\";\nreturn slugify(\"A b\");";
        try {
            TAMPER.set(true);
            JsonNode bad = browser.run(code);
            assertFalse(bad.get("ok").asBoolean(), bad.toString());
            assertEquals("IMPORT", bad.get("error").get("kind").asText());
            assertTrue(
                    bad.get("error")
                            .get("message")
                            .asText()
                            .contains("does not match its X-Content-Sha256"),
                    bad.toString());
        } finally {
            TAMPER.set(false);
        }
        JsonNode good = browser.run(code);
        assertEquals("a-b", good.get("value").asText(), good.toString());
    }

    @Test
    @Order(1)
    void aWasmBinaryThatDoesNotMatchItsDigestNeverRuns() {
        try {
            TAMPER_WASM.set(true);
            JsonNode bad = browser.run(WASM_ADD);
            assertFalse(bad.get("ok").asBoolean(), bad.toString());
            assertEquals("IMPORT", bad.get("error").get("kind").asText());
            assertTrue(
                    bad.get("error")
                            .get("message")
                            .asText()
                            .startsWith(
                                    "'@parity/geo/math::wasm' was refused: its body does not match"
                                            + " its X-Content-Sha256 (0000"),
                    bad.toString());
        } finally {
            TAMPER_WASM.set(false);
        }
        assertEquals(42, browser.run(WASM_ADD).get("value").asInt());
    }

    @Test
    void wasmCallsCheckTheirArgumentsAsTheJvmDoes() {
        assertEquals(42, same(WASM_ADD).get("value").asInt());
        assertEquals(
                10,
                same("import { sum } from \"@parity/geo\";\nreturn await sum(2, 3);")
                        .get("value")
                        .asInt());
        String tail =
                ";\ntry { return await add(%s); }"
                        + " catch (e) { return [e.name, e.code, e.message]; }";
        for (String args :
                List.of(
                        "2 ** 31, 1",
                        "-(2 ** 31) - 1, 0",
                        "1.5, 1",
                        "'1', 1",
                        "1",
                        "1, undefined",
                        "1, 2, 3",
                        "10n, 1")) {
            JsonNode r =
                    same("import { add } from \"@parity/geo/math\"" + String.format(tail, args));
            assertEquals("INVALID_ARGUMENT", r.get("value").get(1).asText(), args + ": " + r);
        }
        JsonNode range =
                same(
                        "import { add } from \"@parity/geo/math\""
                                + String.format(tail, "2 ** 31, 1"));
        assertTrue(
                range.get("value")
                        .get(2)
                        .asText()
                        .endsWith(
                                ".add: argument 1 (arg0:i32) must be between -2147483648 and"
                                        + " 2147483647, got a number"),
                range.toString());
        assertEquals(
                -2147483648,
                same("import { add } from \"@parity/geo/math\";\nreturn await add(2147483647, 1);")
                        .get("value")
                        .asInt(),
                "i32 arithmetic wraps inside the module, as on the JVM");
    }

    @Test
    void wasmBudgetsStopCallsAsOnTheJvm() {
        JsonNode spin =
                same(
                        "import { spin } from \"@runner/spin\";\n"
                                + "try { await spin(); return 'returned'; }"
                                + " catch (e) { return [e.name, e.code, e.message]; }");
        assertEquals(
                "[\"TimeoutError\",\"WASM_TIMEOUT\",\"@runner/spin spin: ran longer than 5000 ms"
                        + " and was stopped\"]",
                spin.get("value").toString());
        JsonNode calls =
                same(
                        "import { add } from \"@parity/geo/math\";\nlet n = 0;\n"
                                + "try { for (let i = 0; i < 300; i++) { await add(i, 1); n++; } }"
                                + " catch (e) { return [n, e.name, e.code, e.message]; }");
        assertEquals(
                "[256,\"WasmBudgetError\",\"WASM_CALL_LIMIT\",\"@parity/geo/math add: a run may"
                        + " make at most 256 WebAssembly calls\"]",
                calls.get("value").toString());
    }

    @Test
    void hostModulesAreCalledThroughTheServer() {
        JsonNode rows =
                same(
                        "import { parse } from \"@sandjar/csv\";\n"
                                + "return await parse(\"a,b\\n1,2\\n\");");
        assertTrue(rows.get("ok").asBoolean(), rows.toString());
        JsonNode bad =
                same(
                        "import { parse } from \"@sandjar/csv\";\n"
                                + "try { return await parse(\"a\", 5); }"
                                + " catch (e) { return [e.name, e.code, e.message]; }");
        assertEquals("INVALID_ARGUMENT", bad.get("value").get(1).asText(), bad.toString());
    }

    @Test
    void fetchNeedsTheTokensGrant() {
        assertEquals("undefined", same("return typeof fetch").get("value").asText());
        JsonNode asked =
                browser.run(
                        "return typeof fetch", Map.of("capabilities", Map.of("fetch", Map.of())));
        assertEquals("RunnerRequestError", asked.get("refused").asText(), asked.toString());
        assertTrue(
                asked.get("message")
                        .asText()
                        .startsWith(
                                "the server refused fetch (403): capability fetch is not in the"
                                        + " token's policy; it allows ["),
                asked.toString());
    }

    @Test
    void thePageIsServedWithoutATokenAndOnlyItsOwnFiles() {
        HttpResponse<String> page = get("/runner/", null);
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("Content-Type").orElseThrow().startsWith("text/html"));
        assertTrue(
                page.headers()
                        .firstValue("Content-Security-Policy")
                        .orElseThrow()
                        .contains("script-src 'self' 'wasm-unsafe-eval'"));
        assertEquals(
                "application/wasm",
                get("/runner/quickjs.wasm", null)
                        .headers()
                        .firstValue("Content-Type")
                        .orElseThrow());
        HttpResponse<String> other = get("/runner/pom.xml", null);
        assertEquals(404, other.statusCode());
        assertTrue(other.body().contains("the runner serves only"), other.body());
        assertEquals(401, get("/api/packs", null).statusCode(), "the API still needs the token");
    }

    @Test
    void screenshotsOfThePage() throws Exception {
        Files.createDirectories(SCREENSHOTS);
        browser.screenshot(SCREENSHOTS.resolve("runner-loaded.png"));
        WebElement code = browser.driver().findElement(By.id("code"));
        code.clear();
        code.sendKeys(
                "import { groupBy } from \"@sandjar/collections\";\n"
                        + "console.log(\"grouping\");\n"
                        + "return groupBy([\"apple\", \"avocado\", \"banana\"], (s) => s[0]);");
        browser.driver().findElement(By.id("run")).click();
        WebElement result = browser.driver().findElement(By.id("result"));
        ServerHarness.await(
                "the page shows its result", () -> result.getAttribute("class").equals("ok"));
        assertTrue(result.getText().contains("\"avocado\""), result.getText());
        assertTrue(result.getText().contains("grouping"), result.getText());
        assertTrue(result.getText().contains("\"source\": \"guest\""), result.getText());
        Path last = SCREENSHOTS.resolve("runner-last.png");
        browser.screenshot(last);
        byte[] png = Files.readAllBytes(last);
        assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', "a PNG");
    }
}
