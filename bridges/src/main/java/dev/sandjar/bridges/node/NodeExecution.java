package dev.sandjar.bridges.node;

import java.util.concurrent.CompletableFuture;

/**
 * A node execution under way, from {@link CodeNode#start}. Thread-safe.
 *
 * <p>{@link #cancel()} stops it: the running invocation is cancelled, every pending take answers
 * end of stream, no further invocation starts, undelivered events are dropped (counted in {@link
 * NodeResult#droppedEvents()}), and the result ends {@code CANCELLED}.
 */
public interface NodeExecution {
    /** Completes once the execution ended and its events were delivered; never exceptionally. */
    CompletableFuture<NodeResult> result();

    void cancel();
}
