package dev.sandjar.quickjs.cli;

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
    void moduleDefaultExportWithTopLevelAwaitIsPrintedAsJson() throws IOException {
        Run r = run("const v = await Promise.resolve([1, 'two']);\nexport default { v };");
        assertEquals(new Run(0, "{\"v\":[1,\"two\"]}", ""), r);
    }

    @Test
    void scriptCompletionValueIsTheResult() throws IOException {
        assertEquals(new Run(0, "\"ab\"", ""), run("'a' + 'b'"));
    }

    @Test
    void bundledExampleRuns() {
        Run r = runArgs("run", Path.of("..", "examples", "hello.js").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\"greeting\":\"Hello, Sandjar!\""), r.out());
    }

    @Test
    void failuresPrintOneLineWithKind() throws IOException {
        assertEquals(
                new Run(2, "", "error: exception: TypeError: nope"),
                run("throw new TypeError('nope')"));
        assertEquals(
                new Run(2, "", "error: timeout: InternalError: interrupted"),
                run("while (true) {}", "--timeout-ms", "200"));
        Run syntax = run("let x = ;");
        assertEquals(2, syntax.code());
        assertTrue(syntax.err().startsWith("error: syntax: SyntaxError: "), syntax.err());
        assertEquals(
                new Run(2, "", "error: stack: RangeError: Maximum call stack size exceeded"),
                run("function f() { return f() + 1; } f()"));
        assertEquals(
                new Run(2, "", "error: memory: InternalError: out of memory"),
                run("const a = []; for (;;) a.push('x'.repeat(100000));", "--memory-mb", "16"));
    }

    @Test
    void badUsageExitsOne() throws IOException {
        assertEquals(1, runArgs().code());
        assertEquals(1, runArgs("run").code());
        Run r = run("1", "--memory-mb", "9999");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("--memory-mb (9999) must be between 1 and 512"), r.err());
        assertEquals(1, runArgs("run", dir.resolve("missing.js").toString()).code());
    }
}
