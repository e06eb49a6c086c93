package dev.sandjar.quickjs;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A fixed number of engine instances handed to concurrent callers, one caller per instance at a
 * time. A broken instance is closed on return and replaced by a fresh one. Thread-safe.
 */
public final class EnginePool implements AutoCloseable {
    private final EngineOptions options;
    private final BlockingQueue<QuickJsEngine> idle;
    private final int size;
    private volatile boolean closed;
    private final java.util.concurrent.atomic.AtomicInteger missing =
            new java.util.concurrent.atomic.AtomicInteger();

    /** A held engine; closing it returns the engine to the pool (or replaces it if broken). */
    public final class Lease implements AutoCloseable {
        private QuickJsEngine engine;

        private Lease(QuickJsEngine engine) {
            this.engine = engine;
        }

        public QuickJsEngine engine() {
            if (engine == null) {
                throw new IllegalStateException("lease already returned");
            }
            return engine;
        }

        @Override
        public void close() {
            if (engine == null) {
                throw new IllegalStateException("lease returned twice");
            }
            QuickJsEngine e = engine;
            engine = null;
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
        this.idle = new ArrayBlockingQueue<>(size);
        for (int i = 0; i < size; i++) {
            idle.add(QuickJsEngine.create(options));
        }
    }

    public int size() {
        return size;
    }

    /** Waits for an idle engine. */
    public Lease acquire() {
        if (closed) {
            throw new IllegalStateException("pool is closed");
        }
        QuickJsEngine ready = idle.poll();
        if (ready != null) {
            return new Lease(ready);
        }
        if (missing.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
            try {
                return new Lease(QuickJsEngine.create(options));
            } catch (RuntimeException e) {
                missing.incrementAndGet();
                throw e;
            }
        }
        try {
            return new Lease(idle.take());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for an engine", e);
        }
    }

    /** Waits at most {@code timeout}; null when none became idle in time. */
    public Lease tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
        QuickJsEngine e = idle.poll(timeout, unit);
        return e == null ? null : new Lease(e);
    }

    private void release(QuickJsEngine engine) {
        if (closed) {
            engine.close();
            return;
        }
        if (engine.isBroken() || engine.isClosed()) {
            engine.close();
            try {
                engine = QuickJsEngine.create(options);
            } catch (RuntimeException e) {
                missing.incrementAndGet(); // acquire() retries the creation
                return;
            }
        }
        idle.add(engine);
    }

    @Override
    public void close() {
        closed = true;
        List<QuickJsEngine> drained = new ArrayList<>();
        idle.drainTo(drained);
        drained.forEach(QuickJsEngine::close);
    }
}
