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
import java.util.Locale;
import java.util.concurrent.CompletionStage;

/**
 * Reads a TOOLS.json file into a {@link ToolRegistry}:
 *
 * <pre>{@code
 * {"tools": [{"namespace": "math", "name": "add", "description": "...",
 *             "parameters": {JSON Schema}, "http": "http://127.0.0.1:8080/add",
 *             "allowRemote": false}]}
 * }</pre>
 *
 * An {@code http} tool POSTs its validated arguments as JSON ({@code {}} when the action passed
 * none) and returns the JSON response to the guest; a non-2xx status, a body that is not JSON or
 * over {@link #MAX_RESPONSE_BYTES}, or a response {@code {"error": ...}} throws in the guest.
 * Redirects are not followed. The URL must be {@code http} or {@code https} and its host a loopback
 * address ({@code localhost}, {@code 127.0.0.0/8}, {@code ::1}) unless the tool says {@code
 * "allowRemote": true}.
 */
public final class ToolsFile {
    /** The largest response an http tool accepts. */
    public static final int MAX_RESPONSE_BYTES = 16 << 20;

    /** How long an http tool waits for its response. */
    public static final Duration TIMEOUT = Duration.ofSeconds(30);

    private ToolsFile() {}

    /**
     * @throws InvalidRequestException naming the file and the tool when something is wrong
     */
    public static ToolRegistry load(Path file) {
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

    /** The registry a TOOLS.json text describes. */
    public static ToolRegistry parse(String json) {
        JsonNode root;
        try {
            root = JsonSchemas.JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException("not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.path("tools").isArray()) {
            throw new InvalidRequestException("expected {\"tools\": [...]}");
        }
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
            String url = text(t, "http", where);
            URI uri = httpUri(url, t.path("allowRemote").asBoolean(false), where);
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
        return registry.build();
    }

    private static String text(JsonNode t, String field, String where) {
        JsonNode v = t.path(field);
        if (!v.isTextual() || v.asText().isEmpty()) {
            throw new InvalidRequestException(where + ": \"" + field + "\" must be a string");
        }
        return v.asText();
    }

    private static URI httpUri(String url, boolean allowRemote, String where) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new InvalidRequestException(where + ": http '" + url + "' is not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new InvalidRequestException(
                    where + ": http '" + url + "' must be an http(s) URL");
        }
        if (!allowRemote && !isLoopback(uri.getHost())) {
            throw new InvalidRequestException(
                    where
                            + ": http '"
                            + url
                            + "' is not a loopback address; set \"allowRemote\": true on the tool"
                            + " to call it");
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
