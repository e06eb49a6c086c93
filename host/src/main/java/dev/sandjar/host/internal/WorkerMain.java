package dev.sandjar.host.internal;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.HostCall;
import dev.sandjar.host.IsolatedTask;
import dev.sandjar.transport.codec.Transport;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A worker process: runs {@link IsolatedTask}s for a sandbox, one call at a time, reading requests
 * from standard input and writing results to standard output ({@link WorkerWire} frames). Whatever
 * a task prints goes to standard error, which the sandbox logs. A monitor thread holds each call to
 * the CPU time and memory the request allows: past either, {@link HostCall#check()} throws, and a
 * call that does not stop within {@link #GRACE_NANOS} ends the process with {@link #EXIT_CPU} or
 * {@link #EXIT_MEMORY}; running out of heap ends it too ({@code -XX:+ExitOnOutOfMemoryError}, exit
 * code 3). The sandbox then reports the limit to the guest and starts another worker.
 *
 * <p>Public only so that {@code java} can start it; not API.
 */
public final class WorkerMain {
    /** The process ended a call that went on past its CPU time. */
    public static final int EXIT_CPU = 70;

    /** The process ended a call that kept more memory than it may. */
    public static final int EXIT_MEMORY = 71;

    /** The request stream was not what the sandbox sends. */
    public static final int EXIT_PROTOCOL = 72;

    /** What {@code -XX:+ExitOnOutOfMemoryError} exits with. */
    public static final int EXIT_OUT_OF_MEMORY = 3;

    /** The first frame a worker writes, so the sandbox knows it started. */
    public static final String HELLO = "sandjar-worker 1";

    /** How long a call may go on past a bound, checking or not, before the process ends it. */
    static final long GRACE_NANOS = 200_000_000L;

    private static final long POLL_MILLIS = 10;

    /**
     * Test support only: how long the monitor waits between deciding to end the process and ending
     * it, as a monitor thread the scheduler put aside would (system property {@code
     * sandjar.worker.faultHaltPauseMillis}; 0 outside the tests).
     */
    private static final long HALT_PAUSE_MILLIS =
            Long.getLong("sandjar.worker.faultHaltPauseMillis", 0);

    private static final long MAX_REQUEST_BYTES = Integer.MAX_VALUE - 8;

    private final Map<String, IsolatedTask> tasks = new HashMap<>();
    private final java.lang.management.MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    /** The live heap of the idle worker: what a call's live bytes are counted above. */
    private long baseline;

    private long lastForcedGc;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final MemoryPoolMXBean oldGen = oldGeneration();
    private final GarbageCollectorMXBean[] collectors =
            ManagementFactory.getGarbageCollectorMXBeans().toArray(GarbageCollectorMXBean[]::new);
    private volatile Call current;

    /**
     * Held by the monitor from its last look at a call until it ends the process, and by the call's
     * end: so the process is never ended for a call that has already answered (the sandbox would
     * blame the next call, which it may already have sent).
     */
    private final Object callEnd = new Object();

    private WorkerMain() {}

    public static void main(String[] args) throws IOException {
        DataInputStream in =
                new DataInputStream(
                        new BufferedInputStream(new FileInputStream(FileDescriptor.in)));
        DataOutputStream out =
                new DataOutputStream(
                        new BufferedOutputStream(
                                new FileOutputStream(FileDescriptor.out), 1 << 16));
        // Nothing a task prints may reach the channel, nor may it read the requests.
        System.setOut(
                new PrintStream(
                        new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        System.setIn(InputStream.nullInputStream());
        new WorkerMain().serve(in, out);
    }

    private void serve(DataInputStream in, DataOutputStream out) throws IOException {
        System.gc();
        baseline = memory.getHeapMemoryUsage().getUsed();
        Thread monitor = new Thread(this::monitor, "sandjar-worker-monitor");
        monitor.setDaemon(true);
        monitor.start();
        out.write(
                WorkerWire.encode(
                        Map.of("hello", HELLO, "pid", ProcessHandle.current().pid()), null));
        out.flush();
        while (true) {
            WorkerWire.Frame request;
            try {
                request = WorkerWire.readBody(in, WorkerWire.readLength(in), MAX_REQUEST_BYTES);
            } catch (EOFException sandboxClosedTheChannel) {
                return;
            }
            if (!(request.envelope() instanceof Map<?, ?> r)) {
                Runtime.getRuntime().halt(EXIT_PROTOCOL);
                return;
            }
            Object input = request.value() == null ? null : WorkerWire.decode(request.value());
            Map<String, Object> envelope = new LinkedHashMap<>();
            Object value = call(r, input, envelope);
            byte[] frame;
            if (envelope.containsKey("error")) {
                frame = WorkerWire.encode(envelope, null);
            } else {
                String where = String.valueOf(r.get("where"));
                long max = ((Number) r.get("maxResultBytes")).longValue();
                Transport.Encoded result;
                try {
                    result = Transport.encode(value, "result");
                } catch (RuntimeException e) {
                    result = null;
                    fail(
                            envelope,
                            BridgeException.hostError(
                                    where
                                            + " returned a value that cannot leave the worker: "
                                            + e.getMessage()));
                }
                if (result != null && WorkerWire.partSize(result) > max) {
                    fail(
                            envelope,
                            new BridgeException(
                                    "RangeError",
                                    "HOST_RESULT_TOO_LARGE",
                                    where
                                            + ": the result takes "
                                            + WorkerWire.partSize(result)
                                            + " bytes; a host call's result may take at most "
                                            + max
                                            + " (hostBytes)"));
                    result = null;
                }
                frame =
                        WorkerWire.encode(
                                Transport.encode(envelope, "envelope"),
                                envelope.containsKey("error") ? null : result);
            }
            out.write(frame);
            out.flush();
        }
    }

    /** Runs the call; fills {@code envelope} with its CPU time and, on failure, its error. */
    private Object call(Map<?, ?> r, Object input, Map<String, Object> envelope) {
        String where = String.valueOf(r.get("where"));
        Call c =
                new Call(
                        where,
                        Thread.currentThread().getId(),
                        ((Number) r.get("cpuNanos")).longValue(),
                        ((Number) r.get("hostBytes")).longValue());
        Object value = null;
        current = c;
        try {
            IsolatedTask task = task(String.valueOf(r.get("task")));
            value = task.run(input, c);
            c.check();
        } catch (BridgeException e) {
            fail(envelope, e);
        } catch (StackOverflowError e) {
            fail(
                    envelope,
                    new BridgeException(
                            "RangeError",
                            "HOST_STACK_LIMIT",
                            where + ": the input nests too deeply for the host to read"));
        } catch (RuntimeException | LinkageError e) {
            e.printStackTrace();
            fail(
                    envelope,
                    BridgeException.hostError(
                            where + " failed on the host (" + e.getClass().getSimpleName() + ")"));
        } finally {
            synchronized (callEnd) {
                current = null;
            }
        }
        envelope.put("cpuNanos", c.cpuUsed());
        return value;
    }

    private static void fail(Map<String, Object> envelope, BridgeException e) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("name", e.name());
        error.put("code", e.code());
        error.put("message", e.getMessage());
        envelope.put("error", error);
    }

    private IsolatedTask task(String name) {
        IsolatedTask t = tasks.get(name);
        if (t != null) {
            return t;
        }
        try {
            Class<?> c = Class.forName(name, true, WorkerMain.class.getClassLoader());
            if (!IsolatedTask.class.isAssignableFrom(c)) {
                throw BridgeException.hostError(name + " is not an IsolatedTask");
            }
            Constructor<?> k = c.getConstructor();
            t = (IsolatedTask) k.newInstance();
        } catch (ReflectiveOperationException e) {
            throw BridgeException.hostError(
                    "the worker cannot make the task "
                            + name
                            + " ("
                            + e.getClass().getSimpleName()
                            + ")");
        }
        tasks.put(name, t);
        return t;
    }

    // -------------------------------------------------------------------------------------------
    // The monitor.

    private void monitor() {
        while (true) {
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            Call c = current;
            if (c != null) {
                c.meter();
            }
        }
    }

    private long fullCollections() {
        long n = 0;
        for (GarbageCollectorMXBean g : collectors) {
            for (String pool : g.getMemoryPoolNames()) {
                if (oldGen != null && pool.equals(oldGen.getName())) {
                    n += g.getCollectionCount();
                }
            }
        }
        return n;
    }

    /** The heap pool that holds what survives; its usage after a collection is the live data. */
    private static MemoryPoolMXBean oldGeneration() {
        List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans();
        MemoryPoolMXBean best = null;
        for (MemoryPoolMXBean p : pools) {
            if (p.getType() == MemoryType.HEAP
                    && p.isCollectionUsageThresholdSupported()
                    && (best == null || p.getUsage().getMax() > best.getUsage().getMax())) {
                best = p;
            }
        }
        return best;
    }

    /** One call, as its task and the monitor see it. */
    private final class Call implements HostCall {
        private final String where;
        private final long thread;
        private final long cpuCap;
        private final long hostBytes;
        private final long startCpu;
        private final long startCollections;
        private volatile BridgeException stop;
        private volatile long stoppedAt;

        Call(String where, long thread, long cpuCap, long hostBytes) {
            this.where = where;
            this.thread = thread;
            this.cpuCap = cpuCap;
            this.hostBytes = hostBytes;
            this.startCpu = threads.getThreadCpuTime(thread);
            this.startCollections = fullCollections();
        }

        long cpuUsed() {
            return Math.max(0, threads.getThreadCpuTime(thread) - startCpu);
        }

        void meter() {
            if (stop != null) {
                if (System.nanoTime() - stoppedAt > GRACE_NANOS) {
                    synchronized (callEnd) {
                        if (current == this) {
                            pauseBeforeHalt();
                            Runtime.getRuntime()
                                    .halt(
                                            "HOST_MEMORY_LIMIT".equals(stop.code())
                                                    ? EXIT_MEMORY
                                                    : EXIT_CPU);
                        }
                    }
                }
                return;
            }
            if (cpuUsed() > cpuCap) {
                stop(
                        new BridgeException(
                                "RangeError",
                                "HOST_CPU_LIMIT",
                                where + ": the run's CPU budget (timeout) is spent"));
                return;
            }
            // The heap past the bound may be garbage: a full collection (this process holds one
            // call, so its pause is the call's own) tells what is live, at most every 100 ms.
            long used = memory.getHeapMemoryUsage().getUsed() - baseline;
            long now = System.nanoTime();
            if (used > hostBytes && now - lastForcedGc > 100_000_000L) {
                lastForcedGc = now;
                System.gc();
                long live = memory.getHeapMemoryUsage().getUsed() - baseline;
                if (live > hostBytes) {
                    stopHolding(live);
                    return;
                }
            }
            if (oldGen != null && fullCollections() > startCollections) {
                long live = oldGen.getCollectionUsage().getUsed() - baseline;
                if (live > hostBytes) {
                    stopHolding(live);
                }
            }
        }

        /** Stops the call for holding {@code live} bytes, past its {@code hostBytes}. */
        private void stopHolding(long live) {
            stop(
                    new BridgeException(
                            "RangeError",
                            "HOST_MEMORY_LIMIT",
                            where
                                    + ": the call held "
                                    + live
                                    + " bytes; a host call may take at most "
                                    + hostBytes
                                    + " bytes (hostBytes)"));
        }

        private void pauseBeforeHalt() {
            if (HALT_PAUSE_MILLIS > 0) {
                try {
                    Thread.sleep(HALT_PAUSE_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private void stop(BridgeException e) {
            stoppedAt = System.nanoTime();
            stop = e;
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
        }

        @Override
        public boolean isStopped() {
            return stop != null;
        }
    }
}
