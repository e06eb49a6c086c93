package dev.sandjar.bridges.node;

/**
 * Receives a node execution's {@link NodeEvent}s. Called on one delivery thread per execution, one
 * event at a time, in order; different executions may call concurrently. It may block: a slow
 * listener holds the body at its next {@code await emit(...)} once the emit queue is full (that is
 * the backpressure), and the execution's result waits until every event was delivered. An exception
 * it throws is logged and the next event is delivered.
 */
@FunctionalInterface
public interface NodeListener {
    void onEvent(NodeEvent event);

    /** A listener that drops every event. */
    static NodeListener none() {
        return event -> {};
    }
}
