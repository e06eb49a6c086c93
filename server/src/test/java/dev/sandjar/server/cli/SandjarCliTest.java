package dev.sandjar.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.video.VideoConfig;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The command line's output contract, through the real sandbox. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SandjarCliTest {
    // The chart example draws with Java2D, which starts one process-wide daemon on first use.
    @RegisterExtension
    static final EngineLeakCheck LEAKS = EngineLeakCheck.create().ignoring("Java2D Disposer");

    @TempDir Path dir;

    private record Run(int code, String out, String err) {}

    private Run run(String source, String... flags) throws IOException {
        Path file = dir.resolve("main.js");
        Files.writeString(file, source);
        String[] args = new String[flags.length + 2];
        args[0] = "run";
        args[1] = file.toString();
        System.arraycopy(flags, 0, args, 2, flags.length);
        return runArgs(args);
    }

    private static Run runArgs(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                SandjarCli.run(
                        args,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(
                code,
                out.toString(StandardCharsets.UTF_8).trim(),
                err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void theReturnValueAndAModulesDefaultExportArePrintedAsJson() throws IOException {
        assertEquals(
                new Run(0, "[1,\"two\"]", ""), run("return await Promise.resolve([1, 'two']);"));
        assertEquals(
                new Run(0, "{\"v\":3}", ""),
                run("const v = await Promise.resolve(3);\nexport default { v };"));
    }

    @Test
    void whatJsonCannotHoldPrintsWithTransportMarkers() throws IOException {
        Run r = run("return {u: undefined, n: NaN, b: new Uint8Array([1, 2]), d: new Date(0)}");
        assertEquals(0, r.code());
        assertEquals(
                "{\"u\":{\"$sj\":\"undef\"},\"n\":{\"$sj\":\"num\",\"v\":\"NaN\"},\"b\":{\"$sj\":\"bytes\",\"type\":\"Uint8Array\",\"base64\":\"AQI=\"},\"d\":{\"$sj\":\"date\",\"v\":0}}",
                r.out());
    }

    @Test
    void globalsComeFromJsonAndStatsGoToStderr() throws IOException {
        Run r =
                run(
                        "return inputs.a + inputs.b.length",
                        "--global",
                        "inputs={\"a\": 40, \"b\": [1, 2]}",
                        "--stats");
        assertEquals(0, r.code());
        assertEquals("42", r.out());
        assertTrue(r.err().startsWith("stats: wall "), r.err());
        Run bad = run("return 1", "--global", "inputs={nope");
        assertEquals(1, bad.code());
        assertTrue(bad.err().contains("--global inputs is not valid JSON"), bad.err());
        Run reserved = run("return 1", "--global", "JSON=1");
        assertEquals(1, reserved.code());
        assertTrue(reserved.err().contains("'JSON' is reserved"), reserved.err());
    }

    @Test
    void failuresPrintOneLineWithTheirKindAndExit2() throws IOException {
        assertEquals(
                new Run(2, "", "error: exception: TypeError: boom (line 2, column 11)"),
                run("const x = 1;\nthrow new TypeError('boom');"));
        Run syntax = run("return 1 +");
        assertEquals(2, syntax.code());
        assertTrue(syntax.err().startsWith("error: syntax: SyntaxError: "), syntax.err());
        Run timeout = run("while (true) {}", "--timeout-ms", "200");
        assertEquals(
                new Run(
                        2,
                        "",
                        "error: timeout: TimeoutError: the run used its CPU budget (timeout) of 200"
                                + " ms"),
                timeout);
        Run memory =
                run(
                        "const k = []; while (true) k.push(new Uint8Array(1 << 20));",
                        "--memory-mb",
                        "8");
        assertEquals(2, memory.code());
        assertTrue(memory.err().startsWith("error: memory: "), memory.err());
        Run stack = run("function f() { return f() + 1; }\nreturn f();");
        assertTrue(stack.err().startsWith("error: stack: RangeError"), stack.err());
        Run imported = run("import x from 'left-pad';\nreturn x;");
        assertEquals(
                "error: import: 'left-pad': no installed pack provides it; install the pack"
                        + " left-pad",
                imported.err());
        Run output = run("return 'x'.repeat(200000)");
        assertTrue(output.err().startsWith("error: output: OutputTooLarge"), output.err());
    }

    @Test
    void badUsageExits1WithTheUsage() {
        Run none = runArgs();
        assertEquals(1, none.code());
        assertTrue(none.err().contains("usage: sandjar run FILE.js"), none.err());
        assertEquals(1, runArgs("run", "x.js", "--timeout-ms", "0").code());
        assertEquals(1, runArgs("run", "x.js", "--memory-mb", "513").code());
        assertEquals(1, runArgs("run", "x.js", "--frobnicate").code());
        Run missing = runArgs("run", dirPath("missing.js"));
        assertEquals(1, missing.code());
        assertTrue(missing.err().contains("cannot read"), missing.err());
    }

    private String dirPath(String name) {
        return dir.resolve(name).toString();
    }

    @Test
    void theBundledExampleRuns() {
        Run r = runArgs("run", Path.of("..", "examples", "hello.js").toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(
                "{\"greeting\":\"Hello, Sandjar!\",\"stack\":\"QuickJS-ng -> WebAssembly -> Chicory"
                        + " -> JVM\",\"fib20\":6765}",
                r.out());
    }

    @Test
    void theChartExampleDrawsAPngIntoTheWorkspace() throws IOException {
        Path ws = Files.createDirectory(dir.resolve("charts"));
        Run r =
                runArgs(
                        "run",
                        Path.of("..", "examples", "chart.js").toString(),
                        "--workspace",
                        ws.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(
                "{\"file\":\"chart.png\",\"width\":400,\"height\":240,\"format\":\"png\"}",
                r.out());
        java.awt.image.BufferedImage png =
                javax.imageio.ImageIO.read(ws.resolve("chart.png").toFile());
        assertEquals(400, png.getWidth());
        // The white background, and a bar's blue below its top.
        assertEquals(0xFFFFFFFF, png.getRGB(5, 5));
        assertTrue((png.getRGB(40 + 34 * 3 + 34, 200) & 0xFF) > 0x70, "a blue bar");
        Run withheld = run("return typeof createCanvas;", "--withhold", "canvas,image,media");
        assertEquals("\"undefined\"", withheld.out(), withheld.err());
    }

    @Test
    void consoleAndProgressGoToStderrAndDefaultsCanBeWithheld() throws IOException {
        Run r = run("console.log('hi', {a: [1, 2]});\nprogress(50, 'half');\nreturn typeof sleep;");
        assertEquals(0, r.code(), r.err());
        assertEquals("\"function\"", r.out());
        assertTrue(r.err().contains("[log] hi { a: [ 1, 2 ] }"), r.err());
        assertTrue(r.err().contains("[progress] 50% half"), r.err());
        Run withheld = run("return [typeof console, typeof sleep];", "--withhold", "console,sleep");
        assertEquals("[\"undefined\",\"undefined\"]", withheld.out());
        assertEquals(1, run("return 1", "--withhold", "fetch").code());
    }

    @Test
    void guardedCapabilitiesAreOffUnlessGranted() throws IOException {
        Run r = run("return [typeof fetch, typeof workspace, typeof getSecret];");
        assertEquals("[\"undefined\",\"undefined\",\"undefined\"]", r.out());
        Run secrets =
                run(
                        "return [getSecret('A'), secrets.list()];",
                        "--secret",
                        "A=1",
                        "--secret",
                        "B=2",
                        "--secret-scope",
                        "A");
        assertEquals("[\"1\",[\"A\"]]", secrets.out());
        Run refused = run("return getSecret('B');", "--secret", "B=2", "--secret-scope", "A");
        assertTrue(
                refused.err()
                        .startsWith(
                                "error: exception: SecretError: secret 'B' is outside this run's"
                                        + " secret scope (line 1, column "),
                refused.err());
        assertEquals(1, run("return 1", "--allow-private-network").code());
    }

    @Test
    void audioIsOnByDefaultAndVideoIsAGrant() throws IOException {
        Run r = run("return [typeof audio, typeof video];");
        assertEquals("[\"object\",\"undefined\"]", r.out());
        assertEquals("[\"undefined\"]", run("return [typeof audio];", "--withhold", "audio").out());
        if (VideoConfig.defaults().available()) {
            Run granted = run("return [typeof video.trim];", "--video");
            assertEquals(0, granted.code(), granted.err());
            assertEquals("[\"function\"]", granted.out());
        } else {
            Run refused = run("return 1", "--video");
            assertEquals(1, refused.code());
            assertTrue(
                    refused.err().startsWith("error: usage: --video needs ffmpeg"), refused.err());
        }
    }

    @Test
    void theCapabilitiesExampleFetchesWritesAndReadsASecret() throws Exception {
        com.sun.net.httpserver.HttpServer server =
                com.sun.net.httpserver.HttpServer.create(
                        new java.net.InetSocketAddress(
                                java.net.InetAddress.getLoopbackAddress(), 0),
                        0);
        server.createContext(
                "/hello.json",
                ex -> {
                    byte[] body =
                            Files.readAllBytes(Path.of("..", "examples", "site", "hello.json"));
                    ex.sendResponseHeaders(200, body.length);
                    ex.getResponseBody().write(body);
                    ex.close();
                });
        server.start();
        try {
            Path ws = Files.createDirectory(dir.resolve("ws"));
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            Run refused =
                    runArgs(
                            "run",
                            Path.of("..", "examples", "capabilities.js").toString(),
                            "--fetch",
                            "--workspace",
                            ws.toString(),
                            "--secret",
                            "GREETING=Hello",
                            "--global",
                            "base=\"" + base + "\"");
            assertEquals(2, refused.code());
            assertTrue(refused.err().contains("FetchError: "), refused.err());
            assertTrue(refused.err().contains("127.0.0.1"), refused.err());
            Run r =
                    runArgs(
                            "run",
                            Path.of("..", "examples", "capabilities.js").toString(),
                            "--fetch",
                            "--allow-private-network",
                            "--workspace",
                            ws.toString(),
                            "--secret",
                            "GREETING=Hello",
                            "--global",
                            "base=\"" + base + "\"");
            assertEquals(0, r.code(), r.err());
            assertEquals(
                    "{\"status\":200,\"wrote\":\"Hello, Sandjar (from a local server)!\","
                            + "\"files\":[\"greeting.txt (37 bytes)\"],\"secrets\":[\"GREETING\"]}",
                    r.out());
            assertTrue(
                    r.err().contains("[log] fetched " + base + "/hello.json with status 200"),
                    r.err());
            assertEquals(
                    "Hello, Sandjar (from a local server)!",
                    Files.readString(ws.resolve("greeting.txt")));
        } finally {
            server.stop(0);
        }
    }

    @Test
    void shippedPacksImportAndExtraPackDirectoriesAreSearched() throws IOException {
        Run text =
                run(
                        "import { slugify } from '@sandjar/text';\n"
                                + "return slugify('Hello, Packs World');");
        assertEquals(0, text.code(), text.err());
        assertEquals("\"hello-packs-world\"", text.out());
        Run missing = run("import x from '@acme/nothing';\nreturn x;");
        assertEquals(2, missing.code());
        assertTrue(missing.err().startsWith("error: import: "), missing.err());
        assertTrue(missing.err().contains("@acme/nothing"), missing.err());

        Path packs = Files.createDirectories(dir.resolve("packs/greet"));
        Files.writeString(
                packs.resolve("package.json"),
                "{\"name\": \"@acme/greet\", \"version\": \"1.0.0\", \"sandjar\": {\"apiVersion\":"
                        + " 1, \"sandboxModules\": [{\"name\": \".\", \"kind\": \"js\", \"file\":"
                        + " \"index.js\"}]}}");
        Files.writeString(packs.resolve("index.js"), "export const greet = (n) => `Hi, ${n}`;");
        Run own =
                run(
                        "import { greet } from '@acme/greet';\nreturn greet('you');",
                        "--packs",
                        dir.resolve("packs").toString());
        assertEquals(0, own.code(), own.err());
        assertEquals("\"Hi, you\"", own.out());
        Run list = runArgs("packs", "list", "--packs", dir.resolve("packs").toString());
        assertEquals(0, list.code(), list.err());
        assertTrue(list.out().contains("@sandjar/text (js)"), list.out());
        assertTrue(list.out().contains("@acme/greet (js)"), list.out());
        Run valid = runArgs("packs", "validate");
        assertEquals(0, valid.code(), valid.out());
        Run docs = runArgs("packs", "docs", "@sandjar/text");
        assertEquals(0, docs.code(), docs.err());
        assertTrue(docs.out().contains("slugify"), docs.out());
        assertEquals(2, runArgs("packs", "docs", "@acme/nothing").code());
        assertEquals(1, runArgs("packs", "frobnicate").code());
    }

    @Test
    void packsOfAPacksDirectoryDoNotSeeSecretsUnlessTheDirectoryIsTrusted() throws IOException {
        Path pack = Files.createDirectories(dir.resolve("packs/peek"));
        Files.writeString(
                pack.resolve("package.json"),
                "{\"name\": \"@acme/peek\", \"version\": \"1.0.0\", \"sandjar\": {\"apiVersion\":"
                        + " 1, \"sandboxModules\": [{\"name\": \".\", \"kind\": \"js\", \"file\":"
                        + " \"index.js\"}]}}");
        Files.writeString(
                pack.resolve("index.js"),
                "export const peek = () => typeof getSecret === 'function' ? getSecret('K') :"
                        + " 'none';");
        String code = "import { peek } from '@acme/peek';\nreturn [peek(), getSecret('K')];";
        String packs = dir.resolve("packs").toString();
        Run untrusted = run(code, "--secret", "K=v", "--packs", packs);
        assertEquals(0, untrusted.code(), untrusted.err());
        assertEquals("[\"none\",\"v\"]", untrusted.out());
        Run trusted = run(code, "--secret", "K=v", "--trust-packs", packs);
        assertEquals(0, trusted.code(), trusted.err());
        assertEquals("[\"v\",\"v\"]", trusted.out());
        Run list = runArgs("packs", "list", "--trust-packs", packs);
        assertEquals(0, list.code(), list.err());
        assertTrue(list.out().contains("@acme/peek (js)"), list.out());
        assertEquals(1, runArgs("packs", "list", "--trust-packs").code());
    }
}
