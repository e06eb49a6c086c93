package dev.sandjar.server.agents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.ValueJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one action did: whether it called {@code finish} with an accepted result, that result, its
 * tool calls in order, and the run itself (value, logs, error).
 *
 * @param finished whether {@code finish(result)} accepted a result
 * @param result the accepted result (null when not finished)
 * @param toolCalls every tool call's event, in the order they settled
 * @param run the sandbox run; null when the action was refused before it started
 * @param refusal why the action did not start (an import outside its consent); null when it ran
 */
public record ActionResult(
        boolean finished,
        Object result,
        List<ToolCallEvent> toolCalls,
        RunResult run,
        RunError refusal) {
    public ActionResult {
        toolCalls = List.copyOf(toolCalls);
    }

    /** Whether the action ran to its end without an uncaught error (finished or not). */
    public boolean ran() {
        return run != null && run.isOk();
    }

    /** The refusal, or the run's error, or null. */
    public RunError error() {
        return refusal != null ? refusal : run.isOk() ? null : run.error();
    }

    public List<LogEntry> logs() {
        return run == null ? List.of() : run.logs();
    }

    /**
     * The outcome as JSON-ready maps, the one shape {@code ./sandjar act}, {@code execute_code}
     * over MCP and the LangChain4j adapter report: {@code {"finished", "result", "toolCalls":
     * [{"id", "name", "arguments", "ok", "durationMs", "value" | "error"}], "logs": [{"level",
     * "message"}], "error": null | {"kind", "name", "message", "line"?, "column"?}}}. The guest's
     * values ({@code result}, a call's {@code arguments} and {@code value}) are as {@code ./sandjar
     * run} prints a result ({@link #json}).
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("finished", finished);
        m.put("result", json(result, "result"));
        m.put("toolCalls", toolCalls.stream().map(ToolCallEvent::toMap).toList());
        List<Map<String, Object>> lines = new ArrayList<>();
        for (LogEntry e : logs()) {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("level", e.level().name().toLowerCase(Locale.ROOT));
            l.put("message", e.message());
            lines.add(l);
        }
        m.put("logs", lines);
        RunError e = error();
        if (e == null) {
            m.put("error", null);
        } else {
            Map<String, Object> err = new LinkedHashMap<>();
            err.put("kind", e.kind().name());
            err.put("name", e.name());
            err.put("message", e.message());
            if (e.line() > 0) {
                err.put("line", e.line());
                err.put("column", e.column());
            }
            m.put("error", err);
        }
        return m;
    }

    private static final ObjectReader VALUES =
            JsonSchemas.JSON
                    .reader()
                    .with(DeserializationFeature.USE_LONG_FOR_INTS)
                    .forType(Object.class);

    /**
     * A guest value (the transport's Java types) as plain JSON-ready values: what JSON holds as
     * itself, the rest as the transport's markers ({@code {"$sj":"undef"}}, bytes as base64, dates,
     * bigints, maps, sets: docs/transport.md), exactly as {@code RunResult.valueJson()} writes
     * them. A serializer that meets {@code Undefined} or an {@code Instant} on its own would write
     * {@code "INSTANCE"} or fail.
     */
    static Object json(Object value, String what) {
        try {
            return VALUES.readValue(ValueJson.write(value, what));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the transport wrote JSON Jackson cannot read", e);
        }
    }
}
