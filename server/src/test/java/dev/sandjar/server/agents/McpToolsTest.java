package dev.sandjar.server.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Sandbox;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MCP tools in, end to end: the reference MCP server from npm ({@code
 * @modelcontextprotocol/server-everything}, pinned in src/test/mcp) over stdio and over streamable
 * HTTP, its tools imported and called by actions through the real engine.
 */
@Timeout(120)
class McpToolsTest {
    static final String EVERYTHING = System.getProperty("sandjar.test.mcp.everything");

    private static Sandbox sandbox;
    private static ToolsFile everything;

    @BeforeAll
    static void start() {
        assertTrue(
                EVERYTHING != null && Files.isRegularFile(Path.of(EVERYTHING)),
                "the build installs server-everything at " + EVERYTHING);
        sandbox = Sandbox.create();
        everything =
                ToolsFile.parse(
                        "{\"mcp\": [{\"namespace\": \"everything\", \"command\": [\"node\", "
                                + quote(EVERYTHING)
                                + "], \"env\": {\"SANDJAR_MARK\": \"m-42\"}}]}");
    }

    @AfterAll
    static void stop() {
        if (everything != null) {
            everything.close();
        }
        sandbox.close();
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Test
    void theServersToolsAreListedWithTheirSchemasUnderItsNamespace() {
        ToolRegistry r = everything.registry();
        assertEquals(List.of("everything"), List.copyOf(r.namespaces()));
        Tool sum = r.find("everything", "get_sum").orElseThrow();
        assertEquals("Returns the sum of two numbers", sum.description());
        assertTrue(sum.parametersSchema().contains("\"a\""), sum.parametersSchema());
        assertEquals(
                "get_sum(args: {a: number, b: number}): Promise<any>", ToolRegistry.signature(sum));
        assertTrue(r.find("everything", "echo").isPresent());
        assertEquals("import { get_sum } from \"@sandjar/tools/everything\";", sum.importLine());
    }

    @Test
    void anActionCallsTheServersToolsOverStdio() {
        AgentExecutor executor =
                AgentExecutor.builder(sandbox, everything.registry())
                        .addBridges(Capabilities.defaults())
                        .build();
        ActionResult r =
                executor.execute(
                        String.join(
                                "\n",
                                "import { echo, get_sum, get_structured_content, get_env }",
                                "  from \"@sandjar/tools/everything\";",
                                "const e = await echo({ message: \"hi\" });",
                                "const s = await get_sum({ a: 2, b: 3 });",
                                "const w = await get_structured_content({ location: \"Chicago\""
                                        + " });",
                                "let bad;",
                                "try { await get_sum({ a: \"two\" }); }",
                                "catch (err) { bad = err.name + \" \" + err.code; }",
                                "const env = JSON.parse(await get_env()).SANDJAR_MARK;",
                                "finish({ e, s, humidity: typeof w.humidity, bad, env });"));
        assertTrue(r.ran(), String.valueOf(r.error()));
        assertTrue(r.finished());
        assertEquals(
                Map.of(
                        "e", "Echo: hi",
                        "s", "The sum of 2 and 3 is 5.",
                        "humidity", "number",
                        "bad", "ToolError INVALID_ARGUMENTS",
                        "env", "m-42"),
                r.result());
        assertEquals(
                List.of(
                        "everything/echo",
                        "everything/get_sum",
                        "everything/get_structured_content",
                        "everything/get_sum",
                        "everything/get_env"),
                r.toolCalls().stream().map(ToolCallEvent::name).toList());
        assertEquals(
                List.of(true, true, true, false, true),
                r.toolCalls().stream().map(ToolCallEvent::ok).toList());
    }

    @Test
    void contentOfSeveralBlocksReachesTheGuestAsTheBlocks() {
        AgentExecutor executor = AgentExecutor.builder(sandbox, everything.registry()).build();
        ActionResult r =
                executor.execute(
                        "import { get_tiny_image } from \"@sandjar/tools/everything\";\n"
                                + "const blocks = await get_tiny_image();\n"
                                + "finish(blocks.map(b => b.type + (b.mimeType ? ':' +"
                                + " b.mimeType : '')));");
        assertTrue(r.finished(), String.valueOf(r.error()));
        assertEquals(List.of("text", "image:image/png", "text"), r.result());
    }

    @Test
    void closingTheFileStopsTheServersProcess() throws InterruptedException {
        long before = stdioServers();
        ToolsFile file =
                ToolsFile.parse(
                        "{\"mcp\": [{\"namespace\": \"short\", \"command\": [\"node\", "
                                + quote(EVERYTHING)
                                + "]}]}");
        assertEquals(before + 1, stdioServers());
        file.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (stdioServers() > before && System.nanoTime() < deadline) {
            Thread.sleep(50); // a process ends a moment after its session closes
        }
        assertEquals(before, stdioServers());
    }

    /** This JVM's child processes running server-everything on stdio ({@code node INDEX}). */
    private static long stdioServers() {
        return ProcessHandle.current()
                .descendants()
                .filter(ProcessHandle::isAlive)
                .filter(
                        p ->
                                p.info()
                                        .arguments()
                                        .map(a -> List.of(a).equals(List.of(EVERYTHING)))
                                        .orElse(false))
                .count();
    }

    @Test
    void aStreamableHttpServerWorksTheSameWay() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ProcessBuilder pb = new ProcessBuilder("node", EVERYTHING, "streamableHttp");
        pb.environment().put("PORT", Integer.toString(port));
        pb.redirectErrorStream(true);
        Process server = pb.start();
        try {
            CompletableFuture<Void> listening = new CompletableFuture<>();
            Thread reader =
                    new Thread(
                            () -> {
                                try (BufferedReader in =
                                        new BufferedReader(
                                                new InputStreamReader(
                                                        server.getInputStream(),
                                                        StandardCharsets.UTF_8))) {
                                    for (String line; (line = in.readLine()) != null; ) {
                                        if (line.contains("listening on port")) {
                                            listening.complete(null);
                                        }
                                    }
                                } catch (IOException e) {
                                    listening.completeExceptionally(e);
                                }
                                listening.completeExceptionally(
                                        new IllegalStateException("the server ended"));
                            });
            reader.setDaemon(true);
            reader.start();
            listening.get(30, TimeUnit.SECONDS);
            try (ToolsFile file =
                    ToolsFile.parse(
                            "{\"mcp\": [{\"namespace\": \"web\", \"url\":"
                                    + " \"http://127.0.0.1:"
                                    + port
                                    + "/mcp\"}]}")) {
                ActionResult r =
                        AgentExecutor.builder(sandbox, file.registry())
                                .build()
                                .execute(
                                        "import { echo, get_sum } from \"@sandjar/tools/web\";\n"
                                                + "finish([await echo({ message: 'over http' }),"
                                                + " await get_sum({ a: 40, b: 2 })]);");
                assertTrue(r.finished(), String.valueOf(r.error()));
                assertEquals(List.of("Echo: over http", "The sum of 40 and 2 is 42."), r.result());
            }
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void exportNamesAreJavaScriptNames() {
        assertEquals("get_sum", McpTools.exportName("get-sum"));
        assertEquals("a_b_c", McpTools.exportName("a.b/c"));
        assertEquals("tool_2fa", McpTools.exportName("2fa"));
        assertEquals("tool__x", McpTools.exportName("_x"));
        assertEquals("delete_", McpTools.exportName("delete"));
        assertEquals("echo", McpTools.exportName("echo"));
    }

    @Test
    void aServerThatDoesNotStartIsNamed() {
        InvalidRequestException e =
                assertThrows(
                        InvalidRequestException.class,
                        () ->
                                ToolsFile.parse(
                                        "{\"mcp\": [{\"namespace\": \"gone\", \"command\":"
                                                + " [\"/nonexistent/mcp-server\"],"
                                                + " \"timeoutMs\": 5000}]}"));
        assertTrue(e.getMessage().contains("mcp server gone"), e.getMessage());
        assertTrue(e.getMessage().contains("/nonexistent/mcp-server"), e.getMessage());
    }

    @Test
    void badMcpEntriesAreRefusedBeforeAnythingStarts() {
        Map<String, String> cases =
                Map.of(
                        "{\"mcp\": [{\"namespace\": \"a\"}]}",
                        "exactly one of \"command\" (stdio) and \"url\" (HTTP)",
                        "{\"mcp\": [{\"namespace\": \"a\", \"command\": [\"x\"], \"url\":"
                                + " \"http://127.0.0.1:1/mcp\"}]}",
                        "exactly one of",
                        "{\"mcp\": [{\"namespace\": \"a\", \"command\": []}]}",
                        "\"command\" must be a non-empty array of strings",
                        "{\"mcp\": [{\"namespace\": \"a\", \"command\": [\"x\", 1]}]}",
                        "\"command\" must be a non-empty array of strings",
                        "{\"mcp\": [{\"namespace\": \"a\", \"url\": \"http://example.com/mcp\"}]}",
                        "is not a loopback address; set \"allowRemote\": true",
                        "{\"mcp\": [{\"namespace\": \"a\", \"command\": [\"x\"], \"timeoutMs\":"
                                + " 600001}]}",
                        "\"timeoutMs\" must be an integer from 1 to 600000",
                        "{\"mcp\": [{\"namespace\": \"a\", \"command\": [\"x\"], \"timeoutMs\":"
                                + " 0}]}",
                        "\"timeoutMs\" must be an integer from 1 to 600000",
                        "{\"mcp\": [{\"namespace\": \"a\", \"command\": [\"x\"]},"
                                + " {\"namespace\": \"a\", \"command\": [\"y\"]}]}",
                        "namespace a is used by another mcp server",
                        "{\"mcp\": [{\"namespace\": \"Bad_NS\", \"command\": [\"x\"]}]}",
                        "tool namespace 'Bad_NS' must match",
                        "{\"mcp\": {}}",
                        "expected {\"tools\": [...], \"mcp\": [...]}");
        cases.forEach(
                (json, expected) -> {
                    InvalidRequestException e =
                            assertThrows(
                                    InvalidRequestException.class, () -> ToolsFile.parse(json));
                    assertTrue(e.getMessage().contains(expected), json + " -> " + e.getMessage());
                });
    }

    @Test
    void anHttpToolMayNotShareAnMcpServersNamespace() {
        InvalidRequestException e =
                assertThrows(
                        InvalidRequestException.class,
                        () ->
                                ToolsFile.parse(
                                        "{\"tools\": [{\"namespace\": \"fs\", \"name\": \"x\","
                                                + " \"http\": \"http://127.0.0.1:1/x\"}],"
                                                + " \"mcp\": [{\"namespace\": \"fs\", \"command\":"
                                                + " [\"x\"]}]}"));
        assertTrue(
                e.getMessage().contains("namespace fs belongs to an mcp server"), e.getMessage());
    }
}
