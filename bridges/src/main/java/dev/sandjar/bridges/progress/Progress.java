package dev.sandjar.bridges.progress;

import dev.sandjar.bridges.internal.Args;
import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunSession;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code progress(percent, message?)}: fire-and-forget progress reports, delivered to a {@link
 * ProgressListener} the caller supplies. Returns {@code undefined} at once. At most one report per
 * {@link #MIN_INTERVAL_MILLIS} ms and {@link #MAX_REPORTS} per run are delivered; other calls are
 * dropped and counted ({@link ProgressReport#dropped()}), except that a report of 100 is exempt
 * from the interval so completion is never lost to it. {@code percent} must be a number from 0 to
 * 100 and {@code message} a string of at most {@link #MAX_MESSAGE_CHARS} characters; a bad argument
 * throws even when the call would have been dropped. See {@code docs/bridges.md}.
 */
public final class Progress {
    /** The least time between two delivered reports of one run. */
    public static final long MIN_INTERVAL_MILLIS = 100;

    /** The most reports one run delivers. */
    public static final int MAX_REPORTS = 1_000;

    /** The longest message, in UTF-16 units. */
    public static final int MAX_MESSAGE_CHARS = 1_000;

    private static final Logger LOG = Logger.getLogger(Progress.class.getName());
    private static final String GUEST = GuestScripts.load(Progress.class, "progress.js");

    private Progress() {}

    /**
     * A progress bridge delivering to {@code listener}. The bridge is immutable and may serve many
     * runs at once; each run has its own rate limit and cap, and each report names its run.
     */
    public static Bridge bridge(ProgressListener listener) {
        return bridge(listener, false);
    }

    /**
     * A progress bridge whose listener is called on the engine thread, during the guest's {@code
     * progress(...)} call, so its reports stay in order with everything else the run does (what the
     * Code node needs to put them between its emits). The same rate limit and cap apply. The
     * listener must be quick and never block: it holds up the guest. An exception it throws is
     * logged and does not reach the run.
     */
    public static Bridge inlineBridge(ProgressListener listener) {
        return bridge(listener, true);
    }

    private static Bridge bridge(ProgressListener listener, boolean inline) {
        Objects.requireNonNull(listener, "listener");
        Object key = new Object(); // per-bridge state key, so two progress bridges never share
        return Bridge.builder("progress")
                .guest(GUEST)
                .operation(
                        Operation.builder("report")
                                .param(Param.any("percent"))
                                .param(Param.string("message").optional())
                                .handler(call -> report(call, listener, key, inline))
                                .build())
                .build();
    }

    private static Object report(
            OperationCall call, ProgressListener listener, Object key, boolean inline) {
        double percent = Args.number(call.arg(0), "progress", "percent");
        if (!(percent >= 0 && percent <= 100)) {
            throw new BridgeException(
                    "RangeError",
                    "INVALID_PERCENT",
                    "progress: percent must be a number from 0 to 100, got " + Args.show(percent));
        }
        String message = call.string(1);
        if (message != null && message.length() > MAX_MESSAGE_CHARS) {
            throw new BridgeException(
                    "RangeError",
                    "MESSAGE_TOO_LONG",
                    "progress: message is "
                            + message.length()
                            + " characters; at most "
                            + MAX_MESSAGE_CHARS);
        }
        RunSession session = call.session();
        RunProgress run = session.state(key, () -> new RunProgress(session, listener, inline));
        // A message reaches the caller as the log does: masked the same way (RunSession#redact).
        run.offer(percent, message == null ? null : session.redacted(message));
        return null;
    }

    /** One run's rate limit, cap and ordered delivery. Offers come from the engine thread only. */
    private static final class RunProgress {
        private final RunSession session;
        private final ProgressListener listener;
        private final boolean inline;
        // Timestamps derive from the same clock as the rate limit, so their gaps agree.
        private final Instant baseInstant = Instant.now();
        private final long baseNanos = System.nanoTime();
        private long lastDelivered = Long.MIN_VALUE;
        private int delivered;
        private long dropped;
        private boolean capNoticeLogged;
        private final Queue<ProgressReport> queue = new ArrayDeque<>(); // guarded by itself
        private boolean draining; // under queue's lock
        private CompletableFuture<Void> drained = CompletableFuture.completedFuture(null);

        RunProgress(RunSession session, ProgressListener listener, boolean inline) {
            this.session = session;
            this.listener = listener;
            this.inline = inline;
            if (inline) {
                return; // delivered during the call: nothing to wait for
            }
            // Every accepted report reaches the listener before the run's result completes
            // (within RunSession.MAX_RESULT_HOLD); the engine is not kept waiting for it.
            session.onEnd(() -> session.holdResultUntil(drainedStage()));
        }

        private CompletableFuture<Void> drainedStage() {
            synchronized (queue) {
                return drained;
            }
        }

        void offer(double percent, String message) {
            long now = System.nanoTime();
            if (delivered >= MAX_REPORTS) {
                dropped++;
                if (!capNoticeLogged) {
                    capNoticeLogged = true;
                    session.log(
                            LogEntry.Level.WARN,
                            "progress: this run delivered its "
                                    + MAX_REPORTS
                                    + " reports; further calls are dropped");
                }
                return;
            }
            boolean spaced =
                    lastDelivered == Long.MIN_VALUE
                            || now - lastDelivered
                                    >= TimeUnit.MILLISECONDS.toNanos(MIN_INTERVAL_MILLIS);
            if (!spaced && percent != 100) {
                dropped++;
                return;
            }
            lastDelivered = now;
            delivered++;
            ProgressReport report =
                    new ProgressReport(
                            session.runId(),
                            percent,
                            message,
                            delivered,
                            dropped,
                            baseInstant.plusNanos(now - baseNanos));
            if (inline) {
                deliver(report);
                return;
            }
            boolean start;
            synchronized (queue) {
                queue.add(report);
                start = !draining;
                if (start) {
                    draining = true;
                    drained = new CompletableFuture<>();
                }
            }
            if (start) {
                try {
                    session.executor().execute(this::drain);
                } catch (RejectedExecutionException closing) {
                    // The sandbox is closing: nothing will deliver, so nothing may hold the result.
                    CompletableFuture<Void> done;
                    synchronized (queue) {
                        dropped += queue.size();
                        queue.clear();
                        draining = false;
                        done = drained;
                    }
                    done.complete(null);
                }
            }
        }

        /** Delivers queued reports in order, one drain at a time per run, off the engine thread. */
        private void drain() {
            CompletableFuture<Void> done;
            synchronized (queue) {
                done = drained;
            }
            boolean finished = false;
            try {
                for (ProgressReport next; (next = poll()) != null; ) {
                    deliver(next);
                }
                finished = true;
            } finally {
                if (!finished) { // the listener threw an Error: what is queued is lost with it
                    synchronized (queue) {
                        draining = false;
                        queue.clear();
                    }
                }
                done.complete(null);
            }
        }

        private void deliver(ProgressReport report) {
            try {
                listener.onProgress(report);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "progress listener failed for run " + report.runId(), e);
            }
        }

        /** The next report; when there is none, this drain ends (atomically with the check). */
        private ProgressReport poll() {
            synchronized (queue) {
                ProgressReport next = queue.poll();
                if (next == null) {
                    draining = false;
                }
                return next;
            }
        }
    }
}
