package dev.sandjar.quickjs;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A fixed number of engine instances handed to concurrent callers, one caller per instance at a
 * time, first come first served. A broken instance is closed on return and replaced by a fresh one.
 * Thread-safe.
 */
public final class EnginePool implements AutoCloseable {
    private final EngineOptions options;
    private final int size;
    private final Object lock = new Object();
    private final ArrayDeque<QuickJsEngine> idle = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<Lease>> waiters = new ArrayDeque<>();

    /** Instances that could not be replaced; the next acquire creates one. */
    private int missing;

    private boolean closed;

    /** A held engine; closing it returns the engine to the pool (or replaces it if broken). */
    public final class Lease implements AutoCloseable {
        private QuickJsEngine engine;
        private boolean retire;

        private Lease(QuickJsEngine engine) {
            this.engine = engine;
        }

        public QuickJsEngine engine() {
            if (engine == null) {
                throw new IllegalStateException("lease already returned");
            }
            return engine;
        }

        /**
         * Closes the held engine and holds a freshly created one instead, for a caller that needs
         * an engine in its initial state (for example one whose memory has not grown). Call it
         * while no task of this lease is queued on the old engine.
         */
        public QuickJsEngine replaceEngine() {
            QuickJsEngine old = engine();
            engine = QuickJsEngine.create(options);
            old.close();
            return engine;
        }

        /** On {@link #close()}, replace the engine with a fresh one instead of reusing it. */
        public void retire() {
            engine();
            retire = true;
        }

        @Override
        public void close() {
            if (engine == null) {
                throw new IllegalStateException("lease returned twice");
            }
            QuickJsEngine e = engine;
            engine = null;
            if (retire) {
                e.close();
            }
            release(e);
        }
    }

    public EnginePool(int size, EngineOptions options) {
        if (size < 1 || size > 256) {
            throw new IllegalArgumentException(
                    "pool size (" + size + ") must be between 1 and 256");
        }
        this.size = size;
        this.options = options;
        try {
            for (int i = 0; i < size; i++) {
                idle.add(QuickJsEngine.create(options));
            }
        } catch (RuntimeException e) {
            idle.forEach(QuickJsEngine::close);
            throw e;
        }
    }

    public int size() {
        return size;
    }

    public EngineOptions options() {
        return options;
    }

    /**
     * A lease as soon as an engine is idle, in request order. Cancelling the returned future while
     * it waits gives up the place in line.
     */
    public CompletableFuture<Lease> acquireAsync() {
        QuickJsEngine ready;
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("pool is closed"));
            }
            ready = idle.poll();
            if (ready == null && missing == 0) {
                CompletableFuture<Lease> waiter = new CompletableFuture<>();
                waiters.add(waiter);
                return waiter;
            }
            if (ready == null) {
                missing--;
            }
        }
        if (ready != null) {
            return CompletableFuture.completedFuture(new Lease(ready));
        }
        try {
            return CompletableFuture.completedFuture(new Lease(QuickJsEngine.create(options)));
        } catch (RuntimeException e) {
            synchronized (lock) {
                missing++;
            }
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Waits for an idle engine. */
    public Lease acquire() {
        CompletableFuture<Lease> f = acquireAsync();
        try {
            return f.get();
        } catch (InterruptedException e) {
            giveUp(f);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for an engine", e);
        } catch (ExecutionException e) {
            throw rethrow(e);
        }
    }

    /** Waits at most {@code timeout}; null when none became idle in time. */
    public Lease tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
        CompletableFuture<Lease> f = acquireAsync();
        try {
            return f.get(timeout, unit);
        } catch (TimeoutException e) {
            return giveUp(f);
        } catch (InterruptedException e) {
            giveUp(f);
            throw e;
        } catch (ExecutionException e) {
            throw rethrow(e);
        }
    }

    /** Withdraws a waiter; a lease that was granted meanwhile goes back to the pool. */
    private Lease giveUp(CompletableFuture<Lease> f) {
        if (!f.cancel(false)) {
            try {
                f.join().close();
            } catch (CancellationException | java.util.concurrent.CompletionException ignored) {
                // nothing was granted
            }
        }
        return null;
    }

    private static RuntimeException rethrow(ExecutionException e) {
        return e.getCause() instanceof RuntimeException re
                ? re
                : new IllegalStateException(e.getCause());
    }

    private void release(QuickJsEngine engine) {
        if (engine.isBroken() || engine.isClosed()) {
            engine.close();
            try {
                engine = QuickJsEngine.create(options);
            } catch (RuntimeException e) {
                CompletableFuture<Lease> waiter;
                synchronized (lock) {
                    missing++;
                    waiter = closed ? null : waiters.poll();
                }
                if (waiter != null) {
                    waiter.completeExceptionally(e);
                }
                return;
            }
        }
        while (true) {
            CompletableFuture<Lease> waiter;
            synchronized (lock) {
                if (closed) {
                    break;
                }
                waiter = waiters.poll();
                if (waiter == null) {
                    idle.add(engine);
                    return;
                }
            }
            if (waiter.complete(new Lease(engine))) {
                return;
            }
            // that waiter gave up; try the next one
        }
        engine.close();
    }

    @Override
    public void close() {
        List<QuickJsEngine> drained;
        List<CompletableFuture<Lease>> pending;
        synchronized (lock) {
            closed = true;
            drained = new ArrayList<>(idle);
            idle.clear();
            pending = new ArrayList<>(waiters);
            waiters.clear();
        }
        pending.forEach(w -> w.completeExceptionally(new IllegalStateException("pool is closed")));
        drained.forEach(QuickJsEngine::close);
    }
}
