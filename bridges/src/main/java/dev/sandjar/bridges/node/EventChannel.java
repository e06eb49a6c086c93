package dev.sandjar.bridges.node;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.SandboxClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One execution's ordered events, from the engine thread to the caller's {@link NodeListener} on a
 * delivery thread. Every event joins one queue in the order the body made it; emits alone are
 * bounded: the {@code n}-th emit's promise resolves once at most {@code capacity} emits, itself
 * included, wait undelivered (an emit counts until the listener has returned from it). Time a body
 * spends awaiting room is clock-suspended. Thread-safe.
 */
final class EventChannel {
    /** Emits a body may make beyond the queue's room without awaiting them. */
    static final int MAX_UNAWAITED = 1_000;

    private static final Logger LOG = Logger.getLogger(EventChannel.class.getName());

    private record Waiter(long sequence, CompletableFuture<Void> room, SandboxClock.Suspension s) {}

    private final NodeListener listener;
    private final int capacity;
    private final Executor executor;
    private final ArrayDeque<NodeEvent> queue = new ArrayDeque<>(); // guarded by this
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>(); // guarded by this
    private final List<CompletableFuture<Void>> drainedWaits = new ArrayList<>(); // guarded by this
    private long emits; // guarded by this
    private long delivered; // guarded by this: emits the listener returned from
    private boolean draining; // guarded by this
    private boolean closed; // guarded by this
    private long dropped; // guarded by this

    EventChannel(NodeListener listener, int capacity, Executor executor) {
        this.listener = listener;
        this.capacity = capacity;
        this.executor = executor;
    }

    /** Queues a log line or a progress report or outputs: never waits. */
    void add(NodeEvent event) {
        synchronized (this) {
            if (closed) {
                dropped++;
                return;
            }
            queue.add(event);
        }
        startDrain();
    }

    /**
     * Queues an emit. Returns null when there is room (the guest's promise resolves at once), or a
     * stage that completes when there is.
     */
    CompletableFuture<Void> emit(String handle, Object value, SandboxClock clock) {
        CompletableFuture<Void> room = null;
        synchronized (this) {
            if (emits + 1 - delivered > (long) capacity + MAX_UNAWAITED) {
                throw new BridgeException(
                        "RangeError",
                        "EMIT_QUEUE_FULL",
                        "emit: "
                                + (emits - delivered)
                                + " emits are undelivered and the queue holds "
                                + capacity
                                + "; await each emit(...) so the body waits for room");
            }
            long sequence = ++emits;
            if (closed) {
                dropped++;
                return null;
            }
            queue.add(new NodeEvent.Emit(handle, value, sequence));
            if (sequence - delivered > capacity) {
                room = new CompletableFuture<>();
                waiters.add(new Waiter(sequence, room, clock.suspend()));
            }
        }
        startDrain();
        return room;
    }

    /** Completes once everything queued so far has been delivered (or the channel closed). */
    CompletableFuture<Void> drained() {
        synchronized (this) {
            if (closed || (queue.isEmpty() && !draining)) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            drainedWaits.add(f);
            return f;
        }
    }

    /** Drops what is undelivered and releases every waiting emit; later events are dropped. */
    void close() {
        List<Waiter> release;
        List<CompletableFuture<Void>> done;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            dropped += queue.size();
            queue.clear();
            release = new ArrayList<>(waiters);
            waiters.clear();
            done = new ArrayList<>(drainedWaits);
            drainedWaits.clear();
        }
        for (Waiter w : release) {
            w.s().close();
            w.room().complete(null);
        }
        done.forEach(f -> f.complete(null));
    }

    /** Emits the body made so far. */
    synchronized long emits() {
        return emits;
    }

    /** Events dropped because the execution was cancelled before they were delivered. */
    synchronized long dropped() {
        return dropped;
    }

    private void startDrain() {
        synchronized (this) {
            if (draining || queue.isEmpty()) {
                return;
            }
            draining = true;
        }
        try {
            executor.execute(this::drain);
        } catch (RejectedExecutionException e) {
            close();
        }
    }

    private void drain() {
        while (true) {
            NodeEvent next;
            List<CompletableFuture<Void>> done = null;
            synchronized (this) {
                next = queue.poll();
                if (next == null) {
                    draining = false;
                    if (!drainedWaits.isEmpty()) {
                        done = new ArrayList<>(drainedWaits);
                        drainedWaits.clear();
                    }
                }
            }
            if (next == null) {
                if (done != null) {
                    done.forEach(f -> f.complete(null));
                }
                return;
            }
            try {
                listener.onEvent(next);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "a node listener failed on " + next, e);
            }
            if (next instanceof NodeEvent.Emit) {
                release();
            }
        }
    }

    /** One more emit was delivered: resolve the emits that now have room. */
    private void release() {
        List<Waiter> ready = new ArrayList<>();
        synchronized (this) {
            delivered++;
            while (!waiters.isEmpty() && waiters.peek().sequence() - delivered <= capacity) {
                ready.add(waiters.poll());
            }
        }
        for (Waiter w : ready) {
            w.s().close();
            w.room().complete(null);
        }
    }
}
