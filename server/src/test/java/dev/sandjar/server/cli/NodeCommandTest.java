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

/** {@code sandjar node}: the Code-node contract's event lines, through the real sandbox. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EngineLeakCheck.class)
class NodeCommandTest {
    /** The repository's examples, where the reference's snippets are kept unchanged. */
    private static final Path EXAMPLES = Path.of("..", "examples", "code-node");

    @TempDir Path dir;

    private record Run(int code, List<String> out, String err) {}

    private static Run node(Path file, String... flags) {
        List<String> args = new ArrayList<>(List.of("node", file.toString()));
        args.addAll(List.of(flags));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                SandjarCli.run(
                        args.toArray(String[]::new),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8).trim();
        return new Run(
                code,
                text.isEmpty() ? List.of() : List.of(text.split("\n")),
                err.toString(StandardCharsets.UTF_8).trim());
    }

    private Run node(String source, String... flags) throws IOException {
        Path file = dir.resolve("body.js");
        Files.writeString(file, source);
        return node(file, flags);
    }

    @Test
    void theReferenceKeptRowsSnippetRunsUnchanged() {
        Run r =
                node(
                        EXAMPLES.resolve("kept-rows.js"),
                        "--input",
                        "rows=[{\"id\":1,\"score\":5},{\"id\":2,\"score\":15},{\"id\":3,\"score\":25}]",
                        "--input",
                        "threshold=10",
                        "--outputs",
                        "row,count");
        assertEquals(
                new Run(
                        0,
                        List.of(
                                "{\"progress\": 50, \"message\": \"kept 2\"}",
                                "{\"emit\": \"row\", \"value\": {\"id\":2,\"score\":15}}",
                                "{\"emit\": \"row\", \"value\": {\"id\":3,\"score\":25}}",
                                "{\"outputs\": {\"count\":2}, \"state\": {}}"),
                        ""),
                r);
    }

    @Test
    void theReferenceRunningTotalSnippetRunsUnchanged() {
        Run r =
                node(
                        EXAMPLES.resolve("running-total.js"),
                        "--stream",
                        "numbers=[1,2,3]",
                        "--outputs",
                        "running,total");
        assertEquals(
                new Run(
                        0,
                        List.of(
                                "{\"emit\": \"running\", \"value\": 1}",
                                "{\"emit\": \"running\", \"value\": 3}",
                                "{\"emit\": \"running\", \"value\": 6}",
                                "{\"outputs\": {\"total\":6}, \"state\": {}}"),
                        ""),
                r);
    }

    @Test
    void logsStateAndAnyInterleaveOnTheirLines() throws IOException {
        Run r =
                node(
                        "console.log('start');\n"
                                + "console.warn('careful');\n"
                                + "for await (const [h, v] of stream.any()) await emit('seen', h +"
                                + " v);\n"
                                + "state.runs = (state.runs ?? 0) + 1;\n"
                                + "await output('done', true);",
                        "--stream",
                        "a=[1,2]",
                        "--stream",
                        "b=[3]",
                        "--state",
                        "{\"runs\":4}",
                        "--outputs",
                        "seen,done");
        assertEquals(
                new Run(
                        0,
                        List.of(
                                "{\"log\": \"start\"}",
                                "{\"log\": \"careful\", \"level\": \"warn\"}",
                                "{\"emit\": \"seen\", \"value\": \"a1\"}",
                                "{\"emit\": \"seen\", \"value\": \"b3\"}",
                                "{\"emit\": \"seen\", \"value\": \"a2\"}",
                                "{\"outputs\": {\"done\":true}, \"state\": {\"runs\":5}}"),
                        ""),
                r);
    }

    @Test
    void aPerItemBodyPrintsOutputsAfterEachItem() throws IOException {
        Run r =
                node(
                        "await output('double', inputs.n * 2);",
                        "--stream",
                        "n=[1,2]",
                        "--outputs",
                        "double");
        assertEquals(
                List.of(
                        "{\"outputs\": {\"double\":2}, \"state\": {}}",
                        "{\"outputs\": {\"double\":4}, \"state\": {}}"),
                r.out());
        assertEquals(0, r.code());
    }

    @Test
    void aFailureKeepsItsEmitsAndPrintsOneErrorLine() throws IOException {
        Run r = node("await emit('row', 1);\nawait emit('nope', 2);", "--outputs", "row");
        assertEquals(2, r.code());
        assertEquals(List.of("{\"emit\": \"row\", \"value\": 1}"), r.out());
        assertEquals(
                "error: exception: Error: emit: 'nope' is not a declared output; the outputs are"
                        + " [row] (line 2, column 7)",
                r.err());
    }

    @Test
    void aLegacyBodyWarnsOnStderr() throws IOException {
        Run r = node("return { count: 3 };", "--outputs", "count");
        assertEquals(0, r.code());
        assertEquals(List.of("{\"outputs\": {\"count\":3}, \"state\": {}}"), r.out());
        assertTrue(r.err().startsWith("warning: deprecated: the body calls neither"), r.err());
    }

    @Test
    void usageErrorsNameTheFlag() throws IOException {
        Run noOutputs = node("await output('x', 1);");
        assertEquals(1, noOutputs.code());
        assertTrue(noOutputs.err().startsWith("error: usage: node needs --outputs A,B"));
        Run global = node("return 1", "--outputs", "x", "--global", "a=1");
        assertTrue(global.err().contains("give them with --input NAME=JSON"), global.err());
        Run notArray = node("return 1", "--outputs", "x", "--stream", "a={}");
        assertTrue(
                notArray.err().startsWith("error: usage: --stream a: needs a JSON array"),
                notArray.err());
        Run badJson = node("return 1", "--outputs", "x", "--input", "a=[1,");
        assertTrue(
                badJson.err().startsWith("error: usage: --input a is not valid JSON"),
                badJson.err());
    }
}
