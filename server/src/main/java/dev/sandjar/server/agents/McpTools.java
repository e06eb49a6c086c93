package dev.sandjar.server.agents;

import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.packs.ToolModules;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The tools of one Model Context Protocol server, as {@link Tool}s of one namespace: {@code import
 * { echo } from "@sandjar/tools/everything"} calls the server's {@code echo}. Connects through the
 * official MCP Java SDK, over stdio (a command this process starts and stops) or streamable HTTP (a
 * URL); lists the server's tools once, at {@link Server#connect()}, with their input schemas, which
 * the executor validates against before a call goes out. Close it to end the session (and the
 * process). Thread-safe.
 *
 * <p>A tool's export name is its MCP name with each character outside {@code [A-Za-z0-9_]} made
 * {@code _} ({@code get-sum} → {@code get_sum}), {@code tool_} in front of a name that does not
 * start with a letter, and {@code _} after a reserved word; two names that come out the same refuse
 * the server. A result is returned to the guest as its {@code structuredContent} when the server
 * sent one, else as the text when the content is one text block, else as the content blocks (
 * {@code [{type: "text", text}, {type: "image", data, mimeType}, ...]}). A result with {@code
 * isError} throws {@code ToolError} with code {@code TOOL_ERROR} and the result's text.
 */
public final class McpTools implements AutoCloseable {
    /** How long a call (and the connection's start) waits for the server by default. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /** The longest text of an error result kept in the guest's message. */
    static final int MAX_ERROR_TEXT = 2000;

    private static final Logger LOG = Logger.getLogger(McpTools.class.getName());
    private static final TypeRef<Map<String, Object>> MAP = new TypeRef<>() {};

    private final String namespace;
    private final String where;
    private final McpSyncClient client;
    private final List<Tool> tools;

    private McpTools(String namespace, String where, McpSyncClient client, List<Tool> tools) {
        this.namespace = namespace;
        this.where = where;
        this.client = client;
        this.tools = List.copyOf(tools);
    }

    /**
     * A server started as {@code command} (the program, then its arguments), spoken to on stdio.
     */
    public static Server stdio(String namespace, List<String> command) {
        Objects.requireNonNull(command, "command");
        if (command.isEmpty() || command.get(0).isBlank()) {
            throw new InvalidRequestException(
                    "mcp server " + namespace + ": the command must name a program");
        }
        return new Server(namespace, List.copyOf(command), null);
    }

    /** A server at a streamable HTTP endpoint ({@code http://127.0.0.1:3001/mcp}, say). */
    public static Server http(String namespace, String url) {
        Objects.requireNonNull(url, "url");
        return new Server(namespace, null, url);
    }

    /** The namespace the tools are imported from ({@code @sandjar/tools/<namespace>}). */
    public String namespace() {
        return namespace;
    }

    /** The server's tools, as it listed them when the connection started. */
    public List<Tool> tools() {
        return tools;
    }

    /** Ends the session; a stdio server's process is stopped. */
    @Override
    public void close() {
        try {
            if (!client.closeGracefully()) {
                client.close();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "closing mcp server " + where, e);
            client.close();
        }
    }

    @Override
    public String toString() {
        return "McpTools[" + namespace + ": " + where + "]";
    }

    /** The JavaScript export name of an MCP tool name (see the class comment). */
    static String exportName(String mcpName) {
        StringBuilder s = new StringBuilder(mcpName.length());
        for (int i = 0; i < mcpName.length(); i++) {
            char c = mcpName.charAt(i);
            boolean ok = c < 128 && (Character.isLetterOrDigit(c) || c == '_');
            s.append(ok ? c : '_');
        }
        if (s.length() == 0 || !Character.isLetter(s.charAt(0))) {
            s.insert(0, "tool_");
        }
        String name = s.toString();
        if (ToolModules.toolNameProblem(name) != null
                && ToolModules.toolNameProblem(name + "_") == null) {
            name = name + "_"; // a reserved word
        }
        return name;
    }

    /** Where and how to reach one MCP server; {@link #connect()} starts the session. */
    public static final class Server {
        private final String namespace;
        private final List<String> command;
        private final String url;
        private final Map<String, String> env = new LinkedHashMap<>();
        private Duration timeout = DEFAULT_TIMEOUT;

        private Server(String namespace, List<String> command, String url) {
            Objects.requireNonNull(namespace, "namespace");
            String problem = ToolModules.namespaceProblem(namespace);
            if (problem != null) {
                throw new InvalidRequestException("mcp server: " + problem);
            }
            this.namespace = namespace;
            this.command = command;
            this.url = url;
        }

        /** The namespace the server's tools are imported from. */
        public String namespace() {
            return namespace;
        }

        /** Environment variables the stdio server's process gets on top of this process's. */
        public Server withEnv(Map<String, String> vars) {
            if (command == null) {
                throw new InvalidRequestException(
                        "mcp server " + namespace + ": env is for a stdio server");
            }
            env.putAll(vars);
            return this;
        }

        /** How long the start and each call wait for the server (default 60 s). */
        public Server withTimeout(Duration d) {
            Objects.requireNonNull(d, "timeout");
            if (d.isNegative() || d.isZero()) {
                throw new InvalidRequestException(
                        "mcp server " + namespace + ": the timeout must be positive");
            }
            this.timeout = d;
            return this;
        }

