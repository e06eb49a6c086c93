package dev.sandjar.server.agents;

import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunResult;
import java.util.List;

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
}
