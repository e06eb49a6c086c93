package dev.sandjar.host;

import java.util.List;
import java.util.Objects;

/**
 * A lambda whose module stays instantiated between calls (docs/sessions.md, "Warm mode"): the first
 * call evaluates the module, later calls call its exports again with whatever its module scope
 * holds (caches, counters), which trades the isolation of a fresh context for speed. Between calls
 * it holds an engine image, not an engine, and counts against the sandbox's {@code maxSessions};
 * idle past 15 minutes it closes. Thread-safe: calls run one at a time, in order.
 */
public final class WarmLambda implements AutoCloseable {
    private final Sandbox sandbox;
    private final RunRequest module;
    private final SandboxSession state;

    WarmLambda(Sandbox sandbox, RunRequest module, SandboxSession state) {
        this.sandbox = sandbox;
        this.module = module;
        this.state = state;
    }

    /**
     * Calls the exported {@code function} with {@code args} and waits for its result.
     *
     * @throws SessionException when the lambda was closed or expired
     */
    public synchronized RunResult call(String function, List<?> args) {
        Objects.requireNonNull(function, "function");
        Sandbox.refuseOnEngineThread("WarmLambda.call", "a Sandbox.submitCall");
        List<Bridge> linked = state.linked();
        LambdaCall call =
                new LambdaCall(
                        Sandbox.function(function),
                        Sandbox.checkedArgs(args),
                        linked == null,
                        linked);
        return sandbox.await(state.start(module, call));
    }

    /** Whether the module is instantiated (a first call got as far as evaluating it). */
    public boolean isWarm() {
        return state.linked() != null;
    }

    public boolean isOpen() {
        return state.isOpen();
    }

    @Override
    public void close() {
        state.close();
    }
}
