package dev.sandjar.server;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A {@code POST /api/runs} or {@code POST /api/nodes/runs} body, read strictly: a field this
 * version does not know, a value of the wrong type or out of range is a 400 naming it. What the
 * token's policy allows is checked later, by {@link RunService}, so this class knows nothing of
 * tokens.
 */
final class RunBody {
    /**
     * The server's one JSON reader, for every body it reads and for its token and session files. A
     * key given twice is refused: readers that keep the first and readers that keep the last would
     * otherwise see different requests (a proxy that checks {@code limits} and this server, say).
     */
    static final ObjectMapper JSON =
            JsonMapper.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                    .build();

    private static final Set<String> FIELDS =
            Set.of("code", "filename", "inputs", "globals", "limits", "capabilities");

    /** A Code node's body: no globals (inputs live on {@code inputs}), and the node's fields. */
    private static final Set<String> NODE_FIELDS =
            Set.of(
                    "code",
                    "filename",
                    "inputs",
                    "limits",
                    "capabilities",
                    "outputs",
                    "streams",
                    "state",
                    "emitQueue");

    static final Set<String> LIMIT_FIELDS =
            Set.of(
                    "timeoutMs",
                    "wallTimeoutMs",
                    "memoryMb",
                    "outputBytes",
                    "logLines",
                    "logChars",
                    "pendingOperations",
                    "hostMemoryMb");
    private static final Set<String> CAPABILITY_FIELDS =
            Set.of("fetch", "workspace", "secrets", "withhold", "video");
    private static final Set<String> FETCH_FIELDS = Set.of("allowPrivateNetwork");
    private static final Set<String> WORKSPACE_FIELDS = Set.of("id");

    /** A workspace id: one directory name under the token's workspace directory. */
    static final Pattern WORKSPACE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    final String code;
    final String filename;

    /** The {@code inputs} object as JSON text, or null. */
    final String inputsJson;

    /** Each global's value as JSON text, by name. */
    final Map<String, String> globalsJson = new LinkedHashMap<>();

    /** The limits asked for, by field name (whole numbers). */
    final Map<String, Long> limits = new LinkedHashMap<>();

    final boolean fetch;
    final boolean allowPrivateNetwork;
    final String workspaceId;

    /** Whether the run asks for {@code video} (the server's ffmpeg). */
    final boolean video;

    final List<String> secrets = new ArrayList<>();
    final Set<String> withhold = new LinkedHashSet<>();

    /** A node's output handles (null for a plain run). */
    final List<String> outputs;

    /** A node's streams: each handle's items as a JSON array's text. */
    final Map<String, String> streamsJson = new LinkedHashMap<>();

    /** A node's starting state as JSON text, or null. */
    final String stateJson;

    /** A node's emit queue size, or null for the default. */
    final Integer emitQueue;

