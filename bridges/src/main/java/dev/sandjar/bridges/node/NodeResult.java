package dev.sandjar.bridges.node;

import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunResult;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a node execution ended: the final outputs of its last invocation (empty when it failed: a
 * body that throws keeps what it emitted and loses its finals), the {@code state} to hand to the
 * node's next execution in this workflow run (unchanged by a failed invocation), warnings (a legacy
 * body's deprecation), and its error. Immutable.
 */
public final class NodeResult {
    private final RunError error;
    private final Map<String, Object> outputs;
    private final Map<String, Object> state;
    private final List<String> warnings;
    private final int invocations;
    private final long emitted;
    private final long dropped;
    private final List<LogEntry> logs;
    private final RunResult lastRun;

    NodeResult(
            RunError error,
            Map<String, Object> outputs,
            Map<String, Object> state,
            List<String> warnings,
            int invocations,
            long emitted,
            long dropped,
            List<LogEntry> logs,
            RunResult lastRun) {
        this.error = error;
        this.outputs = Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
        this.state = Collections.unmodifiableMap(new LinkedHashMap<>(state));
        this.warnings = List.copyOf(warnings);
        this.invocations = invocations;
        this.emitted = emitted;
        this.dropped = dropped;
        this.logs = List.copyOf(logs);
        this.lastRun = lastRun;
    }

    public boolean isOk() {
        return error == null;
    }

    /** The error that ended the execution; null when it succeeded. */
    public RunError error() {
        return error;
    }

    /** The last invocation's final outputs by handle; empty after a failure. */
    public Map<String, Object> outputs() {
        return outputs;
    }

    /** The state after the last successful invocation: hand it to the next execution. */
    public Map<String, Object> state() {
        return state;
    }

    public List<String> warnings() {
        return warnings;
    }

    /** How many times the body ran: one, or one per item for a per-item body. */
    public int invocations() {
        return invocations;
    }

    /** How many values the body emitted. */
    public long emitted() {
        return emitted;
    }

    /** Events not delivered because the execution was cancelled first. */
    public long droppedEvents() {
        return dropped;
    }

    /** Every invocation's log, in order. */
    public List<LogEntry> logs() {
        return logs;
    }

    /** The last invocation's run (its statistics, limits); null when none started. */
    public RunResult lastRun() {
        return lastRun;
    }

    @Override
    public String toString() {
        return isOk()
                ? "NodeResult[ok, outputs="
                        + outputs.keySet()
                        + ", invocations="
                        + invocations
                        + "]"
                : "NodeResult[" + error.kind() + ": " + error.message() + "]";
    }
}
