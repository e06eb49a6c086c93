package dev.sandjar.host;

import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Reads the CPU time and allocated bytes of every host call working in this JVM ({@link
 * RunSession#work}) every {@link #PERIOD_MILLIS} ms, while any is: charges the CPU to its run,
 * stops a call past {@code hostBytes}, and wakes a run whose CPU budget its host work spent. On the
 * sandbox's timer thread; it runs only while calls are in flight. Thread-safe.
 */
final class HostMeter {
    static final long PERIOD_MILLIS = 20;

    private static final com.sun.management.ThreadMXBean THREADS = threads();

    private final ScheduledExecutorService timer;
    private final Set<HostAccount.LocalCall> calls = ConcurrentHashMap.newKeySet();
    private ScheduledFuture<?> ticking; // guarded by this
    private final java.util.List<HostMemory> metered = new java.util.ArrayList<>(); // timer only

    HostMeter(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    private static com.sun.management.ThreadMXBean threads() {
        java.lang.management.ThreadMXBean t = ManagementFactory.getThreadMXBean();
        return t instanceof com.sun.management.ThreadMXBean s ? s : null;
    }

    /** Whether the JVM can tell another thread's allocated bytes (HotSpot can). */
    static boolean measuresAllocation() {
        return THREADS != null && THREADS.isThreadAllocatedMemorySupported();
    }

    /** The calling thread's CPU time, or elapsed time where the JVM cannot tell. */
    static long cpuNow() {
        return THREADS != null && THREADS.isCurrentThreadCpuTimeSupported()
                ? THREADS.getCurrentThreadCpuTime()
                : System.nanoTime();
    }

    /** The calling thread's allocated bytes so far; 0 where the JVM cannot tell. */
    static long allocatedNow() {
        return measuresAllocation()
                ? THREADS.getThreadAllocatedBytes(Thread.currentThread().getId())
                : 0;
    }

    static long cpuOf(Thread t) {
        if (THREADS == null || !THREADS.isThreadCpuTimeSupported()) {
            return -1;
        }
        return THREADS.getThreadCpuTime(t.getId());
    }

    static long allocatedOf(Thread t) {
        return measuresAllocation() ? THREADS.getThreadAllocatedBytes(t.getId()) : -1;
    }

    void started(HostAccount.LocalCall call) {
        calls.add(call);
        synchronized (this) {
            if (ticking == null) {
                ticking =
                        timer.scheduleAtFixedRate(
                                this::tick, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
            }
        }
    }

    void finished(HostAccount.LocalCall call) {
        calls.remove(call);
    }

    private void tick() {
        java.util.Map<HostMemory, long[]> sums = new java.util.IdentityHashMap<>();
        java.util.Map<HostMemory, HostAccount.LocalCall> biggest =
                new java.util.IdentityHashMap<>();
        for (HostAccount.LocalCall c : calls) {
            c.meter();
            long held = c.held();
            for (HostMemory m : c.memories()) {
                sums.computeIfAbsent(m, k -> new long[1])[0] += held;
                HostAccount.LocalCall top = biggest.get(m);
                if (top == null || top.held() < held) {
                    biggest.put(m, c);
                }
            }
        }
        for (HostMemory m : metered) {
            if (!sums.containsKey(m)) {
                m.metered(0);
            }
        }
        metered.clear();
        for (java.util.Map.Entry<HostMemory, long[]> e : sums.entrySet()) {
            HostMemory m = e.getKey();
            long sum = e.getValue()[0];
            m.metered(sum);
            metered.add(m);
            if (m.reserved() + sum > m.maxBytes()) {
                HostAccount.LocalCall top = biggest.get(m);
                top.stop(
                        new BridgeException(
                                "RangeError",
                                "HOST_MEMORY_LIMIT",
                                top.where()
                                        + ": the host work in flight took "
                                        + m.name()
                                        + " past its "
                                        + m.maxBytes()
                                        + " bytes, and this call held the most ("
                                        + top.held()
                                        + " bytes)"));
            }
        }
        synchronized (this) {
            if (calls.isEmpty() && ticking != null) {
                ticking.cancel(false);
                ticking = null;
            }
        }
    }
}
