package dev.sandjar.host;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * One run's host work (docs/sandbox.md, "Host work"): the calls its bridges start with {@link
 * RunSession#work} and {@link RunSession#isolated}, and the CPU time they used, which counts
 * against the run's {@code timeout} together with the guest's. At most {@link #CONCURRENT_CALLS}
 * in-process calls and one isolated call of a run work at once; the rest wait in order. When the
 * run ends, calls still waiting are dropped, calls working are stopped (in process: {@link
 * HostCall#check()} throws and the thread is interrupted; in a worker: the process is ended), and
 * their guest promises were already settled by the run's end. Thread-safe.
 */
final class HostAccount {
    /** In-process calls of one run that work at once. */
    static final int CONCURRENT_CALLS = 2;

    /**
     * How many times {@code hostBytes} an in-process call may allocate before the meter stops it.
     * Allocation counts garbage too (decoding a PNG allocates three to four times its pixels'
     * bytes, a CSV parse several times its text), so the meter allows for it; it stops work that
     * runs away, while what a call holds is bounded before it starts wherever its size is known.
     */
    static final long ALLOCATION_FACTOR = 4;

    private static final Logger LOG = Logger.getLogger(HostAccount.class.getName());

    private final Sandbox sandbox;
    private final String runId;
    private final Limits limits;
    private final RunBudget budget;
    private final Runnable wake;
    private final AtomicLong cpu = new AtomicLong();
    private final Deque<Runnable> queued = new ArrayDeque<>(); // guarded by this
    private final List<LocalCall> working = new ArrayList<>(); // guarded by this
    private final Deque<IsolatedCall> isolatedQueue = new ArrayDeque<>(); // guarded by this
    private IsolatedCall isolatedRunning; // guarded by this
    private int active; // guarded by this
    private boolean ended; // guarded by this
    private volatile Thread engineThread;
    private final List<HostMemory> memories;
    private final List<Held> reservations = new ArrayList<>(); // guarded by this

    /**
     * @param wake wakes the run's event loop, so it sees a budget the host work spent at once
     * @param requested the request's host-memory budgets; the sandbox's own comes first
     */
    HostAccount(
            Sandbox sandbox,
            String runId,
            Limits limits,
            RunBudget budget,
            Runnable wake,
            List<HostMemory> requested) {
        this.sandbox = sandbox;
        this.runId = runId;
        this.limits = limits;
        this.budget = budget;
        this.wake = wake;
        List<HostMemory> all = new ArrayList<>();
        all.add(sandbox.hostMemory());
        all.addAll(requested);
        this.memories = List.copyOf(all);
    }

    /** The host-memory budgets this run's host work counts against. */
    List<HostMemory> memories() {
        return memories;
    }

    /** Takes {@code bytes} of every budget, or none of them ({@code HOST_MEMORY_LIMIT}). */
    RunSession.Reservation reserve(String where, long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes (" + bytes + ") must be >= 0");
        }
        for (int i = 0; i < memories.size(); i++) {
            HostMemory m = memories.get(i);
            if (!m.tryReserve(bytes)) {
                for (int j = 0; j < i; j++) {
                    memories.get(j).release(bytes);
                }
                throw m.exhausted(where, bytes);
            }
        }
        Held held = new Held(bytes);
        boolean late;
        synchronized (this) {
            late = ended;
            if (!late) {
                reservations.add(held);
            }
        }
        if (late) {
            held.close();
            throw BridgeException.cancelled(where + ": the run has ended");
        }
        return held;
    }

    /** Reserved bytes, given back once whether closed or released with the run. */
    private final class Held implements RunSession.Reservation {
        private final long bytes;
        private final java.util.concurrent.atomic.AtomicBoolean open =
                new java.util.concurrent.atomic.AtomicBoolean(true);

        Held(long bytes) {
            this.bytes = bytes;
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                for (HostMemory m : memories) {
                    m.release(bytes);
                }
                synchronized (HostAccount.this) {
                    reservations.remove(this);
                }
            }
        }
    }

    /** The run's engine thread, once the run has one (its CPU is the guest's). */
    void engineThread(Thread t) {
        engineThread = t;
    }

    /** CPU time the run's host work has used so far, working calls included (as last metered). */
    long cpuNanos() {
        return cpu.get();
    }

    <T> CompletableFuture<T> work(String where, Function<HostCall, T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        LocalCall call = new LocalCall(where, result);
        Runnable start = () -> sandbox.hostExecutor().execute(() -> call.run(task, result));
        synchronized (this) {
            if (ended) {
                throw BridgeException.cancelled(where + ": the run has ended");
            }
            refuseWhenSpent(where);
            working.add(call);
            if (active < CONCURRENT_CALLS) {
                active++;
            } else {
                queued.addLast(start);
                return result;
            }
        }
        start.run();
        return result;
    }

    /** {@link #isolatedForGuest}, its value as Java values. */
    CompletableFuture<Object> isolated(
            String where, Class<? extends IsolatedTask> task, Object input) {
        CompletableFuture<Object> raw = isolatedForGuest(where, task, input);
        CompletableFuture<Object> decoded =
                raw.thenApply(v -> v instanceof EncodedValue e ? e.decode() : v);
        decoded.whenComplete(
                (v, e) -> {
                    if (decoded.isCancelled()) {
                        raw.cancel(true); // the run's end, or the dispatcher's cancel: the worker
                    }
                });
        return decoded;
    }

    /**
     * Runs {@code task} in a worker (or in this JVM): the value is an {@link EncodedValue} from a
     * worker, the task's own value in this JVM.
     */
    CompletableFuture<Object> isolatedForGuest(
            String where, Class<? extends IsolatedTask> task, Object input) {
        HostWorkers workers = sandbox.hostWorkers();
        if (workers == null) {
            IsolatedTask t = sandbox.isolatedTask(task);
            return work(where, call -> t.run(input, call));
        }
        IsolatedCall call = new IsolatedCall(where, task.getName(), input);
        boolean now;
        synchronized (this) {
            if (ended) {
                throw BridgeException.cancelled(where + ": the run has ended");
            }
            refuseWhenSpent(where);
            now = isolatedRunning == null;
            if (now) {
                isolatedRunning = call;
            } else {
                isolatedQueue.addLast(call);
            }
        }
        // Cancelled by the dispatcher (the run ends): out of the queue, or its worker ended.
        call.result.whenComplete(
                (v, e) -> {
                    if (call.result.isCancelled()) {
                        call.cancelWork();
                    }
                });
        if (now) {
            call.start(workers);
        }
        return call.result;
    }

    /** The isolated call that finished (or never started) gives its turn to the next one. */
    private void isolatedDone(IsolatedCall done) {
        IsolatedCall next;
        synchronized (this) {
            if (isolatedRunning != done) {
                isolatedQueue.remove(done);
                return;
            }
            do {
                next = isolatedQueue.pollFirst();
            } while (next != null && next.result.isDone());
            isolatedRunning = next;
        }
        if (next != null) {
            next.start(sandbox.hostWorkers());
        }
    }

    /** One isolated call of this run: queued behind the run's earlier ones, then in a worker. */
    private final class IsolatedCall {
        final String where;
        final String task;
        final Object input;
        final CompletableFuture<Object> result = new CompletableFuture<>();
        private CompletableFuture<Object> work; // guarded by HostAccount.this

        IsolatedCall(String where, String task, Object input) {
            this.where = where;
            this.task = task;
            this.input = input;
        }

        void start(HostWorkers workers) {
            long cpuLeft = cpuLeft();
            if (cpuLeft <= 0 || workers == null) {
                wake.run();
                result.completeExceptionally(
                        workers == null
                                ? BridgeException.cancelled(where + ": the sandbox is closing")
                                : spent(where));
                isolatedDone(this);
                return;
            }
            // Half the watchdog's grace past the wall bound: a synchronous call's wait ends, and
            // its run unwinds, before the watchdog would interrupt the engine thread for the bound
            // and cost it its engine.
            long deadline =
                    System.nanoTime() + budget.wallRemainingNanos() + Watchdog.GRACE.toNanos() / 2;
            CompletableFuture<Object> f =
                    workers.call(
                            new HostWorkers.Request(
                                    where,
                                    task,
                                    input,
                                    cpuLeft,
                                    limits.hostBytes(),
                                    limits.hostBytes(),
                                    deadline,
                                    HostAccount.this::charge,
                                    bytes -> reserve(where, bytes)));
            boolean cancel;
            synchronized (HostAccount.this) {
                work = f;
                cancel = ended || result.isDone();
            }
            if (cancel) {
                f.cancel(true);
            }
            f.whenComplete(
                    (v, e) -> {
                        if (e != null) {
                            result.completeExceptionally(unwrap(e));
                        } else {
                            result.complete(v);
                        }
                        isolatedDone(this);
                    });
        }

        void cancelWork() {
            CompletableFuture<Object> f;
            synchronized (HostAccount.this) {
                f = work;
            }
            if (f != null) {
                f.cancel(true); // ends the worker running it
            } else {
                isolatedDone(this);
            }
        }
    }

    private static Throwable unwrap(Throwable e) {
        while (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** CPU time left in the run's budget for host work, guest CPU and host CPU counted. */
    private long cpuLeft() {
        Thread t = engineThread;
        long guest = t == null ? 0 : budget.cpuUsedOn(t);
        return budget.cpuBudgetNanos() - guest - cpu.get();
    }

    private void refuseWhenSpent(String where) {
        if (budget.cpuBudgetNanos() - cpu.get() <= 0) {
            throw spent(where);
        }
    }

    private BridgeException spent(String where) {
        return new BridgeException(
                "RangeError",
                "HOST_CPU_LIMIT",
                where
                        + ": the run's CPU budget (timeout) of "
                        + budget.cpuBudgetNanos() / 1_000_000
                        + " ms is spent");
    }

    void charge(long nanos) {
        if (nanos > 0) {
            cpu.addAndGet(nanos);
            Thread t = engineThread;
            if (t != null && budget.cpuSpent(t)) {
                wake.run();
            }
        }
    }

    /** The run ended: drop what waits, stop what works, give back what it held. */
    void end() {
        List<LocalCall> stop;
        List<IsolatedCall> isolated = new ArrayList<>();
        List<Held> held;
        synchronized (this) {
            ended = true;
            held = List.copyOf(reservations);
            queued.clear();
            stop = List.copyOf(working);
            isolated.addAll(isolatedQueue);
            isolatedQueue.clear();
            if (isolatedRunning != null) {
                isolated.add(isolatedRunning);
            }
        }
        for (LocalCall c : stop) {
            c.stop(BridgeException.cancelled(c.where + ": the run has ended"));
        }
        for (IsolatedCall c : isolated) {
            c.result.cancel(true); // ends the worker running it
        }
        for (Held h : held) {
            h.close();
        }
    }

    private void finished(LocalCall call) {
        Runnable next;
        synchronized (this) {
            working.remove(call);
            next = queued.pollFirst();
            if (next == null) {
                active--;
            }
        }
        if (next != null) {
            next.run();
        }
    }

    /** An in-process call, as its task and the {@link HostMeter} see it. */
    final class LocalCall implements HostCall {
        final String where;
        private volatile Thread thread;
        private long startCpu;
        private long startAllocated;
        private long metered; // CPU charged so far, by the meter or at the end; under this
        private volatile long held; // bytes allocated since the call started, as last metered
        private volatile BridgeException stop;
        private final CompletableFuture<?> result;

        LocalCall(String where, CompletableFuture<?> result) {
            this.where = where;
            this.result = result;
        }

        <T> void run(Function<HostCall, T> task, CompletableFuture<T> out) {
            synchronized (this) {
                thread = Thread.currentThread();
                startCpu = HostMeter.cpuNow();
                startAllocated = HostMeter.allocatedNow();
            }
            sandbox.hostMeter().started(this);
            try {
                check();
                T value = task.apply(this);
                check();
                out.complete(value);
            } catch (RuntimeException | StackOverflowError e) {
                out.completeExceptionally(
                        e instanceof StackOverflowError
                                ? new BridgeException(
                                        "RangeError",
                                        "HOST_STACK_LIMIT",
                                        where + ": the input nests too deeply for the host to read")
                                : e);
            } catch (OutOfMemoryError e) {
                // Another call (or this one) filled the heap: this call fails, the run goes on.
                out.completeExceptionally(
                        new BridgeException(
                                "RangeError",
                                "HOST_MEMORY_LIMIT",
                                where + ": the host ran out of memory while working on this call"));
            } catch (Throwable e) {
                // Whatever else: the guest's promise settles, and the JVM's own errors go on up.
                out.completeExceptionally(
                        BridgeException.hostError(
                                where
                                        + " failed on the host ("
                                        + e.getClass().getSimpleName()
                                        + ")"));
                if (e instanceof VirtualMachineError vme) {
                    throw vme;
                }
                LOG.log(
                        java.util.logging.Level.WARNING,
                        "run " + runId + ": " + where + " failed",
                        e);
            } finally {
                sandbox.hostMeter().finished(this);
                long last = held;
                for (HostMemory m : memories) {
                    m.unmeter(last);
                }
                synchronized (this) {
                    thread = null;
                    charge(HostMeter.cpuNow() - startCpu - metered);
                    metered = HostMeter.cpuNow() - startCpu;
                }
                Thread.interrupted(); // a stop's interrupt must not reach the pool's next task
                finished(this);
            }
        }

        /** The meter's look at a working call: charge its CPU, stop it past hostBytes. */
        synchronized void meter() {
            Thread t = thread;
            if (t == null) {
                return;
            }
            long cpuNow = HostMeter.cpuOf(t);
            if (cpuNow >= 0) {
                long used = cpuNow - startCpu;
                charge(used - metered);
                metered = Math.max(metered, used);
            }
            long allocated = HostMeter.allocatedOf(t);
            if (allocated >= 0) {
                held = allocated - startAllocated;
            }
            long cap = ALLOCATION_FACTOR * limits.hostBytes();
            if (allocated >= 0 && allocated - startAllocated > cap && stop == null) {
                LOG.warning(
                        "run "
                                + runId
                                + ": "
                                + where
                                + " allocated more than "
                                + cap
                                + " bytes; stopping it");
                stop(
                        new BridgeException(
                                "RangeError",
                                "HOST_MEMORY_LIMIT",
                                where
                                        + ": the call allocated more than "
                                        + cap
                                        + " bytes ("
                                        + ALLOCATION_FACTOR
                                        + " x hostBytes, "
                                        + limits.hostBytes()
                                        + ")"));
            }
        }

        /** Bytes the call allocated since it started, as the meter last read them. */
        long held() {
            return thread == null ? 0 : held;
        }

        List<HostMemory> memories() {
            return memories;
        }

        /** Fails the call now and asks its thread to stop. */
        void stop(BridgeException e) {
            Thread t;
            synchronized (this) {
                if (stop != null) {
                    return;
                }
                stop = e;
                t = thread;
            }
            result.completeExceptionally(e);
            if (t != null) {
                t.interrupt();
            }
        }

        @Override
        public String where() {
            return where;
        }

        @Override
        public void check() {
            BridgeException e = stop;
            if (e != null) {
                throw e;
            }
            if (cpu.get() >= budget.cpuBudgetNanos()) {
                throw spent(where);
            }
        }

        @Override
        public boolean isStopped() {
            return stop != null || cpu.get() >= budget.cpuBudgetNanos();
        }

        @Override
        public void chargeCpu(long nanos) {
            charge(nanos);
        }
    }
}
