package dev.sandjar.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code sandjar call FILE.js FUNCTION [--args JSON]}: a lambda from the command line. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EngineLeakCheck.class)
class CallCommandTest {
    @TempDir Path dir;

    private record Run(int code, String out, String err) {}

    private Run call(String source, String... rest) throws IOException {
        Path file = dir.resolve("lambda.js");
        Files.writeString(file, source);
        List<String> args = new ArrayList<>(List.of("call", file.toString()));
        args.addAll(List.of(rest));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                SandjarCli.run(
                        args.toArray(String[]::new),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(
                code,
                out.toString(StandardCharsets.UTF_8).trim(),
                err.toString(StandardCharsets.UTF_8).trim());
    }

    private static final String MODULE =
            "export async function process(rows, factor) {\n"
                    + "  console.log('rows', rows.length);\n"
                    + "  return rows.map((r) => r * factor);\n"
                    + "}\n"
                    + "export function hello() { return 'hi' }";

    @Test
    void callsTheExportWithTheArgumentsAndPrintsTheResultAsJson() throws IOException {
        Run r = call(MODULE, "process", "--args", "[[1, 2, 3], 10]");
        assertEquals(0, r.code(), r.err());
        assertEquals("[10,20,30]", r.out());
        assertTrue(r.err().contains("rows 3"), r.err());
        Run none = call(MODULE, "hello", "--timeout-ms", "5000");
        assertEquals(0, none.code(), none.err());
        assertEquals("\"hi\"", none.out());
    }

    @Test
    void theReadmeExampleRunsAsWritten() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                SandjarCli.run(
                        new String[] {
                            "call",
                            Path.of("..", "examples", "lambda.js").toString(),
                            "total",
                            "--args",
                            "[[{\"price\": 2}, {\"price\": 5}], 3]"
                        },
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        assertEquals("21", out.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void aMissingExportOrBadArgumentsFailClearly() throws IOException {
        Run missing = call(MODULE, "nope");
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("no exported function 'nope'"), missing.err());
        Run notArray = call(MODULE, "process", "--args", "{\"a\": 1}");
        assertEquals(1, notArray.code());
        assertTrue(notArray.err().contains("--args must be a JSON array"), notArray.err());
        Run badJson = call(MODULE, "process", "--args", "[1,");
        assertEquals(1, badJson.code());
        assertTrue(badJson.err().contains("--args"), badJson.err());
        Run noFunction = call(MODULE);
        assertEquals(1, noFunction.code());
        assertTrue(noFunction.err().contains("call needs FILE.js FUNCTION"), noFunction.err());
    }
}
