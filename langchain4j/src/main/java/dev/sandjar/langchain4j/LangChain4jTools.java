package dev.sandjar.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.server.agents.Tool;
import dev.sandjar.server.agents.ToolException;
import dev.sandjar.server.agents.ToolInvocation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * An agent's LangChain4j tools as Sandjar {@link Tool}s: every {@code @Tool} method of the given
 * objects becomes an import of {@code @sandjar/tools/<namespace>}, with the JSON Schema LangChain4j
 * derives from the method's parameters, run by LangChain4j's own {@code DefaultToolExecutor} (so
 * arguments are converted exactly as when the model calls the tool directly). The guest passes one
 * object of named arguments ({@code await add({a: 1, b: 2})}) and gets the method's return value as
 * JSON data (a String stays a string, a record becomes an object, void is {@code undefined}). A
 * method that throws makes the guest's call throw {@code ToolError} with code {@code TOOL_FAILED}.
 * Calls run on the sandbox's executor, not the engine thread.
 */
public final class LangChain4jTools {
    private static final ObjectMapper JSON = new ObjectMapper();

    private LangChain4jTools() {}

    /**
     * The {@code @Tool} methods of {@code toolObjects} as tools of {@code namespace}: each object's
     * tools sorted by name, the objects in the order given.
     *
     * @throws InvalidRequestException when an object has no {@code @Tool} method, or a tool's name
     *     is not a JavaScript name
     */
    public static List<Tool> from(String namespace, Object... toolObjects) {
        Objects.requireNonNull(namespace, "namespace");
        List<Tool> out = new ArrayList<>();
        for (Object object : toolObjects) {
            Objects.requireNonNull(object, "tool object");
            int before = out.size();
            // getDeclaredMethods has no defined order: sort by the tool's name, so the
            // prompt that lists them reads the same in every JVM (and model-side prompt
            // caches hit)
            List<Tool> declared = new ArrayList<>();
            for (Method method : object.getClass().getDeclaredMethods()) {
                if (method.isAnnotationPresent(dev.langchain4j.agent.tool.Tool.class)) {
                    declared.add(tool(namespace, object, method));
                }
            }
            declared.sort(Comparator.comparing(Tool::name));
            out.addAll(declared);
            if (out.size() == before) {
                throw new InvalidRequestException(
                        object.getClass().getName() + " has no @Tool method");
            }
        }
        return out;
    }

    private static Tool tool(String namespace, Object object, Method method) {
        ToolSpecification spec = ToolSpecifications.toolSpecificationFrom(method);
        String schema;
        try {
            schema =
                    spec.parameters() == null
                            ? "{\"type\":\"object\"}"
                            : JSON.writeValueAsString(
                                    JsonSchemaElementJsonUtils.toMap(spec.parameters()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the schema of tool " + spec.name(), e);
        }
        DefaultToolExecutor executor =
                DefaultToolExecutor.builder()
                        .object(object)
                        .originalMethod(method)
                        .methodToInvoke(method)
                        .propagateToolExecutionExceptions(true)
                        .build();
        return Tool.builder(namespace, spec.name())
                .withDescription(spec.description() == null ? "" : spec.description())
                .withParameters(schema)
                .withHandler(call -> execute(executor, spec, call))
                .build();
    }

    private static CompletableFuture<Object> execute(
            DefaultToolExecutor executor, ToolSpecification spec, ToolInvocation call) {
        String arguments;
        try {
            arguments = JSON.writeValueAsString(call.argumentMap());
        } catch (JsonProcessingException e) {
            throw new ToolException(ToolException.TOOL_FAILED, "arguments are not JSON");
        }
        ToolExecutionRequest request =
                ToolExecutionRequest.builder()
                        .id(call.id())
                        .name(spec.name())
                        .arguments(arguments)
                        .build();
        return CompletableFuture.supplyAsync(
                () -> {
                    String name = call.tool().namespace() + "/" + call.tool().name();
                    ToolExecutionResult r;
                    try {
                        r =
                                executor.executeWithContext(
                                        request, InvocationContext.builder().build());
                    } catch (RuntimeException e) {
                        Throwable cause = e;
                        while (cause.getCause() != null
                                && (cause.getMessage() == null
                                        || cause.getMessage()
                                                .equals(cause.getCause().toString()))) {
                            cause = cause.getCause();
                        }
                        throw new ToolException(
                                ToolException.TOOL_FAILED,
                                name
                                        + ": "
                                        + (cause.getMessage() == null
                                                ? cause.getClass().getSimpleName()
                                                : cause.getMessage()),
                                e);
                    }
                    if (r.isError()) {
                        throw new ToolException(
                                ToolException.TOOL_FAILED, name + ": " + r.resultText());
                    }
                    Object value = r.result();
                    if (value == null || value instanceof String) {
                        return value;
                    }
                    return JSON.convertValue(value, Object.class);
                },
                call.executor());
    }
}
