package dev.sandjar.bridges.node;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.SandboxClock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * One execution's input streams, and the takes waiting on them. A take answers at once when an item
 * is ready; else it waits (clock-suspended) until one arrives, the stream ends, or the execution
 * ends, which answers every waiting take with end of stream. {@code any} serves the handles
 * round-robin among those with an item ready, starting after the handle it served last (so lists
 * interleave by index), and otherwise the first to receive one. Thread-safe.
 */
final class StreamHub {
    /** A take's answer, the shape the guest script reads. */
    static Map<String, Object> item(String handle, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("done", false);
        if (handle != null) {
            m.put("handle", handle);
        }
        m.put("value", value);
        return m;
    }

    static final Map<String, Object> END = Map.of("done", true);

    private final Map<String, NodeStream> streams; // connected handles, in declared order
    private final Set<String> declared; // every declared input, connected or not
    private final List<CompletableFuture<Object>> pending = new ArrayList<>(); // guarded by this
    private final List<String> order;
    private int lastServed = -1; // guarded by this: index in order of the handle any() served last
    private boolean closed; // guarded by this

    StreamHub(Map<String, NodeStream> streams, Set<String> declared) {
        this.streams = streams;
        this.declared = declared;
        this.order = List.copyOf(streams.keySet());
    }

    boolean isEmpty() {
        return streams.isEmpty();
    }

    Set<String> connected() {
        return streams.keySet();
    }

    void start() {
        streams.values().forEach(NodeStream::start);
    }

    /** {@code stream.open(name)}. */
    boolean isOpen(String where, Object name) {
        NodeStream s = stream(where, name);
        return s != null && s.isOpen();
    }

    /** {@code stream(name)}'s next item, or {@link #END}; a value or a stage of one. */
    Object take(String where, Object name, SandboxClock clock) {
        NodeStream s = stream(where, name);
        if (s == null) {
            return END; // a declared input nothing is connected to: an empty stream
        }
        String handle = (String) name;
        return await(() -> answer(handle, s.poll(), false), List.of(s), clock);
    }

    /** {@code stream.any()}'s next {@code [handle, item]}, or {@link #END} once all have ended. */
    Object takeAny(SandboxClock clock) {
        return await(this::pollAny, new ArrayList<>(streams.values()), clock);
    }

    /** The next item of any handle for a per-item body, as {@link #item}; or {@link #END}. */
    CompletableFuture<Object> nextItem() {
        Object now = pollAny();
        if (now != null) {
            return CompletableFuture.completedFuture(now);
        }
        CompletableFuture<Object> f = new CompletableFuture<>();
        retry(f, this::pollAny, new ArrayList<>(streams.values()));
        return f;
    }

    /** Ends every waiting take with end of stream and releases the streams. */
    void close() {
        List<CompletableFuture<Object>> waiting;
        synchronized (this) {
            closed = true;
            waiting = new ArrayList<>(pending);
            pending.clear();
        }
        waiting.forEach(f -> f.complete(END));
        streams.values().forEach(NodeStream::close);
    }

    private NodeStream stream(String where, Object name) {
        if (!(name instanceof String handle)) {
            throw new BridgeException(
                    "TypeError",
                    BridgeException.INVALID_ARGUMENT,
                    where + ": the handle name must be a string; the inputs are " + declared);
        }
        if (!declared.contains(handle)) {
            throw new BridgeException(
                    "Error",
                    "UNDECLARED_INPUT",
                    where
                            + ": '"
                            + handle
                            + "' is not a declared input; the inputs are "
                            + declared);
        }
        return streams.get(handle);
    }

    /** The answer to a poll, null when there is none yet. */
    private static Object answer(String handle, Object polled, boolean withHandle) {
        if (polled == NodeStream.NONE) {
            return null;
        }
        if (polled == NodeStream.END) {
            return END;
        }
        if (polled instanceof NodeStream.Failure f) {
            throw new BridgeException(
                    "Error", "STREAM_FAILED", "stream '" + handle + "' failed: " + f.message());
        }
        return item(withHandle ? handle : null, polled);
    }

    /** Round-robin over the handles with an item ready; END when all ended; null to wait. */
    private synchronized Object pollAny() {
        int n = order.size();
        boolean open = false;
        for (int k = 1; k <= n; k++) {
            int i = (lastServed + k) % n;
            String handle = order.get(i);
            Object a = answer(handle, streams.get(handle).poll(), true);
            if (a == null) {
                open = true;
            } else if (a != END) {
                lastServed = i;
                return a;
            }
        }
        return open ? null : END;
    }

    private Object await(Supplier<Object> poll, List<NodeStream> sources, SandboxClock clock) {
        Object now = poll.get();
        if (now != null) {
            return now;
        }
        CompletableFuture<Object> f = new CompletableFuture<>();
        synchronized (this) {
            if (closed) {
                return END;
            }
            pending.add(f);
        }
        SandboxClock.Suspension waiting = clock.suspend(); // waiting is not executing
        f.whenComplete(
                (v, e) -> {
                    waiting.close();
                    synchronized (this) {
                        pending.remove(f);
                    }
                });
        retry(f, poll, sources);
        return f;
    }

    /**
     * Answers {@code f} from {@code poll}, now or once one of the open {@code sources} changes.
     * Each attempt registers before it polls, so a change in between is never missed; attempts are
     * serialized on {@code f}, so two wake-ups never take two items for one take.
     */
    private static void retry(
            CompletableFuture<Object> f, Supplier<Object> poll, List<NodeStream> sources) {
        Runnable attempt =
                new Runnable() {
                    @Override
                    public void run() {
                        synchronized (f) {
                            if (f.isDone()) {
                                return;
                            }
                            for (NodeStream s : sources) {
                                if (s.isOpen()) { // an ended stream never changes again
                                    s.whenReady(this);
                                }
                            }
                            try {
                                Object a = poll.get();
                                if (a != null) {
                                    f.complete(a);
                                }
                            } catch (RuntimeException e) {
                                f.completeExceptionally(e);
                            }
                        }
                    }
                };
        attempt.run();
    }
}
