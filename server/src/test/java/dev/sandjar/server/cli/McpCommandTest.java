package dev.sandjar.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sandjar mcp} as a real process, driven by the MCP Java SDK's client over stdio: the {@code
 * execute_code} tool runs actions with the TOOLS.json tools (here the tools of another MCP server,
 * server-everything) and the allowed packs.
 */
@Timeout(180)
class McpCommandTest {
    private static final McpJsonMapper JSON = McpJsonDefaults.getMapper();

    @TempDir static Path dir;

    private static McpSyncClient client;

    @BeforeAll
    static void start() throws IOException {
        String everything = System.getProperty("sandjar.test.mcp.everything");
        Path tools = dir.resolve("TOOLS.json");
        Files.writeString(
                tools,
                "{\"mcp\": [{\"namespace\": \"everything\", \"command\": [\"node\", "
                        + JSON.writeValueAsString(everything)
                        + "]}]}");
        client = connect("--tools", tools.toString(), "--allow-pack", "@sandjar/text");
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.closeGracefully();
        }
    }

    static McpSyncClient connect(String... options) {
        String java =
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(System.getProperty("java.home") + "/bin/java");
        List<String> args =
                new java.util.ArrayList<>(
                        List.of(
                                "-Xss4m",
                                "-XX:+UseSerialGC",
                                "-XX:TieredStopAtLevel=1",
                                "-cp",
                                System.getProperty("java.class.path"),
                                SandjarCli.class.getName(),
                                "mcp"));
        args.addAll(List.of(options));
        McpSyncClient c =
                McpClient.sync(
                                new StdioClientTransport(
                                        ServerParameters.builder(java).args(args).build(), JSON))
                        .requestTimeout(Duration.ofSeconds(90))
                        .initializationTimeout(Duration.ofSeconds(90))
                        .build();
        c.initialize();
        return c;
    }

    private static McpSchema.CallToolResult call(Map<String, Object> args) {
        return client.callTool(
                McpSchema.CallToolRequest.builder("execute_code").arguments(args).build());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> outcome(McpSchema.CallToolResult r) {
        return (Map<String, Object>) r.structuredContent();
    }

    @Test
    void itServesExecuteCodeDescribedByTheManifest() {
        List<McpSchema.Tool> tools = client.listTools().tools();
        assertEquals(List.of("execute_code"), tools.stream().map(McpSchema.Tool::name).toList());
        McpSchema.Tool t = tools.get(0);
        assertEquals(List.of("code"), t.inputSchema().get("required"));
        assertTrue(
                t.description().contains("import { echo,") && t.description().contains("get_sum"),
                t.description());
        assertTrue(t.description().contains("- @sandjar/text\n"), t.description());
    }

    @Test
    void anActionCallsTheFilesToolsAndAnAllowedPack() throws IOException {
        McpSchema.CallToolResult r =
                call(
                        Map.of(
                                "code",
                                "import { get_sum } from \"@sandjar/tools/everything\";\n"
                                        + "import { slugify } from \"@sandjar/text\";\n"
                                        + "console.log('working');\n"
                                        + "finish({ sum: await get_sum({ a: 1, b: 2 }),"
                                        + " slug: slugify('Hello World') });"));
        assertFalse(r.isError(), String.valueOf(r));
        Map<String, Object> o = outcome(r);
        assertEquals(true, o.get("finished"));
        assertEquals(
                Map.of("sum", "The sum of 1 and 2 is 3.", "slug", "hello-world"), o.get("result"));
        List<?> calls = (List<?>) o.get("toolCalls");
        assertEquals(1, calls.size());
        assertEquals("everything/get_sum", ((Map<?, ?>) calls.get(0)).get("name"));
        assertEquals(List.of(Map.of("level", "log", "message", "working")), o.get("logs"));
        assertEquals(null, o.get("error"));
        // the text content is the same outcome, as JSON
        String text = ((McpSchema.TextContent) r.content().get(0)).text();
        assertEquals(o, JSON.readValue(text, Map.class));
    }

    @Test
    void aRefusedImportIsAnErrorResultTheModelCanRead() {
        McpSchema.CallToolResult r =
                call(Map.of("code", "import { diffLines } from \"@sandjar/diff\";\nfinish(1);"));
        assertTrue(r.isError());
        Map<?, ?> error = (Map<?, ?>) outcome(r).get("error");
        assertEquals("IMPORT", error.get("kind"));
        assertTrue(
                String.valueOf(error.get("message"))
                        .contains(
                                "package @sandjar/diff is not allowed for this action (allowed:"
                                        + " @sandjar/text)"),
                String.valueOf(error));
    }

    @Test
    void anUncaughtErrorAndAMissingCodeAreErrorResults() {
        McpSchema.CallToolResult thrown = call(Map.of("code", "throw new RangeError('no');"));
        assertTrue(thrown.isError());
        assertEquals("RangeError", ((Map<?, ?>) outcome(thrown).get("error")).get("name"));

        // the SDK checks the arguments against the tool's schema before execute_code runs
        McpSchema.CallToolResult missing = call(Map.of("source", "finish(1)"));
        assertTrue(missing.isError());
        String text = ((McpSchema.TextContent) missing.content().get(0)).text();
        assertTrue(text.contains("code"), text);
    }

    @Test
    void theServerEndsWhenItsClientCloses() throws InterruptedException {
        long before = servers();
        McpSyncClient other = connect();
        assertEquals(before + 1, servers());
        assertTrue(other.listTools().tools().get(0).description().contains("Tools: none."));
        other.closeGracefully();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (servers() > before && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(before, servers());
    }

    /** This JVM's child JVMs: the {@code sandjar mcp} servers. */
    private static long servers() {
        return ProcessHandle.current()
                .descendants()
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.parent().map(ProcessHandle.current()::equals).orElse(false))
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .count();
    }
}
