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
        for (HostAccount.LocalCall c : calls) {
            c.meter();
        }
        synchronized (this) {
            if (calls.isEmpty() && ticking != null) {
                ticking.cancel(false);
                ticking = null;
            }
        }
    }
}