    private RunBody(JsonNode root, boolean node) {
        fields(root, node ? NODE_FIELDS : FIELDS, "the body");
        JsonNode code = root.get("code");
        if (code == null || !code.isTextual()) {
            throw ApiException.badRequest("the body needs \"code\": a string of JavaScript");
        }
        this.code = code.asText();
        JsonNode filename = root.get("filename");
        if (filename != null && !filename.isTextual()) {
            throw ApiException.badRequest("\"filename\" must be a string");
        }
        this.filename = filename == null ? "main.js" : filename.asText();
        JsonNode inputs = root.get("inputs");
        if (inputs != null && !inputs.isObject()) {
            throw ApiException.badRequest("\"inputs\" must be an object");
        }
        this.inputsJson = inputs == null ? null : inputs.toString();
        JsonNode globals = root.get("globals");
        if (globals != null) {
            if (!globals.isObject()) {
                throw ApiException.badRequest("\"globals\" must be an object");
            }
            globals.properties().forEach(e -> globalsJson.put(e.getKey(), e.getValue().toString()));
        }
        JsonNode limits = root.get("limits");
        if (limits != null) {
            fields(limits, LIMIT_FIELDS, "\"limits\"");
            for (Map.Entry<String, JsonNode> e : limits.properties()) {
                JsonNode v = e.getValue();
                if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 1) {
                    throw ApiException.badRequest(
                            "limits." + e.getKey() + " must be a whole number >= 1, got " + v);
                }
                this.limits.put(e.getKey(), v.asLong());
            }
        }
        JsonNode caps = root.get("capabilities");
        boolean fetch = false;
        boolean privateNetwork = false;
        String workspace = null;
        boolean video = false;
        if (caps != null) {
            fields(caps, CAPABILITY_FIELDS, "\"capabilities\"");
            JsonNode f = caps.get("fetch");
            if (f != null && !f.isNull()) {
                fields(f, FETCH_FIELDS, "\"capabilities.fetch\"");
                fetch = true;
                JsonNode p = f.get("allowPrivateNetwork");
                if (p != null && !p.isBoolean()) {
                    throw ApiException.badRequest(
                            "capabilities.fetch.allowPrivateNetwork must be true or false");
                }
                privateNetwork = p != null && p.asBoolean();
            }
            JsonNode w = caps.get("workspace");
            if (w != null && !w.isNull()) {
                fields(w, WORKSPACE_FIELDS, "\"capabilities.workspace\"");
                JsonNode id = w.get("id");
                if (id == null || !id.isTextual() || !WORKSPACE_ID.matcher(id.asText()).matches()) {
                    throw ApiException.badRequest(
                            "capabilities.workspace.id must match " + WORKSPACE_ID.pattern());
                }
                workspace = id.asText();
            }
            JsonNode v = caps.get("video");
            if (v != null && !v.isNull()) {
                if (!v.isBoolean()) {
                    throw ApiException.badRequest("capabilities.video must be true or false");
                }
                video = v.asBoolean();
            }
            strings(caps.get("secrets"), "capabilities.secrets", secrets);
            List<String> withheld = new ArrayList<>();
            strings(caps.get("withhold"), "capabilities.withhold", withheld);
            withhold.addAll(withheld);
        }
        this.fetch = fetch;
        this.allowPrivateNetwork = privateNetwork;
        this.workspaceId = workspace;
        this.video = video;
        if (!node) {
            this.outputs = null;
            this.stateJson = null;
            this.emitQueue = null;
            return;
        }
        List<String> handles = new ArrayList<>();
        JsonNode outs = root.get("outputs");
        if (outs == null) {
            throw ApiException.badRequest(
                    "a node's body needs \"outputs\": the output handles emit and output may name");
        }
        strings(outs, "outputs", handles);
        this.outputs = handles;
        JsonNode streams = root.get("streams");
        if (streams != null) {
            if (!streams.isObject()) {
                throw ApiException.badRequest("\"streams\" must be an object of arrays");
            }
            for (Map.Entry<String, JsonNode> e : streams.properties()) {
                if (!e.getValue().isArray()) {
                    throw ApiException.badRequest(
                            "streams." + e.getKey() + " must be an array of the handle's items");
                }
                if (inputs != null && inputs.has(e.getKey())) {
                    throw ApiException.badRequest(
                            "input '" + e.getKey() + "' has a value and a stream; give one");
                }
                streamsJson.put(e.getKey(), e.getValue().toString());
            }
        }
        JsonNode state = root.get("state");
        if (state != null && !state.isObject()) {
            throw ApiException.badRequest("\"state\" must be an object");
        }
        this.stateJson = state == null ? null : state.toString();
        JsonNode queue = root.get("emitQueue");
        if (queue != null && (!queue.isIntegralNumber() || !queue.canConvertToInt())) {
            throw ApiException.badRequest("\"emitQueue\" must be a whole number, got " + queue);
        }
        this.emitQueue = queue == null ? null : queue.asInt();
    }

    static RunBody parseNode(byte[] body) {
        return new RunBody(tree(body), true);
    }

    static RunBody parse(byte[] body) {
        return new RunBody(tree(body), false);
    }

    private static JsonNode tree(byte[] body) {
        JsonNode root = json(body);
        if (root == null || !root.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object");
        }
        return root;
    }

    /** A request body as JSON; not JSON (a duplicated key included) is a 400 saying where. */
    static JsonNode json(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest("the body is not valid JSON: " + problem(e));
        } catch (java.io.IOException e) {
            throw ApiException.badRequest("the body could not be read: " + e.getMessage());
        }
    }

    /** Jackson's words for what is wrong, and where: {@code Duplicate field 'a' at /inputs/a}. */
    static String problem(JsonProcessingException e) {
        String at =
                e.getProcessor() instanceof JsonParser p
                        ? p.getParsingContext().pathAsPointer().toString()
                        : "";
        return e.getOriginalMessage() + (at.isEmpty() ? "" : " at " + at);
    }

    private static void fields(JsonNode node, Set<String> known, String what) {
        if (!node.isObject()) {
            throw ApiException.badRequest(what + " must be an object");
        }
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String f = field.getKey();
            if (!known.contains(f)) {
                throw ApiException.badRequest(
                        what
                                + " has an unknown field '"
                                + f
                                + "'; the fields are "
                                + Policy.sorted(known));
            }
        }
    }

    private static void strings(JsonNode node, String what, List<String> out) {
        if (node == null || node.isNull()) {
            return;
        }
        if (!node.isArray()) {
            throw ApiException.badRequest(what + " must be an array of strings");
        }
        for (JsonNode n : node) {
            if (!n.isTextual()) {
                throw ApiException.badRequest(what + " must be an array of strings");
            }
            out.add(n.asText());
        }
    }
}
