package dev.sandjar.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code sandjar validate}: its text and JSON output and exit codes, in process. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EngineLeakCheck.class)
class ValidateCommandTest {
    @TempDir Path dir;

    private record Run(int code, String out, String err) {}

    private Run validate(String source, String... flags) throws IOException {
        Path file = dir.resolve("node.js");
        Files.writeString(file, source);
        String[] args = new String[flags.length + 2];
        args[0] = "validate";
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
    void aCleanBodyPrintsNothingAndExitsZero() throws IOException {
        Run r =
                validate(
                        "for (const row of inputs.rows) await emit('row', row);\n"
                                + "await output('count', inputs.rows.length);",
                        "--inputs",
                        "rows",
                        "--outputs",
                        "row,count");
        assertEquals(new Run(0, "", ""), r);
    }

    @Test
    void textIsOneDiagnosticPerLineAndAnErrorExitsTwo() throws IOException {
        Run r =
                validate(
                        "await emit('rows', rows);\nconsole.log(inputs.limt);",
                        "--inputs",
                        "rows,limit",
                        "--outputs",
                        "row");
        assertEquals(2, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(4, lines.size(), r.out());
        assertTrue(lines.get(0).startsWith("1:7 undeclared-output emit(\"rows\", ...)"), r.out());
        assertTrue(lines.get(1).startsWith("1:20 input-as-global rows is not defined"), r.out());
        assertTrue(lines.get(2).startsWith("2:13 undeclared-input inputs.limt"), r.out());
        assertTrue(lines.get(3).startsWith("0:0 unwritten-output "), r.out());
        assertEquals("node.js: 3 errors, 1 warning", r.err());
    }

    @Test
    void warningsAloneExitZero() throws IOException {
        Run r = validate("return { total: 1 };", "--outputs", "total");
        assertEquals(0, r.code());
        assertTrue(r.out().startsWith("0:0 legacy-body "), r.out());
    }

    @Test
    void jsonIsAnArrayOfDiagnostics() throws IOException {
        Run r = validate("const x = ;", "--json");
        assertEquals(2, r.code());
        JsonNode array = new ObjectMapper().readTree(r.out());
        assertEquals(1, array.size(), r.out());
        JsonNode d = array.get(0);
        assertEquals("syntax-error", d.get("code").asText());
        assertEquals("error", d.get("severity").asText());
        assertTrue(d.get("message").asText().startsWith("invalid JavaScript: "), r.out());
        assertEquals(1, d.get("line").asInt());
        assertEquals(11, d.get("column").asInt());
        assertEquals("", r.err());

        Run clean = validate("await output('x', 1);", "--json", "--outputs", "x");
        assertEquals(new Run(0, "[]", ""), clean);
    }

    @Test
    void importsResolveAgainstTheShippedPacksAndThePackDirectoriesGiven() throws IOException {
        Run shipped =
                validate(
                        "import { slugify } from '@sandjar/text';\n"
                                + "await output('s', slugify('A'));");
        assertEquals(new Run(0, "", ""), shipped);

        String code = "import { greet } from '@acme/greet';\nawait output('s', greet('you'));";
        Run missing = validate(code);
        assertEquals(2, missing.code());
        assertTrue(
                missing.out().startsWith("1:1 unresolved-import import \"@acme/greet\": "),
                missing.out());
        assertTrue(missing.out().contains("@acme/greet"), missing.out());

        Path pack = Files.createDirectories(dir.resolve("packs/greet"));
        Files.writeString(
                pack.resolve("package.json"),
                "{\"name\": \"@acme/greet\", \"version\": \"1.0.0\", \"sandjar\": {\"apiVersion\":"
                        + " 1, \"sandboxModules\": [{\"name\": \".\", \"kind\": \"js\", \"file\":"
                        + " \"index.js\"}]}}");
        Files.writeString(pack.resolve("index.js"), "export const greet = (n) => `Hi, ${n}`;");
        assertEquals(
                new Run(0, "", ""), validate(code, "--packs", dir.resolve("packs").toString()));
    }

    @Test
    void grantedCapabilitiesAreGlobals() throws IOException {
        String code =
                "const page = await fetch('https://example.com');\n"
                        + "await workspace.write('p.txt', await page.text());\n"
                        + "await output('x', 1);";
        Run denied = validate(code);
        assertEquals(2, denied.code());
        assertTrue(
                denied.out().startsWith("1:20 undefined-name fetch is not defined"), denied.out());
        assertTrue(denied.out().contains("\n2:7 undefined-name workspace "), denied.out());
        assertEquals(new Run(0, "", ""), validate(code, "--grant", "fetch,workspace"));
    }

    @Test
    void badUsageExitsOne() throws IOException {
        assertEquals(1, runArgs("validate").code());
        assertEquals(1, validate("1", "--frobnicate").code());
        assertEquals(1, validate("1", "--grant", "network").code());
        assertEquals(1, validate("1", "--inputs").code());
        Run unreadable = runArgs("validate", dir.resolve("absent.js").toString());
        assertEquals(1, unreadable.code());
        assertTrue(unreadable.err().startsWith("error: usage: cannot read"), unreadable.err());
        Run usage = runArgs("validate", "--json");
        assertTrue(usage.err().contains("sandjar validate FILE.js"), usage.err());
    }
}
