package dev.sandjar.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The command line's output contract, through the real sandbox. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SandjarCliTest {
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
        assertTrue(bad.err().contains("--global inputs: not valid JSON"), bad.err());
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
                "error: import: ReferenceError: cannot import 'left-pad': this run declares no"
                        + " modules",
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
}
