package dev.sandjar.server.cli;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Sandbox;
import dev.sandjar.server.agents.AgentExecutor;
import dev.sandjar.server.agents.ExecuteCode;
import dev.sandjar.server.agents.ToolRegistry;
import dev.sandjar.server.agents.ToolsFile;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code sandjar mcp [--tools TOOLS.json] [--packs DIR]... [--allow-pack NAME]...}: Sandjar as a
 * Model Context Protocol server on stdio. It serves one tool, {@code execute_code} ({@link
 * ExecuteCode}): each call runs its {@code code} as one agent action with the file's tools and the
 * allowed packs, and answers the same object {@code act} prints. Stdout carries only the protocol
 * (anything else this process would print goes to stderr); the server ends when its input ends.
 */
final class McpCommand {
    static final String USAGE =
            String.join(
                    "\n",
                    "       sandjar mcp [--tools TOOLS.json] [--finish-schema SCHEMA.json]"
                            + " [--allow-pack NAME]... [--max-tool-calls N] [--packs DIR]...",
                    "mcp: serves execute_code over MCP on stdio (act's options; docs/agents.md)");

    private McpCommand() {}

    static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        Path tools = null;
        Path finishSchema = null;
        List<String> allowed = new ArrayList<>();
        long maxToolCalls = AgentExecutor.DEFAULT_MAX_TOOL_CALLS;
        List<SandjarCli.PackPath> packs = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--tools" -> tools = Path.of(SandjarCli.value(args, ++i, a));
                case "--finish-schema" -> finishSchema = Path.of(SandjarCli.value(args, ++i, a));
                case "--allow-pack" -> allowed.add(SandjarCli.value(args, ++i, a));
                case "--max-tool-calls" ->
                        maxToolCalls =
                                SandjarCli.number(args, ++i, a, 1, AgentExecutor.MAX_TOOL_CALLS);
                case "--packs", "--trust-packs" -> packs.add(SandjarCli.PackPath.of(a, args, i++));
                default -> throw new IllegalArgumentException("unknown mcp option " + a);
            }
        }
        String schema = null;
        if (finishSchema != null) {
            try {
                schema = Files.readString(finishSchema, StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println("error: usage: cannot read " + finishSchema + ": " + e.getMessage());
                return 1;
            }
        }
        ToolsFile toolsFile = null;
        Sandbox sandbox = null;
        try {
            toolsFile = tools == null ? null : ToolsFile.load(tools);
            ToolRegistry registry = toolsFile == null ? ToolRegistry.empty() : toolsFile.registry();
            sandbox = Sandbox.builder().poolSize(2).build();
            AgentExecutor.Builder b =
                    AgentExecutor.builder(sandbox, registry)
                            .addBridges(Capabilities.defaults())
                            .withMaxToolCalls((int) maxToolCalls);
            if (schema != null) {
                b.withFinishSchema(schema);
            }
            if (!allowed.isEmpty()) {
                b.withCatalog(SandjarCli.catalog(sandbox, packs));
                allowed.forEach(b::addAllowedPack);
            }
            return serve(b.build(), in, out);
        } catch (InvalidRequestException e) {
            err.println("error: usage: " + e.getMessage());
            return 1;
        } finally {
            if (sandbox != null) {
                sandbox.close();
            }
            if (toolsFile != null) {
                toolsFile.close();
            }
        }
    }

    /** Serves until {@code in} ends. Stray writes to System.out go to stderr meanwhile. */
    private static int serve(AgentExecutor executor, InputStream in, PrintStream out) {
        CountDownLatch ended = new CountDownLatch(1);
        InputStream watched =
                new FilterInputStream(in) {
                    @Override
                    public int read() throws IOException {
                        return ended(super.read());
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        try {
                            return ended(super.read(b, off, len));
                        } catch (IOException e) {
                            ended.countDown();
                            throw e;
                        }
                    }

                    private int ended(int n) {
                        if (n < 0) {
                            ended.countDown();
                        }
                        return n;
                    }
                };
        PrintStream stdout = System.out;
        System.setOut(System.err);
        McpJsonMapper json = McpJsonDefaults.getMapper();
        McpSyncServer server =
                McpServer.sync(new StdioServerTransportProvider(json, watched, out))
                        .serverInfo("sandjar", "1")
                        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                        .tools(ExecuteCode.mcpTool(executor, json))
                        .build();
        try {
            ended.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            server.closeGracefully();
            System.setOut(stdout);
        }
        return 0;
    }
}
