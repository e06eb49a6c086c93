package dev.sandjar.bridges.node;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A node input stream the caller feeds: {@link #put} items from any thread, then {@link #end} it
 * (or {@link #fail} it). Holds at most {@code capacity} items the body has not taken; {@code put}
 * blocks while it is full, so a producer runs no further ahead of the body than that. From {@link
 * NodeStream#feed}. Thread-safe.
 */
public final class NodeFeed extends NodeStream {
    /** The most items a feed can hold. */
    public static final int MAX_CAPACITY = 1_000_000;

    /** Stands for a {@code null} item in a queue that cannot hold one. */
    static final Object NULL = new Object();

    private final int capacity;
    private final ArrayDeque<Object> items = new ArrayDeque<>(); // guarded by this
    private boolean ended; // guarded by this
    private String failure; // guarded by this
    private boolean closed; // guarded by this: the execution ended, nothing will take

    NodeFeed(int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    "a feed's capacity must be from 1 to " + MAX_CAPACITY + ", got " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * Adds an item, waiting while the feed is full.
     *
     * @throws IllegalStateException when the feed was ended or failed
     * @throws InterruptedException when interrupted while waiting (the item is not added)
     */
    public void put(Object item) throws InterruptedException {
        synchronized (this) {
            while (items.size() >= capacity && !closed) {
                checkOpen();
                wait();
            }
            checkOpen();
            if (closed) {
                return; // the execution is over: the item would never be read
            }
            items.add(item == null ? NULL : item);
        }
        signal();
    }

    /**
     * Adds an item if there is room within {@code timeout}.
     *
     * @return whether it was added (false when full for that long, or the execution is over)
     * @throws IllegalStateException when the feed was ended or failed
     */
    public boolean offer(Object item, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (items.size() >= capacity && !closed) {
                checkOpen();
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                wait(Math.max(1, left / 1_000_000), 0);
            }
            checkOpen();
            if (closed) {
                return false;
            }
            items.add(item == null ? NULL : item);
        }
        signal();
        return true;
    }

    /** Ends the stream: the body reads what is queued, then end of stream. Idempotent. */
    public void end() {
        synchronized (this) {
            ended = true;
            notifyAll();
        }
        signal();
    }

    /**
     * Fails the stream: once what is queued is read, the body's next take throws an error with
     * {@code message}, naming the handle.
     */
    public void fail(String message) {
        Objects.requireNonNull(message, "message");
        synchronized (this) {
            if (!ended && failure == null) {
                failure = message;
            }
            notifyAll();
        }
        signal();
    }

    /** Items queued and not yet taken. */
    public synchronized int size() {
        return items.size();
    }

    private void checkOpen() {
        if (ended || failure != null) {
            throw new IllegalStateException("the feed was " + (ended ? "ended" : "failed"));
        }
    }

    @Override
    Object poll() {
        synchronized (this) {
            Object item = items.poll();
            if (item != null) {
                notifyAll(); // room for a waiting put
                return item == NULL ? null : item;
            }
            if (failure != null) {
                return new Failure(failure);
            }
            return ended ? END : NONE;
        }
    }

    @Override
    synchronized boolean isOpen() {
        return !items.isEmpty() || (!ended && failure == null);
    }

    @Override
    void close() {
        synchronized (this) {
            closed = true;
            notifyAll(); // a producer blocked in put() returns
        }
    }
}