        /**
         * Starts the session and lists the server's tools.
         *
         * @throws InvalidRequestException naming the server when it cannot be started or reached,
         *     or a tool cannot be imported (a name that collides, a schema that does not compile)
         */
        public McpTools connect() {
            McpJsonMapper json = McpJsonDefaults.getMapper();
            String where = command != null ? String.join(" ", command) : url;
            McpClientTransport transport;
            if (command != null) {
                ServerParameters p =
                        ServerParameters.builder(command.get(0))
                                .args(command.subList(1, command.size()))
                                .env(env)
                                .build();
                StdioClientTransport stdio = new StdioClientTransport(p, json);
                stdio.setStdErrorHandler(
                        line -> LOG.fine(() -> "mcp server " + namespace + ": " + line));
                transport = stdio;
            } else {
                transport =
                        HttpClientStreamableHttpTransport.builder(url)
                                .jsonMapper(json)
                                .connectTimeout(timeout)
                                .build();
            }
            McpSyncClient client =
                    McpClient.sync(transport)
                            .clientInfo(McpSchema.Implementation.builder("sandjar", "1").build())
                            .requestTimeout(timeout)
                            .initializationTimeout(timeout)
                            .build();
            try {
                client.initialize();
                List<McpSchema.Tool> listed = new ArrayList<>();
                String cursor = null;
                do {
                    McpSchema.ListToolsResult page =
                            cursor == null ? client.listTools() : client.listTools(cursor);
                    listed.addAll(page.tools());
                    cursor = page.nextCursor();
                } while (cursor != null && !cursor.isEmpty());
                List<Tool> tools = tools(json, client, listed, where);
                return new McpTools(namespace, where, client, tools);
            } catch (RuntimeException e) {
                client.close();
                if (e instanceof InvalidRequestException) {
                    throw e;
                }
                throw new InvalidRequestException(
                        "mcp server "
                                + namespace
                                + " ("
                                + where
                                + ") did not start: "
                                + message(e));
            }
        }

        private List<Tool> tools(
                McpJsonMapper json,
                McpSyncClient client,
                List<McpSchema.Tool> listed,
                String where) {
            Map<String, String> byExport = new LinkedHashMap<>();
            List<Tool> out = new ArrayList<>();
            for (McpSchema.Tool t : listed) {
                String export = exportName(t.name());
                String other = byExport.putIfAbsent(export, t.name());
                if (other != null) {
                    throw new InvalidRequestException(
                            "mcp server "
                                    + namespace
                                    + ": tools '"
                                    + other
                                    + "' and '"
                                    + t.name()
                                    + "' would both be imported as "
                                    + export);
                }
                String schema;
                try {
                    schema =
                            json.writeValueAsString(
                                    t.inputSchema() == null
                                            ? Map.of("type", "object")
                                            : t.inputSchema());
                } catch (IOException e) {
                    throw new InvalidRequestException(
                            "mcp server " + namespace + ": tool " + t.name() + "'s schema: " + e);
                }
                String description = t.description() != null ? t.description() : t.title();
                String mcpName = t.name();
                try {
                    out.add(
                            Tool.builder(namespace, export)
                                    .withDescription(description == null ? "" : description)
                                    .withParameters(schema)
                                    .withHandler(call -> call(json, client, mcpName, call))
                                    .build());
                } catch (InvalidRequestException e) {
                    throw new InvalidRequestException(
                            "mcp server " + namespace + " (" + where + "): " + e.getMessage());
                }
            }
            return out;
        }
    }

    private static CompletionStage<Object> call(
            McpJsonMapper json, McpSyncClient client, String mcpName, ToolInvocation call) {
        String name = call.tool().namespace() + "/" + call.tool().name();
        Map<String, Object> args = call.argumentMap();
        return CompletableFuture.supplyAsync(
                () -> {
                    McpSchema.CallToolResult r;
                    try {
                        r =
                                client.callTool(
                                        McpSchema.CallToolRequest.builder(mcpName)
                                                .arguments(args)
                                                .build());
                    } catch (RuntimeException e) {
                        throw new ToolException(
                                ToolException.TOOL_FAILED, name + ": " + message(e), e);
                    }
                    return toGuest(json, name, r);
                },
                call.executor());
    }

    /** What the guest gets for a result (see the class comment). */
    static Object toGuest(McpJsonMapper json, String name, McpSchema.CallToolResult r) {
        List<McpSchema.Content> content = r.content() == null ? List.of() : r.content();
        if (Boolean.TRUE.equals(r.isError())) {
            StringBuilder text = new StringBuilder();
            for (McpSchema.Content c : content) {
                if (c instanceof McpSchema.TextContent t) {
                    text.append(text.length() == 0 ? "" : "\n").append(t.text());
                }
            }
            String s = text.length() == 0 ? "the tool reported an error" : text.toString();
            if (s.length() > MAX_ERROR_TEXT) {
                s = s.substring(0, MAX_ERROR_TEXT) + "...";
            }
            throw new ToolException(ToolException.TOOL_ERROR, name + ": " + s);
        }
        if (r.structuredContent() != null) {
            return r.structuredContent();
        }
        if (content.size() == 1 && content.get(0) instanceof McpSchema.TextContent t) {
            return t.text();
        }
        List<Object> blocks = new ArrayList<>();
        for (McpSchema.Content c : content) {
            Map<String, Object> block = new LinkedHashMap<>();
            block.put("type", c.type());
            block.putAll(json.convertValue(c, MAP));
            blocks.add(block);
        }
        return blocks;
    }

    private static String message(Throwable e) {
        Throwable c = e;
        while (c.getCause() != null && (c.getMessage() == null || c.getMessage().isBlank())) {
            c = c.getCause();
        }
        return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
    }
}
