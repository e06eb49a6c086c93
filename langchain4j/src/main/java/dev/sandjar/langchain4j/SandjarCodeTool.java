package dev.sandjar.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.code.CodeExecutionEngine;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.sandjar.server.agents.ActionManifest;
import dev.sandjar.server.agents.AgentExecutor;
import dev.sandjar.server.agents.ExecuteCode;
import java.util.Map;
import java.util.Objects;

/**
 * Sandjar as a LangChain4j agent's way to act: the {@code execute_code} tool and a {@link
 * CodeExecutionEngine}. Each call runs its code as one action on the {@link AgentExecutor} (whose
 * registry may hold the agent's own LangChain4j tools, {@link LangChain4jTools}) and returns the
 * outcome as JSON: {@code {"finished", "result", "toolCalls", "logs", "error"}}, the model's
 * observation.
 *
 * <pre>{@code
 * SandjarCodeTool sandjar = new SandjarCodeTool(executor);
 * Agent agent = AiServices.builder(Agent.class)
 *         .chatModel(model)
 *         .systemMessageProvider(id -> sandjar.systemPrompt())  // what an action may use
 *         .tools(sandjar)                                       // execute_code
 *         .build();
 * }</pre>
 *
 * {@link #toolSpecification()} with {@link #toolExecutor()} is the same tool with the manifest as
 * its description, for {@code AiServices.tools(Map)} when the system message is not yours to set.
 */
public final class SandjarCodeTool implements CodeExecutionEngine {
    /** The {@code @Tool} description (the manifest goes in the system prompt). */
    public static final String DESCRIPTION =
            "Runs JavaScript as one action in a sandbox. The code is an ES module body: import the"
                    + " tools you need, call them with await, and end with finish(result). Returns"
                    + " the outcome as JSON: {finished, result, toolCalls, logs, error}. What the"
                    + " code may import is listed in the system message.";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final AgentExecutor executor;

    public SandjarCodeTool(AgentExecutor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    public AgentExecutor executor() {
        return executor;
    }

    /** The {@code execute_code} tool: runs {@code code} as one action; the outcome as JSON. */
    @Tool(name = ExecuteCode.NAME, value = DESCRIPTION)
    public String executeCode(
            @P(
                            name = "code",
                            value =
                                    "The action: a JavaScript module body that imports tools and"
                                            + " calls finish(result)")
                    String code) {
        return json(ExecuteCode.run(executor, code));
    }

    /** {@link CodeExecutionEngine}: the same as {@link #executeCode}. */
    @Override
    public String execute(String code) {
        return executeCode(code);
    }

    /** The system-prompt manifest of what an action may use ({@link ActionManifest}). */
    public String systemPrompt() {
        return ActionManifest.of(executor).text();
    }

    /** {@code execute_code} with the manifest as its description. */
    public ToolSpecification toolSpecification() {
        Map<String, Object> schema;
        try {
            schema = JSON.readValue(ExecuteCode.INPUT_SCHEMA, new TypeReference<>() {});
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return ToolSpecification.builder()
                .name(ExecuteCode.NAME)
                .description(ExecuteCode.description(executor))
                .parameters((JsonObjectSchema) JsonSchemaElementJsonUtils.fromMap(schema))
                .build();
    }

    /** Runs a request for {@link #toolSpecification()}: its {@code code} argument as one action. */
    public ToolExecutor toolExecutor() {
        return (request, memoryId) -> {
            Object code;
            try {
                code = JSON.readValue(request.arguments(), Map.class).get("code");
            } catch (JsonProcessingException e) {
                code = null;
            }
            return json(ExecuteCode.run(executor, code));
        };
    }

    private static String json(Map<String, Object> outcome) {
        try {
            return JSON.writeValueAsString(outcome);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "the outcome is not JSON: " + e.getOriginalMessage(), e);
        }
    }
}
