package dev.sandjar.bridges.media;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.HostCall;
import dev.sandjar.host.RunSession;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One run's media state, shared by every bridge built on the same {@link Media}: the handle store
 * ({@code sandbox://media/<id>} to encoded bytes, at most {@code maxRunBytes} in all), and the CPU
 * time its media work has used. Thread-safe. Released when the run ends: a handle is valid only in
 * the run that made it.
 *
 * <p>Media work runs through {@link #work}: off the engine thread, one call at a time per run (so
 * {@code Promise.all} over many transforms cannot hold many decoded images at once), its thread CPU
 * time added to the run's account, and refused once the account is past the cap.
 */
public final class MediaRun {
    private static final SecureRandom IDS = new SecureRandom();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final RunSession session;
    private final MediaLimits limits;
    private final Map<String, MediaData> handles = new ConcurrentHashMap<>();
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong cpuNanos = new AtomicLong();
    private final Object lock = new Object();
    private CompletableFuture<?> tail = CompletableFuture.completedFuture(null);

    MediaRun(RunSession session, MediaLimits limits) {
        this.session = session;
        this.limits = limits;
        session.onEnd(
                () -> {
                    handles.clear();
                    held.set(0);
                });
    }

    public RunSession session() {
        return session;
    }

    public MediaLimits limits() {
        return limits;
    }

    /**
     * Stores {@code data} and returns its handle as the guest sees it, {@code {type, uri, mimeType,
     * size}}. Fails {@code LIMIT} when the run's handles would pass {@code maxRunBytes}, and {@code
     * TOO_LARGE} for one payload past {@code maxInputBytes}.
     */
    public Map<String, Object> store(String where, MediaData data) {
        if (data.size() > limits.maxInputBytes()) {
            throw new MediaException(
                    MediaException.Code.TOO_LARGE,
                    where
                            + ": the result is "
                            + data.size()
                            + " bytes; the limit is "
                            + limits.maxInputBytes()
                            + " bytes per media payload");
        }
        if (session.isCancelled()) {
            throw BridgeException.cancelled(where + ": the run has ended");
        }
        long after = held.addAndGet(data.size());
        if (after > limits.maxRunBytes()) {
            held.addAndGet(-data.size());
            throw new MediaException(
                    MediaException.Code.LIMIT,
                    where
                            + ": storing "
                            + data.size()
                            + " more bytes would make this run's media handles hold "
                            + after
                            + " bytes; the limit is "
                            + limits.maxRunBytes()
                            + " bytes per run");
        }
        try {
            // The bytes stay on the host until the run ends: they count against its host memory.
            session.reserveHostMemory(where, data.size());
        } catch (RuntimeException e) {
            held.addAndGet(-data.size());
            throw e;
        }
        byte[] id = new byte[16];
        IDS.nextBytes(id);
        String uri = MediaRef.HANDLE_PREFIX + HexFormat.of().formatHex(id);
        handles.put(uri, data);
        return handle(uri, data);
    }

    /** The guest's view of a stored handle. */
    static Map<String, Object> handle(String uri, MediaData data) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("type", data.type().guestName());
        out.put("uri", uri);
        out.put("mimeType", data.mimeType());
        out.put("size", (long) data.size());
        if (data.filename() != null) {
            out.put("filename", data.filename());
        }
        return out;
    }

    /**
     * The payload behind a handle uri; fails {@code NOT_FOUND} when this run did not make it (a
     * handle from an earlier or another run).
     */
    public MediaData get(String where, String uri) {
        MediaData data = handles.get(uri);
        if (data == null) {
            throw new MediaException(
                    MediaException.Code.NOT_FOUND,
                    where
                            + ": "
                            + uri
                            + " is not a handle of this run; handles are valid only in the run"
                            + " that made them");
        }
        return data;
    }

    /** Bytes the run's handles hold now. */
    public long bytesHeld() {
        return held.get();
    }

    /** CPU time the run's media work has used so far. */
    public Duration cpuUsed() {
        return Duration.ofNanos(cpuNanos.get());
    }

    /** The CPU cap of this run's media work: {@code maxRunCpu}, else the run's timeout. */
    public Duration cpuLimit() {
        return limits.maxRunCpu().orElse(session.limits().timeout());
    }

    /**
     * Runs {@code task} as host work of the run ({@link RunSession#work}: its CPU counted against
     * the run's {@code timeout}, the bytes it allocates against {@code hostBytes}, stopped when the
     * run ends) after the run's earlier media work, counts its CPU time against {@link #cpuLimit()}
     * as well, and completes with its value. Refused ({@code LIMIT}) when the run's media CPU
     * account is already past {@link #cpuLimit()}, and ({@code CANCELLED}) once the run has ended.
     */
    public <T> CompletableFuture<T> work(String where, Supplier<T> task) {
        return work(where, call -> task.get());
    }

    /** {@link #work(String, Supplier)} for a task that checks its bounds between units of work. */
    public <T> CompletableFuture<T> work(String where, Function<HostCall, T> task) {
        CompletableFuture<T> next;
        synchronized (lock) {
            next =
                    tail.handle((v, e) -> null)
                            .thenCompose(
                                    ignored ->
                                            session.work(
                                                    where, call -> measured(where, call, task)));
            tail = next;
        }
        return next;
    }

    private <T> T measured(String where, HostCall call, Function<HostCall, T> task) {
        Duration limit = cpuLimit();
        if (cpuNanos.get() > limit.toNanos()) {
            throw new MediaException(
                    MediaException.Code.LIMIT,
                    where
                            + ": this run's media work has used "
                            + millis(cpuNanos.get())
                            + " of CPU; the limit is "
                            + millis(limit.toNanos())
                            + " per run");
        }
        long start = cpu();
        try {
            return task.apply(call);
        } finally {
            cpuNanos.addAndGet(Math.max(0, cpu() - start));
        }
    }

    private static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f ms", nanos / 1e6);
    }

    private static long cpu() {
        return THREADS.isCurrentThreadCpuTimeSupported()
                ? THREADS.getCurrentThreadCpuTime()
                : System.nanoTime();
    }
}
