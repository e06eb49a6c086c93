package dev.sandjar.server.agents;

import dev.sandjar.host.SandboxClock;
import java.util.Map;
import java.util.concurrent.Executor;

/** One call of a {@link Tool} from an action, with arguments the schema accepted. */
public final class ToolInvocation {
    private final String id;
    private final Tool tool;
    private final Object arguments;
    private final Executor executor;
    private final SandboxClock clock;

    ToolInvocation(String id, Tool tool, Object arguments, Executor executor, SandboxClock clock) {
        this.id = id;
        this.tool = tool;
        this.arguments = arguments;
        this.executor = executor;
        this.clock = clock;
    }

    /** The call's id within the action ({@code call_1}, {@code call_2}, ...). */
    public String id() {
        return id;
    }

    public Tool tool() {
        return tool;
    }

    /** The arguments as the guest passed them (an empty map when it passed none). */
    public Object arguments() {
        return arguments;
    }

    /** The arguments as an object; empty when the guest passed none. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> argumentMap() {
        return arguments instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    /** The sandbox's executor for blocking work (I/O). */
    public Executor executor() {
        return executor;
    }

    /**
     * Suspends the action's clock until the returned suspension is closed: for a wait that is not
     * the action's doing, such as a person's approval. The wait then does not count against the
     * action's wall-clock bound (up to its {@code suspendAllowance}); its CPU budget is never
     * suspended. Close it when the wait ends, on any thread; closing twice is a no-op.
     */
    public SandboxClock.Suspension suspendClock() {
        return clock.suspend();
    }
}
