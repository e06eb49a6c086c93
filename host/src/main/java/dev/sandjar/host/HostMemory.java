package dev.sandjar.host;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A budget of host memory that runs share: the bytes their host work holds at once in the sandbox's
 * JVM (docs/sandbox.md, "Host work"). Every sandbox has one for all its runs ({@link
 * Sandbox.Builder#hostMemoryBytes}); a service adds one per tenant ({@link
 * RunRequest.Builder#hostMemory}) so that one tenant at its budget never refuses another.
 * Thread-safe; share one instance among all the runs it bounds.
 *
 * <p>What counts: media handles a run holds, results of worker processes while they cross into the
 * sandbox, and the bytes each in-process host call has allocated since it started (the host meter's
 * view, read every {@value HostMeter#PERIOD_MILLIS} ms; garbage counts until the call ends). A
 * reservation past the budget fails at once with a {@code RangeError} of code {@code
 * HOST_MEMORY_LIMIT} naming the budget; when in-process calls together pass it, the one holding the
 * most is stopped with that error. Either way the run goes on.
 */
public final class HostMemory {
    private final String name;
    private final long maxBytes;
    private final AtomicLong reserved = new AtomicLong();
    private final AtomicLong metered = new AtomicLong();

    private HostMemory(String name, long maxBytes) {
        this.name = name;
        this.maxBytes = maxBytes;
    }

    /**
     * @param name what messages call it ("tenant acme's host memory")
     * @param maxBytes at least 1 MiB
     */
    public static HostMemory of(String name, long maxBytes) {
        Objects.requireNonNull(name, "name");
        if (maxBytes < (1L << 20)) {
            throw new InvalidRequestException(
                    "host memory " + name + ": maxBytes (" + maxBytes + ") must be >= 1048576");
        }
        return new HostMemory(name, maxBytes);
    }

    public String name() {
        return name;
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** Bytes held now: reservations plus the in-process calls as last metered. */
    public long inUse() {
        return reserved.get() + metered.get();
    }

    /** Takes {@code bytes}, or returns false (taking nothing) when that would pass the budget. */
    boolean tryReserve(long bytes) {
        while (true) {
            long now = reserved.get();
            if (now + bytes + metered.get() > maxBytes) {
                return false;
            }
            if (reserved.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    /** Reserved bytes only (without the metered calls). */
    long reserved() {
        return reserved.get();
    }

    /** The meter's sum of the in-process calls working now. */
    void metered(long bytes) {
        metered.set(bytes);
    }

    /** A metered call ended: its bytes no longer count, without waiting for the next tick. */
    void unmeter(long bytes) {
        metered.updateAndGet(m -> Math.max(0, m - bytes));
    }

    BridgeException exhausted(String where, long bytes) {
        return new BridgeException(
                "RangeError",
                "HOST_MEMORY_LIMIT",
                where
                        + ": "
                        + bytes
                        + " more bytes would take "
                        + name
                        + " past its "
                        + maxBytes
                        + " bytes ("
                        + inUse()
                        + " in use)");
    }

    @Override
    public String toString() {
        return "HostMemory[" + name + ", " + inUse() + " of " + maxBytes + " bytes]";
    }
}
