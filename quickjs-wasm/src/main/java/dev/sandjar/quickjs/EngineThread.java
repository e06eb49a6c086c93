package dev.sandjar.quickjs;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The one thread an engine's guest work runs on, with a large JVM stack (the engine's deep
 * recursion runs on it), and the queue of work waiting for it. One task runs at a time, in the
 * order queued. Knows nothing of the engine: {@link QuickJsEngine} wraps each task in its own
 * checks. {@link #call}, {@link #submit} and {@link #close} are thread-safe.
 */
final class EngineThread {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadLocal<EngineThread> CURRENT = new ThreadLocal<>();

    private final Thread thread;
    private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    EngineThread(long stackBytes) {
        this.thread =
                new Thread(
                        null,
                        this::loop,
                        "sandjar-engine-" + THREADS.incrementAndGet(),
                        stackBytes);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Whether the calling thread is some engine's thread. */
    static boolean onAnyEngineThread() {
        return CURRENT.get() != null;
    }

    /** Whether the calling thread is this one. */
    boolean isCurrent() {
        return Thread.currentThread() == thread;
    }

    private void loop() {
        CURRENT.set(this);
        while (!closed) {
            Runnable r;
            try {
                r = queue.take();
            } catch (InterruptedException e) {
                // Nothing ends this thread by interrupting it (close() queues a wake-up): an
                // interrupt aimed at the task that just ran must not kill the engine.
                continue;
            }
            r.run();
            Thread.interrupted(); // nor reach the next task
        }
        failQueued();
    }

    /** After close: every task still queued fails with "engine is closed". */
    private void failQueued() {
        for (Runnable r; (r = queue.poll()) != null; ) {
            r.run();
        }
    }

    /**
     * Runs {@code work} on this thread and returns its result; work already on this thread runs
     * inline. Exceptions the work throws are rethrown here.
     */
    <T> T call(Supplier<T> work) {
        if (isCurrent()) {
            return work.get();
        }
        CompletableFuture<T> result = submit(work);
        try {
            while (true) {
                try {
                    return result.get(1, TimeUnit.SECONDS);
                } catch (TimeoutException timeout) {
                    if (closed && !thread.isAlive()) {
                        throw new IllegalStateException("engine closed before the task ran");
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the engine thread", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }

    /**
     * Queues {@code work} after the work already queued and returns at once; the future completes
     * with its result or the exception it threw. Also from this thread itself, the work is queued,
     * not run inline.
     */
    <T> CompletableFuture<T> submit(Supplier<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(new IllegalStateException("engine is closed"));
            return result;
        }
        queue.add(
                () -> {
                    if (closed) {
                        result.completeExceptionally(
                                new IllegalStateException("engine closed before the task ran"));
                        return;
                    }
                    try {
                        result.complete(work.get());
                    } catch (Throwable t) {
                        result.completeExceptionally(t);
                    }
                });
        if (closed && !thread.isAlive()) {
            failQueued(); // the loop is gone: nothing else would ever run it
        }
        return result;
    }

    /**
     * Ends the thread once the task running now returns; waits up to 10 s for it unless called on
     * this thread. Queued tasks fail. Idempotent.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        queue.add(() -> {});
        if (!isCurrent()) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    boolean isClosed() {
        return closed;
    }
}
