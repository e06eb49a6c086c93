package dev.sandjar.host;

import dev.sandjar.quickjs.EngineImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A sandbox's live sessions: the cap on how many, their ids, and the sweep that closes idle ones
 * (on the sandbox's timer, every second while any session is open). Thread-safe.
 */
final class Sessions {
    private static final long SWEEP_MILLIS = 250;

    private final Sandbox sandbox;
    private final int max;
    private final ScheduledExecutorService timer;
    private final Map<String, SandboxSession> live = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private ScheduledFuture<?> sweep; // guarded by this

    Sessions(Sandbox sandbox, int max, ScheduledExecutorService timer) {
        this.sandbox = sandbox;
        this.max = max;
        this.timer = timer;
    }

    /** Opens a session with this state; refused at the cap. */
    synchronized SandboxSession open(
            SessionOptions options,
            EngineImage image,
            Map<String, String> declared,
            Set<String> globals) {
        if (sandbox.isClosed()) {
            throw new SessionException(SessionException.Reason.CLOSED, "the sandbox is closed");
        }
        if (live.size() >= max) {
            throw new SessionException(
                    SessionException.Reason.TOO_MANY,
                    "the sandbox holds "
                            + live.size()
                            + " live sessions, its maximum (maxSessions is "
                            + max
                            + "); close one or wait for one to expire");
        }
        String id = "session-" + ids.incrementAndGet();
        SandboxSession s = new SandboxSession(sandbox, id, options, image, declared, globals);
        live.put(id, s);
        if (sweep == null) {
            sweep =
                    timer.scheduleWithFixedDelay(
                            this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        }
        return s;
    }

    void remove(SandboxSession s) {
        live.remove(s.id(), s);
    }

    int count() {
        return live.size();
    }

    int max() {
        return max;
    }

    /** The live session with this id, or null. */
    SandboxSession get(String id) {
        return live.get(id);
    }

    private void sweep() {
        long now = System.nanoTime();
        for (SandboxSession s : List.copyOf(live.values())) {
            s.expireIfIdle(now);
        }
        synchronized (this) {
            if (live.isEmpty() && sweep != null) {
                sweep.cancel(false);
                sweep = null;
            }
        }
    }

    /** Closes every session (the sandbox is closing). */
    void closeAll() {
        for (SandboxSession s : new ArrayList<>(live.values())) {
            s.close();
        }
    }
}
