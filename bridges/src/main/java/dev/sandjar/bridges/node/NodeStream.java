package dev.sandjar.bridges.node;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Flow;

/**
 * The items of one of a node's input handles, as they arrive, until the stream ends: what a body
 * reads with {@code stream(name)}, {@code stream.any()} and {@code stream.first(name)}, or what
 * runs a per-item body once per item. Items are values the transport carries (maps, lists, strings,
 * numbers, byte arrays, ...; {@code null} is JavaScript {@code null}) and enter the guest as deep
 * copies.
 *
 * <p>Three kinds: {@link #of} a fixed list, {@link #feed} a bounded queue the caller puts into from
 * any thread (blocking when full) and ends, and {@link #from} a {@link Flow.Publisher} read one
 * item per request. The guest pulls: nothing is taken from a source before the body asks for it (a
 * publisher is asked for one item at a time). A stream serves one execution; thread-safe.
 */
public abstract class NodeStream {
    /** What {@link #poll} answers when no item is ready yet. */
    static final Object NONE = new Object();

    /** What {@link #poll} answers once the stream has ended and every item was taken. */
    static final Object END = new Object();

    /** A failed stream: taking from it throws in the guest with this message. */
    record Failure(String message) {}

    private final List<Runnable> waiting = new ArrayList<>(); // guarded by this

    NodeStream() {}

    /** A stream of {@code items}, then its end. */
    public static NodeStream of(List<?> items) {
        return new Fixed(items);
    }

    /** A stream the caller feeds with {@link NodeFeed#put} and ends with {@link NodeFeed#end}. */
    public static NodeFeed feed(int capacity) {
        return new NodeFeed(capacity);
    }

    /**
     * A stream of what {@code publisher} publishes: subscribed when the execution starts, asked for
     * one item whenever the body waits for one and none is buffered; {@code onComplete} ends the
     * stream, {@code onError} fails it (the take throws in the guest, naming the handle), and the
     * subscription is cancelled when the execution ends.
     */
    public static NodeStream from(Flow.Publisher<?> publisher) {
        return new Published(publisher);
    }

    /** The next item, {@link #NONE}, {@link #END} or a {@link Failure}, without waiting. */
    abstract Object poll();

    /** Whether more may still arrive: false once ended with nothing left. Consumes nothing. */
    abstract boolean isOpen();

    /** Starts the stream for an execution (a publisher subscribes). */
    void start() {}

    /** The execution ended: release what the stream holds. */
    void close() {}

    /**
     * Runs {@code action} once, the next time {@link #poll} may answer differently (an item came,
     * the stream ended or failed). A change between the caller's last poll and this call is not
     * seen: the caller polls again after registering.
     */
    final void whenReady(Runnable action) {
        synchronized (this) {
            waiting.add(action);
        }
    }

    /** Wakes everything waiting: call after a change {@link #poll} can see, outside any lock. */
    final void signal() {
        List<Runnable> now;
        synchronized (this) {
            if (waiting.isEmpty()) {
                return;
            }
            now = new ArrayList<>(waiting);
            waiting.clear();
        }
        now.forEach(Runnable::run);
    }

    /** A list: every item is ready at once. */
    private static final class Fixed extends NodeStream {
        private final List<Object> items;
        private int next; // guarded by this

        Fixed(List<?> items) {
            this.items = Collections.unmodifiableList(new ArrayList<>(items));
        }

        @Override
        synchronized Object poll() {
            return next < items.size() ? items.get(next++) : END;
        }

        @Override
        synchronized boolean isOpen() {
            return next < items.size();
        }
    }

    /** A publisher, asked for one item at a time. */
    private static final class Published extends NodeStream implements Flow.Subscriber<Object> {
        private final Flow.Publisher<?> publisher;
        private final ArrayDeque<Object> buffer = new ArrayDeque<>(); // guarded by this
        private Flow.Subscription subscription; // guarded by this
        private boolean requested; // guarded by this
        private boolean complete; // guarded by this
        private String failure; // guarded by this
        private boolean closed; // guarded by this

        Published(Flow.Publisher<?> publisher) {
            this.publisher = Objects.requireNonNull(publisher, "publisher");
        }

        @Override
        @SuppressWarnings("unchecked")
        void start() {
            ((Flow.Publisher<Object>) publisher).subscribe(this);
        }

        @Override
        Object poll() {
            Flow.Subscription ask = null;
            Object answer;
            synchronized (this) {
                if (!buffer.isEmpty()) {
                    Object item = buffer.poll();
                    return item == NodeFeed.NULL ? null : item;
                }
                if (failure != null) {
                    return new Failure(failure);
                }
                if (complete) {
                    return END;
                }
                if (!requested && subscription != null) {
                    requested = true;
                    ask = subscription;
                }
                answer = NONE;
            }
            if (ask != null) {
                ask.request(1); // may deliver at once, on this thread: then signal() wakes the take
            }
            return answer;
        }

        @Override
        synchronized boolean isOpen() {
            return !buffer.isEmpty() || (!complete && failure == null);
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            boolean cancel;
            synchronized (this) {
                cancel = closed || subscription != null;
                if (!cancel) {
                    subscription = s;
                }
            }
            if (cancel) {
                s.cancel();
            } else {
                signal(); // a take that waited for the subscription can ask now
            }
        }

        @Override
        public void onNext(Object item) {
            synchronized (this) {
                requested = false;
                buffer.add(item == null ? NodeFeed.NULL : item);
            }
            signal();
        }

        @Override
        public void onError(Throwable t) {
            synchronized (this) {
                failure = String.valueOf(t.getMessage());
            }
            signal();
        }

        @Override
        public void onComplete() {
            synchronized (this) {
                complete = true;
            }
            signal();
        }

        @Override
        void close() {
            Flow.Subscription s;
            synchronized (this) {
                closed = true;
                s = subscription;
            }
            if (s != null) {
                s.cancel();
            }
        }
    }
}
