package dev.sandjar.bridges.node;

import dev.sandjar.host.LogEntry;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a node execution tells its {@link NodeListener}, in the order the body did it: values it
 * emitted, lines it logged, progress it reported, and the final outputs of each invocation that
 * completed. Values are what the transport decoded (maps, lists, strings, numbers, byte arrays,
 * ...), the caller's own copies.
 */
public sealed interface NodeEvent {
    /**
     * {@code await emit(handle, value)}.
     *
     * @param sequence 1 for the execution's first emit, then 2, 3, ...
     */
    record Emit(String handle, Object value, long sequence) implements NodeEvent {
        public Emit {
            Objects.requireNonNull(handle, "handle");
        }
    }

    /** A line the body logged (masked like the run's log). */
    record Log(LogEntry entry) implements NodeEvent {
        public Log {
            Objects.requireNonNull(entry, "entry");
        }
    }

    /** {@code progress(percent, message)}; {@code message} is null when the body gave none. */
    record Progress(double percent, String message) implements NodeEvent {}

    /**
     * An invocation completed: its final outputs (by handle, as {@code output} recorded them, or a
     * legacy body's returned keys) and the {@code state} it left.
     *
     * @param invocation 1 for the execution's first invocation (a per-item body has one per item)
     */
    record Outputs(Map<String, Object> outputs, Map<String, Object> state, int invocation)
            implements NodeEvent {
        public Outputs {
            outputs = Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
            state = Collections.unmodifiableMap(new LinkedHashMap<>(state));
        }
    }
}
