package dev.sandjar.bridges.workspace;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The run's byte totals and its cancellation hook. Thread-safe: totals are charged with a
 * compare-and-set, so concurrent operations can never push a total past its cap together.
 */
final class Budget {
    /** Bytes moved between two polls of the cancellation hook. */
    static final int CHUNK = 64 * 1024;

    private final WorkspaceLimits limits;
    private final BooleanSupplier cancelled;
    private final AtomicLong read = new AtomicLong();
    private final AtomicLong written = new AtomicLong();

    Budget(WorkspaceLimits limits, BooleanSupplier cancelled) {
        this.limits = limits;
        this.cancelled = cancelled;
    }

    long bytesRead() {
        return read.get();
    }

    long bytesWritten() {
        return written.get();
    }

    void checkCancelled(String op, String shown) {
        if (cancelled.getAsBoolean()) {
            throw new WorkspaceException(Code.CANCELLED, op + " " + shown + ": cancelled");
        }
    }

    /** Fails fast, charging nothing, when {@code n} more read bytes would not fit. */
    void ensureReadRoom(String op, String shown, long n) {
        if (read.get() + n > limits.maxTotalReadBytes()) {
            throw over(op, shown, "read", read.get() + n, limits.maxTotalReadBytes(), "Read");
        }
    }

    void ensureWriteRoom(String op, String shown, long n) {
        if (written.get() + n > limits.maxTotalWriteBytes()) {
            throw over(
                    op, shown, "written", written.get() + n, limits.maxTotalWriteBytes(), "Write");
        }
    }

    void chargeRead(String op, String shown, long n) {
        charge(read, n, limits.maxTotalReadBytes(), op, shown, "read", "Read");
    }

    void chargeWrite(String op, String shown, long n) {
        charge(written, n, limits.maxTotalWriteBytes(), op, shown, "written", "Write");
    }

    private static void charge(
            AtomicLong total,
            long n,
            long cap,
            String op,
            String shown,
            String verb,
            String limitWord) {
        while (true) {
            long now = total.get();
            if (now + n > cap) {
                throw over(op, shown, verb, now + n, cap, limitWord);
            }
            if (total.compareAndSet(now, now + n)) {
                return;
            }
        }
    }

    private static WorkspaceException over(
            String op, String shown, String verb, long wouldBe, long cap, String limitWord) {
        return new WorkspaceException(
                Code.LIMIT,
                String.format(
                        "%s %s: bytes %s this run would reach %d, over maxTotal%sBytes (%d)",
                        op, shown, verb, wouldBe, limitWord, cap));
    }
}
