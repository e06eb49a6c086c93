package dev.sandjar.server.agents;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A {@code tool_call} event: one tool invocation of an action, reported when it settles.
 *
 * @param id {@code call_<n>}, numbered from 1 in the order the action made the calls
 * @param name {@code namespace/name}
 * @param arguments the arguments as the guest passed them
 * @param ok whether the call returned a value to the guest
 * @param value the value returned (null when not ok)
 * @param errorCode the {@code code} the guest's error carries (null when ok)
 * @param errorMessage the guest error's message (null when ok)
 * @param duration from the call to its outcome
 */
public record ToolCallEvent(
        String id,
        String name,
        Object arguments,
        boolean ok,
        Object value,
        String errorCode,
        String errorMessage,
        Duration duration) {
    /** The event type, as event streams name it. */
    public static final String TYPE = "tool_call";

    public ToolCallEvent {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(duration, "duration");
    }

    /**
     * As JSON-friendly values: id, name, arguments, ok, durationMs, then value or error; the
     * arguments and the value as {@code ./sandjar run} prints a result ({@link ActionResult#json}).
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("name", name);
        m.put("arguments", ActionResult.json(arguments, "arguments"));
        m.put("ok", ok);
        m.put("durationMs", duration.toMillis());
        if (ok) {
            m.put("value", ActionResult.json(value, "value"));
        } else {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("code", errorCode);
            e.put("message", errorMessage);
            m.put("error", e);
        }
        return m;
    }
}
