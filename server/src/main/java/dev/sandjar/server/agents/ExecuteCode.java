package dev.sandjar.server.agents;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code execute_code} tool: one model-facing tool whose argument is an action's code ({@code
 * {"code": "..."}}) and whose result is the action's outcome ({@link ActionResult#toMap()}). The
 * same contract serves MCP clients ({@link #mcpTool}) and the LangChain4j adapter. Its description
 * is the executor's {@link ActionManifest}: what an action may import and call.
 */
public final class ExecuteCode {
    /** The tool's name. */
    public static final String NAME = "execute_code";

    /** The JSON Schema of its argument. */
    public static final String INPUT_SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\","
                    + "\"description\":\"The action: a JavaScript module body. Import tools, call"
                    + " them with await, and end with finish(result).\"}},"
                    + "\"required\":[\"code\"],\"additionalProperties\":false}";

    private ExecuteCode() {}

    /** The tool's description for a model: the executor's manifest. */
    public static String description(AgentExecutor executor) {
        return ActionManifest.of(executor).text();
    }

    /**
     * Runs {@code code} as one action and returns the outcome map; a missing or non-string {@code
     * code} is an outcome whose error names it (kind {@code BAD_REQUEST}), not an exception.
     */
    public static Map<String, Object> run(AgentExecutor executor, Object code) {
        if (!(code instanceof String s)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("finished", false);
            m.put("result", null);
            m.put("toolCalls", List.of());
            m.put("logs", List.of());
            m.put(
                    "error",
                    Map.of(
                            "kind",
                            "BAD_REQUEST",
                            "name",
                            "TypeError",
                            "message",
                            NAME
                                    + " needs {\"code\": \"<JavaScript>\"}; code was "
                                    + (code == null ? "missing" : "not a string")));
            return m;
        }
        return executor.execute(s).toMap();
    }

    /**
     * The tool as an MCP server feature: each call runs one action; the result's {@code
     * structuredContent} is the outcome map, its text content the same as JSON, and {@code isError}
     * is set when the action did not run to its end (refused, an uncaught error, a limit).
     */
    public static McpServerFeatures.SyncToolSpecification mcpTool(
            AgentExecutor executor, McpJsonMapper json) {
        Objects.requireNonNull(executor, "executor");
        McpSchema.Tool tool;
        try {
            tool =
                    McpSchema.Tool.builder(NAME, json, INPUT_SCHEMA)
                            .title("Execute code")
                            .description(description(executor))
                            .build();
        } catch (RuntimeException e) {
            throw new IllegalStateException("the execute_code schema does not parse", e);
        }
        return McpServerFeatures.SyncToolSpecification.builder()
                .tool(tool)
                .callHandler(
                        (exchange, request) -> {
                            Object code =
                                    request.arguments() == null
                                            ? null
                                            : request.arguments().get("code");
                            Map<String, Object> outcome = run(executor, code);
                            String text;
                            try {
                                text = json.writeValueAsString(outcome);
                            } catch (IOException e) {
                                text = String.valueOf(outcome);
                            }
                            boolean ok = outcome.get("error") == null;
                            return McpSchema.CallToolResult.builder()
                                    .addTextContent(text)
                                    .structuredContent(outcome)
                                    .isError(!ok)
                                    .build();
                        })
                .build();
    }
}
