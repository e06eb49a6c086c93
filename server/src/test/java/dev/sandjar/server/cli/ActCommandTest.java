package dev.sandjar.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class ActCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static HttpServer server;
    private static final List<String> bodies = new CopyOnWriteArrayList<>();

    @TempDir Path dir;

    @BeforeAll
    static void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(
                "/add",
                ex -> {
                    String body =
                            new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                    bodies.add(body);
                    JsonNode args = JSON.readTree(body);
                    byte[] out =
                            ("{\"sum\":" + (args.get("a").asLong() + args.get("b").asLong()) + "}")
                                    .getBytes(StandardCharsets.UTF_8);
                    ex.getResponseHeaders().add("Content-Type", "application/json");
                    ex.sendResponseHeaders(200, out.length);
                    ex.getResponseBody().write(out);
                    ex.close();
                });
        server.createContext(
                "/broken",
                ex -> {
                    byte[] out = "{\"error\":\"out of paper\"}".getBytes(StandardCharsets.UTF_8);
                    ex.sendResponseHeaders(200, out.length);
                    ex.getResponseBody().write(out);
                    ex.close();
                });
        server.createContext(
                "/down",
                ex -> {
                    ex.sendResponseHeaders(503, -1);
                    ex.close();
                });
        server.start();
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    private Path tools() throws IOException {
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        String add =
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
                        + "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}";
        return write(
                "TOOLS.json",
                "{\"tools\":["
                        + "{\"namespace\":\"math\",\"name\":\"add\",\"description\":\"Adds\","
                        + "\"parameters\":"
                        + add
                        + ",\"http\":\""
                        + base
                        + "/add\"},"
                        + "{\"namespace\":\"math\",\"name\":\"broken\",\"http\":\""
                        + base
                        + "/broken\"},"
                        + "{\"namespace\":\"math\",\"name\":\"down\",\"http\":\""
                        + base
                        + "/down\"}]}");
    }

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    private record Outcome(int code, String out, String err) {
        JsonNode json() throws IOException {
            return JSON.readTree(out);
        }
    }

    private static Outcome act(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "act";
        System.arraycopy(args, 0, all, 1, args.length);
        return cli(all);
    }

    private static Outcome cli(String... all) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                SandjarCli.run(
                        all,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Outcome(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anActionCallsHttpToolsAndFinishes() throws IOException {
        Path action =
                write(
                        "a.js",
                        "import { add, broken, down } from \"@sandjar/tools/math\";\n"
                                + "const { sum } = await add({a: 2, b: 3});\n"
                                + "const errs = [];\n"
                                + "try { await broken({}); } catch (e) { errs.push(e.code); }\n"
                                + "try { await down({}); } catch (e) { errs.push(e.code); }\n"
                                + "console.log('sum', sum);\n"
                                + "finish({sum, errs});");
        Path schema =
                write(
                        "s.json",
                        "{\"type\":\"object\",\"required\":[\"sum\"],"
                                + "\"properties\":{\"sum\":{\"type\":\"integer\"}}}");
        Outcome o =
                act(
                        action.toString(),
                        "--tools",
                        tools().toString(),
                        "--finish-schema",
                        schema.toString());
        assertEquals(0, o.code(), o.err() + o.out());
        assertEquals(1, o.out().strip().lines().count(), o.out());
        JsonNode j = o.json();
        assertEquals(
                List.of("finished", "result", "toolCalls", "logs", "error"),
                iterate(j.fieldNames()));
        assertTrue(j.get("finished").asBoolean());
        assertEquals(5, j.get("result").get("sum").asInt());
        assertEquals("[\"TOOL_ERROR\",\"HTTP_STATUS\"]", j.get("result").get("errs").toString());
        assertEquals(3, j.get("toolCalls").size());
        JsonNode first = j.get("toolCalls").get(0);
        assertEquals("call_1", first.get("id").asText());
        assertEquals("math/add", first.get("name").asText());
        assertTrue(first.get("ok").asBoolean());
        assertEquals("{\"a\":2,\"b\":3}", first.get("arguments").toString());
        assertEquals("sum 5", j.get("logs").get(0).get("message").asText());
        assertTrue(j.get("error").isNull());
        assertTrue(bodies.contains("{\"a\":2,\"b\":3}"), bodies.toString());
    }

    @Test
    void anActionCallsAnMcpServersToolsFromToolsJson() throws IOException {
        String everything = System.getProperty("sandjar.test.mcp.everything");
        Path tools =
                write(
                        "TOOLS.json",
                        "{\"mcp\": [{\"namespace\": \"everything\", \"command\": [\"node\", "
                                + JSON.writeValueAsString(everything)
                                + "]}]}");
        Path action =
                write(
                        "a.js",
                        "import { get_sum } from \"@sandjar/tools/everything\";\n"
                                + "finish(await get_sum({a: 20, b: 22}));");
        Outcome o = act(action.toString(), "--tools", tools.toString());
        assertEquals(0, o.code(), o.err() + o.out());
        JsonNode j = o.json();
        assertEquals("The sum of 20 and 22 is 42.", j.get("result").asText());
        assertEquals("everything/get_sum", j.get("toolCalls").get(0).get("name").asText());
    }

    @Test
    void anMcpServerThatDoesNotStartIsBadUsage() throws IOException {
        Path tools =
                write(
                        "TOOLS.json",
                        "{\"mcp\": [{\"namespace\": \"gone\", \"command\":"
                                + " [\"/nonexistent/server\"], \"timeoutMs\": 5000}]}");
        Path action = write("a.js", "finish(1);");
        Outcome o = act(action.toString(), "--tools", tools.toString());
        assertEquals(1, o.code(), o.out());
        assertTrue(o.err().contains("mcp server gone"), o.err());
        assertEquals("", o.out());
    }

    @Test
    void schemaRefusalNeverReachesTheServer() throws IOException {
        int before = bodies.size();
        Path action =
                write(
                        "a.js",
                        "import { add } from \"@sandjar/tools/math\";\n"
                            + "try { await add({a: 'x', b: 1}); } catch (e) { return e.code; }");
        Outcome o = act(action.toString(), "--tools", tools().toString());
        assertEquals(0, o.code(), o.err());
        JsonNode j = o.json();
        assertEquals(false, j.get("finished").asBoolean());
        assertEquals(
                "INVALID_ARGUMENTS", j.get("toolCalls").get(0).get("error").get("code").asText());
        assertEquals(before, bodies.size());
    }

    /**
     * What JSON cannot hold (undefined first) prints as {@code run} prints a result: the
     * transport's markers ({@code {"$sj":"undef"}}), in the result and in a tool call's arguments
     * alike.
     */
    @Test
    void valuesJsonCannotHoldPrintAsRunPrintsThem() throws IOException {
        String value =
                "{u: undefined, holes: [1, , 3], n: NaN, big: 10n, at: new Date(0),"
                        + " bytes: new Uint8Array([1, 2]), set: new Set(['a'])}";
        Path action =
                write(
                        "a.js",
                        "import { broken } from \"@sandjar/tools/math\";\n"
                                + "try { await broken({x: undefined}); } catch (e) {}\n"
                                + "finish("
                                + value
                                + ");");
        Outcome o = act(action.toString(), "--tools", tools().toString());
        assertEquals(0, o.code(), o.err() + o.out());
        JsonNode result = o.json().get("result");
        Outcome run = cli("run", write("r.js", "return " + value + ";").toString());
        assertEquals(0, run.code(), run.err());
        assertEquals(JSON.readTree(run.out()), result);
        assertEquals("{\"$sj\":\"undef\"}", result.get("u").toString());
        assertEquals(
                "{\"x\":{\"$sj\":\"undef\"}}",
                o.json().get("toolCalls").get(0).get("arguments").toString());
        assertFalse(o.out().contains("INSTANCE"), o.out());
    }

    @Test
    void aFailedActionExitsTwoWithTheError() throws IOException {
        Path action = write("a.js", "throw new Error('nope');");
        Outcome o = act(action.toString(), "--tools", tools().toString());
        assertEquals(2, o.code(), o.err());
        JsonNode j = o.json();
        assertEquals("EXCEPTION", j.get("error").get("kind").asText());
        assertEquals("nope", j.get("error").get("message").asText());
    }

    @Test
    void anOffAllowlistImportIsRefusedAndAnAllowedOneRuns() throws IOException {
        Path action = write("a.js", "import diff from \"@sandjar/diff\";\nreturn typeof diff;");
        Outcome refused = act(action.toString(), "--tools", tools().toString());
        assertEquals(2, refused.code(), refused.err());
        JsonNode e = refused.json().get("error");
        assertEquals("IMPORT", e.get("kind").asText());
        assertTrue(e.get("message").asText().contains("not allowed"), e.toString());

        Outcome allowed =
                act(
                        action.toString(),
                        "--tools",
                        tools().toString(),
                        "--allow-pack",
                        "@sandjar/diff");
        assertEquals(0, allowed.code(), allowed.err() + allowed.out());
        assertTrue(allowed.json().get("error").isNull());
    }

    @Test
    void usageErrorsExitOne() throws IOException {
        Path action = write("a.js", "return 1;");
        assertEquals(1, act(action.toString()).code());
        assertEquals(
                1,
                act(action.toString(), "--tools", tools().toString(), "--max-tool-calls", "0")
                        .code());
        Path remote =
                write(
                        "remote.json",
                        "{\"tools\":[{\"namespace\":\"web\",\"name\":\"x\",\"http\":\"http://example.com/x\"}]}");
        Outcome o = act(action.toString(), "--tools", remote.toString());
        assertEquals(1, o.code());
        assertTrue(o.err().contains("allowRemote"), o.err());
    }

    private static List<String> iterate(java.util.Iterator<String> it) {
        List<String> out = new java.util.ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }
}
