package dev.sandjar.server.agents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.host.InvalidRequestException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * Reads a TOOLS.json file into a {@link ToolRegistry}:
 *
 * <pre>{@code
 * {"tools": [{"namespace": "math", "name": "add", "description": "...",
 *             "parameters": {JSON Schema}, "http": "http://127.0.0.1:8080/add",
 *             "allowRemote": false}],
 *  "mcp": [{"namespace": "fs", "command": ["node", "server.js"], "env": {"K": "V"}},
 *          {"namespace": "web", "url": "http://127.0.0.1:3001/mcp"}]}
 * }</pre>
 *
 * Either list may be left out. An {@code mcp} entry is a Model Context Protocol server ({@link
 * McpTools}): a {@code command} started as a process and spoken to on stdio, or a streamable HTTP
 * {@code url} (loopback only unless {@code "allowRemote": true}); {@code "timeoutMs"} bounds its
 * start and each call (default 60 s). Its tools join the registry under its namespace, which no
 * other entry may use. A loaded file holds those sessions open: close it to end them.
 *
 * <p>An {@code http} tool POSTs its validated arguments as JSON ({@code {}} when the action passed
 * none) and returns the JSON response to the guest; a non-2xx status, a body that is not JSON or
 * over {@link #MAX_RESPONSE_BYTES}, or a response {@code {"error": ...}} throws in the guest.
 * Redirects are not followed. The URL must be {@code http} or {@code https} and its host a loopback
 * address ({@code localhost}, {@code 127.0.0.0/8}, {@code ::1}) unless the tool says {@code
 * "allowRemote": true}.
 */
public final class ToolsFile implements AutoCloseable {
    /** The largest response an http tool accepts. */
    public static final int MAX_RESPONSE_BYTES = 16 << 20;

    /** How long an http tool waits for its response. */
    public static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** The longest {@code timeoutMs} an mcp server may set (10 minutes). */
    public static final long MAX_MCP_TIMEOUT_MS = 600_000;

    private final ToolRegistry registry;
    private final List<McpTools> servers;

    private ToolsFile(ToolRegistry registry, List<McpTools> servers) {
        this.registry = registry;
        this.servers = List.copyOf(servers);
    }

    /** Every tool the file names, the MCP servers' included. */
    public ToolRegistry registry() {
        return registry;
    }

    /** The MCP servers the file started or connected to, in its order. */
    public List<McpTools> mcpServers() {
        return servers;
    }

    /** Ends the MCP sessions (and stops the stdio servers' processes). */
    @Override
    public void close() {
        for (McpTools s : servers) {
            s.close();
        }
    }

    /**
     * Reads {@code file}, starting or connecting to its MCP servers.
     *
     * @throws InvalidRequestException naming the file and the tool when something is wrong
     */
    public static ToolsFile load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InvalidRequestException("cannot read " + file + ": " + e.getMessage());
        }
        try {
            return parse(text);
        } catch (InvalidRequestException e) {
            throw new InvalidRequestException(file + ": " + e.getMessage());
        }
    }

    /** The tools a TOOLS.json text describes, its MCP servers started or connected to. */
    public static ToolsFile parse(String json) {
        JsonNode root;
        try {
            root = JsonSchemas.JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException("not JSON: " + e.getOriginalMessage());
        }
        if (root == null
                || !root.isObject()
                || !root.path("tools").isArray() && !root.path("mcp").isArray()
                || root.has("tools") && !root.get("tools").isArray()
                || root.has("mcp") && !root.get("mcp").isArray()) {
            throw new InvalidRequestException(
                    "expected {\"tools\": [...], \"mcp\": [...]} (either may be left out)");
        }
        List<McpTools.Server> mcp = mcpServers(root.path("mcp"));
        Set<String> mcpNamespaces = new HashSet<>();
        mcp.forEach(m -> mcpNamespaces.add(m.namespace()));
        HttpClient client =
                HttpClient.newBuilder()
                        .connectTimeout(TIMEOUT)
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .build();
        ToolRegistry.Builder registry = ToolRegistry.builder();
        int i = 0;
        for (JsonNode t : root.path("tools")) {
            String where = "tools[" + i++ + "]";
            String namespace = text(t, "namespace", where);
            String name = text(t, "name", where);
            where = where + " (" + namespace + "/" + name + ")";
            if (mcpNamespaces.contains(namespace)) {
                throw new InvalidRequestException(
                        where + ": namespace " + namespace + " belongs to an mcp server");
            }
            String url = text(t, "http", where);
            URI uri = httpUri(url, t.path("allowRemote").asBoolean(false), where, "http");
            Tool.Builder b =
                    Tool.builder(namespace, name)
                            .withDescription(t.path("description").asText(""))
                            .withHandler(call -> post(client, uri, call));
            if (t.has("parameters")) {
                if (!t.get("parameters").isObject()) {
                    throw new InvalidRequestException(
                            where + ": parameters must be a JSON Schema object");
                }
                b.withParameters(t.get("parameters").toString());
            }
            registry.addTool(b.build());
        }
        List<McpTools> started = new ArrayList<>();
        try {
            for (McpTools.Server server : mcp) {
                McpTools tools = server.connect();
                started.add(tools);
                registry.addTools(tools.tools());
            }
            return new ToolsFile(registry.build(), started);
        } catch (RuntimeException e) {
            started.forEach(McpTools::close);
            throw e;
        }
    }

    /** The {@code mcp} entries, checked before any server starts. */
    private static List<McpTools.Server> mcpServers(JsonNode list) {
        List<McpTools.Server> out = new ArrayList<>();
        Set<String> namespaces = new HashSet<>();
        int i = 0;
        for (JsonNode m : list) {
            String where = "mcp[" + i++ + "]";
            String namespace = text(m, "namespace", where);
            where = where + " (" + namespace + ")";
            if (!namespaces.add(namespace)) {
                throw new InvalidRequestException(
                        where + ": namespace " + namespace + " is used by another mcp server");
            }
            boolean hasCommand = m.has("command");
            if (hasCommand == m.has("url")) {
                throw new InvalidRequestException(
                        where + ": give exactly one of \"command\" (stdio) and \"url\" (HTTP)");
            }
            McpTools.Server server;
            if (hasCommand) {
                JsonNode c = m.get("command");
                List<String> command = new ArrayList<>();
                c.forEach(a -> command.add(a.isTextual() ? a.asText() : null));
                if (!c.isArray() || command.isEmpty() || command.contains(null)) {
                    throw new InvalidRequestException(
                            where + ": \"command\" must be a non-empty array of strings");
                }
                server = McpTools.stdio(namespace, command);
                if (m.has("env")) {
                    JsonNode env = m.get("env");
                    Map<String, String> vars = new LinkedHashMap<>();
                    env.properties().forEach(e -> vars.put(e.getKey(), e.getValue().asText()));
                    if (!env.isObject()) {
                        throw new InvalidRequestException(
                                where + ": \"env\" must be an object of strings");
                    }
                    server.withEnv(vars);
                }
            } else {
                String url = text(m, "url", where);
                httpUri(url, m.path("allowRemote").asBoolean(false), where, "url");
                server = McpTools.http(namespace, url);
            }
            if (m.has("timeoutMs")) {
                JsonNode t = m.get("timeoutMs");
                if (!t.canConvertToLong()
                        || !t.isIntegralNumber()
                        || t.asLong() < 1
                        || t.asLong() > MAX_MCP_TIMEOUT_MS) {
                    throw new InvalidRequestException(
                            where
                                    + ": \"timeoutMs\" must be an integer from 1 to "
                                    + MAX_MCP_TIMEOUT_MS);
                }
                server.withTimeout(Duration.ofMillis(t.asLong()));
            }
            out.add(server);
        }
        return out;
    }

    private static String text(JsonNode t, String field, String where) {
        JsonNode v = t.path(field);
        if (!v.isTextual() || v.asText().isEmpty()) {
            throw new InvalidRequestException(where + ": \"" + field + "\" must be a string");
        }
        return v.asText();
    }

    private static URI httpUri(String url, boolean allowRemote, String where, String field) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new InvalidRequestException(where + ": " + field + " '" + url + "' is not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new InvalidRequestException(
                    where + ": " + field + " '" + url + "' must be an http(s) URL");
        }
        if (!allowRemote && !isLoopback(uri.getHost())) {
            throw new InvalidRequestException(
                    where
                            + ": "
                            + field
                            + " '"
                            + url
                            + "' is not a loopback address; set \"allowRemote\": true on the"
                            + " entry to call it");
        }
        return uri;
    }

    /** Loopback by its literal: {@code localhost}, or an IP literal in a loopback range. */
    static boolean isLoopback(String host) {
        String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        if (h.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (!h.matches("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*")) {
            return false; // a name: it would need DNS, and DNS may say anything
        }
        try {
            return InetAddress.getByName(h).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static CompletionStage<Object> post(HttpClient client, URI uri, ToolInvocation call) {
        String body;
        try {
            body =
                    JsonSchemas.JSON.writeValueAsString(
                            call.arguments() == null ? java.util.Map.of() : call.arguments());
        } catch (JsonProcessingException e) {
            throw new ToolException(ToolException.TOOL_FAILED, "arguments are not JSON");
        }
        HttpRequest request =
                HttpRequest.newBuilder(uri)
                        .timeout(TIMEOUT)
                        .header("Content-Type", "application/json")
                        .header("Accept", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                        .build();
        String name = call.tool().namespace() + "/" + call.tool().name();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                .thenApply(
                        response -> {
                            byte[] bytes = response.body();
                            if (response.statusCode() / 100 != 2) {
                                String text = new String(bytes, StandardCharsets.UTF_8);
                                throw new ToolException(
                                        "HTTP_STATUS",
                                        name
                                                + ": the tool's server answered "
                                                + response.statusCode()
                                                + (text.isBlank()
                                                        ? ""
                                                        : ": "
                                                                + text.substring(
                                                                        0,
                                                                        Math.min(
                                                                                500,
                                                                                text.length()))));
                            }
                            if (bytes.length > MAX_RESPONSE_BYTES) {
                                throw new ToolException(
                                        ToolException.TOOL_FAILED,
                                        name
                                                + ": the response is over "
                                                + MAX_RESPONSE_BYTES
                                                + " bytes");
                            }
                            try {
                                return bytes.length == 0
                                        ? null
                                        : JsonSchemas.JSON.readValue(bytes, Object.class);
                            } catch (IOException e) {
                                throw new ToolException(
                                        ToolException.TOOL_FAILED,
                                        name + ": the response is not JSON");
                            }
                        });
    }
}
