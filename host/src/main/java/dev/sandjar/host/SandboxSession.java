package dev.sandjar.host;

import dev.sandjar.quickjs.EngineImage;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A persistent JavaScript session (docs/sessions.md): calls evaluate in one global scope, so what a
 * call declares at its top level ({@code let}, {@code const}, {@code var}, {@code function}, {@code
 * class}) is there for the next call, while each call has its own CPU budget, logs and result.
 *
 * <pre>{@code
 * try (SandboxSession s = sandbox.openSession()) {
 *     s.run("let counter = 0; function inc() { return ++counter }");
 *     s.run("return inc()"); // 1
 *     s.run("return inc()"); // 2
 * }
 * }</pre>
 *
 * <p>Between calls the session's state is an image of its engine's memory, not an engine: a call
 * borrows any engine of the sandbox's pool, restores the image, runs, and images the engine again.
 * So sessions do not hold engines while idle, {@link #save()} writes the state as bytes that {@link
 * Sandbox#restoreSession} brings back in this process or another, and {@link #fork()} is a copy. A
 * call that fails leaves the session as the call left it when the engine is consistent (a throw, a
 * timeout or running out of memory at a QuickJS check); when it is not, the session goes back to
 * its state before the call and the call's error says so.
 *
 * <p>Thread-safe; calls run one at a time (a second call while one runs is refused with {@link
 * SessionException.Reason#BUSY}). A session the sandbox has closed, or that sat idle past its
 * expiry, refuses every call.
 */
public final class SandboxSession implements AutoCloseable {
    private final Sandbox sandbox;
    private final String id;
    private final SessionOptions options;

    // Guarded by this.
    private EngineImage image;
    private final Map<String, String> declared;
    private Set<String> globals = Set.of();
    private boolean busy;
    private List<Bridge> linked;
    private SessionException.Reason ended;
    private long lastUsedNanos;
    private long calls;

    SandboxSession(
            Sandbox sandbox,
            String id,
            SessionOptions options,
            EngineImage image,
            Map<String, String> declared,
            Set<String> globals) {
        this.sandbox = sandbox;
        this.id = id;
        this.options = options;
        this.image = image;
        this.declared = new LinkedHashMap<>(declared);
        this.globals = Set.copyOf(globals);
        this.lastUsedNanos = System.nanoTime();
    }

    /** The session's id, unique within its sandbox. */
    public String id() {
        return id;
    }

    public SessionOptions options() {
        return options;
    }

    /**
     * Evaluates {@code code} in the session and waits for its result; see {@link #run(RunRequest)}.
     */
    public RunResult run(String code) {
        return run(RunRequest.builder(code).build());
    }

    /**
     * Evaluates a call in the session and waits for its result. The call's code, filename, globals,
     * limits, log listener, clock and output truncation are used; its globals replace those of the
     * previous call. Bridges belong to the session ({@link SessionOptions}), and a call's code
     * cannot import; a request with either is refused. The call's limits fall back to the
     * session's, and {@code heapBytes} is always the session's. Interrupting the caller cancels the
     * call, as {@link Sandbox#run}.
     *
     * @throws SessionException when the session is closed, expired or running another call, or when
     *     its saved state does not fit this sandbox (the session is then closed)
     */
    public RunResult run(RunRequest call) {
        Sandbox.refuseOnEngineThread("SandboxSession.run", "submit(call)");
        return sandbox.await(submit(call));
    }

    /**
     * Starts a call and returns at once; the result completes after the session has kept the call's
     * state, so the next call may start as soon as it completes.
     */
    public SandboxRun submit(RunRequest call) {
        if (!call.bridges().isEmpty()) {
            throw new InvalidRequestException(
                    "a session call cannot add bridges: a session's bridges are set when it"
                            + " opens (SessionOptions)");
        }
        if (call.modules() != null) {
            throw new InvalidRequestException(
                    "a session call cannot resolve imports: session code declares what later"
                            + " calls need at its top level");
        }
        return start(call, null);
    }

    /**
     * Starts a run on the session's state: a session call ({@code lambda} null), or a warm lambda's
     * call, whose request is the lambda's module.
     */
    SandboxRun start(RunRequest call, LambdaCall lambda) {
        SessionCall state;
        Limits effective;
        synchronized (this) {
            checkUsable();
            if (busy) {
                throw new SessionException(
                        SessionException.Reason.BUSY,
                        "session " + id + " is running a call; its calls run one at a time");
            }
            effective = sandbox.sessionLimits(options, call.limits());
            state = new SessionCall(image, declared, globals);
            busy = true;
            lastUsedNanos = System.nanoTime();
        }
        SandboxRun run;
        try {
            RunRequest request =
                    lambda == null ? call.forSession(options.bridges(), effective) : call;
            run = sandbox.submit(request, effective, state, lambda);
        } catch (RuntimeException e) {
            synchronized (this) {
                busy = false;
            }
            throw e;
        }
        Set<String> callGlobals = call.globals().keySet();
        CompletableFuture<RunResult> kept =
                run.result()
                        .handle(
                                (r, t) -> {
                                    keep(state, lambda, t, callGlobals);
                                    if (t != null) {
                                        throw t instanceof CompletionException ce
                                                ? ce
                                                : new CompletionException(t);
                                    }
                                    return r;
                                });
        return new SandboxRun(run.runId(), kept, run::cancel);
    }

    /** The bridges a warm lambda's module declared on its first call; null until it kept it. */
    synchronized List<Bridge> linked() {
        return linked;
    }

    /** Takes what the call left: the new image and declarations, or nothing if it was lost. */
    private synchronized void keep(
            SessionCall call, LambdaCall lambda, Throwable failure, Set<String> callGlobals) {
        busy = false;
        lastUsedNanos = System.nanoTime();
        calls++;
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause()
                        : failure;
        if (cause instanceof SessionException se && se.reason() == SessionException.Reason.IMAGE) {
            endNow(SessionException.Reason.CLOSED);
            return;
        }
        if (ended != null || call.after == null) {
            return; // closed meanwhile, or the call's state was not kept: the old one stands
        }
        image = call.after;
        declared.putAll(call.declared);
        if (lambda != null && lambda.kept) {
            linked = lambda.linkedAfter;
        }
        globals = Set.copyOf(new LinkedHashSet<>(callGlobals));
    }

    /**
     * The session's state as bytes: its engine image and declared names, compressed, with a format
     * version, the engine build and a digest (docs/sessions.md, "Saved sessions"). {@link
     * Sandbox#restoreSession} brings it back.
     *
     * @throws SessionException while a call runs (host work may be in flight), or when the session
     *     is closed
     */
    public byte[] save() {
        EngineImage held;
        Map<String, String> names;
        Set<String> host;
        synchronized (this) {
            checkUsable();
            if (busy) {
                throw new SessionException(
                        SessionException.Reason.BUSY,
                        "session "
                                + id
                                + " cannot be saved while a call runs (host work may be in"
                                + " flight)");
            }
            held = image;
            names = new LinkedHashMap<>(declared);
            host = globals;
            lastUsedNanos = System.nanoTime();
        }
        return SessionImages.write(options, held, names, host);
    }

    /**
     * An independent copy of the session: same state, same options, its own id; later calls on
     * either do not affect the other. Counts against the sandbox's session cap.
     *
     * @throws SessionException while a call runs, when the session is closed, or at the cap
     */
    public SandboxSession fork() {
        synchronized (this) {
            checkUsable();
            if (busy) {
                throw new SessionException(
                        SessionException.Reason.BUSY,
                        "session " + id + " cannot be forked while a call runs");
            }
            lastUsedNanos = System.nanoTime();
            return sandbox.sessions().open(options, image, declared, globals);
        }
    }

    /** Whether calls are accepted: not closed, not expired. */
    public synchronized boolean isOpen() {
        return ended == null;
    }

    /** Calls that ran to a result (any outcome) so far. */
    public synchronized long calls() {
        return calls;
    }

    /** Bytes of engine memory the session's state holds (its non-zero 4 KiB blocks). */
    public synchronized long heldBytes() {
        return image == null ? 0 : image.heldBytes();
    }

    /** How long since the session was last used. */
    public synchronized Duration idle() {
        return Duration.ofNanos(System.nanoTime() - lastUsedNanos);
    }

    /** Closes the session and drops its state; a call running now still completes. */
    @Override
    public void close() {
        synchronized (this) {
            if (ended != null) {
                return;
            }
            endNow(SessionException.Reason.CLOSED);
        }
    }

    /** Closes the session if it has been idle past its expiry; true when it did. */
    synchronized boolean expireIfIdle(long nowNanos) {
        if (ended != null || busy) {
            return false;
        }
        if (nowNanos - lastUsedNanos < options.idleTimeout().toNanos()) {
            return false;
        }
        endNow(SessionException.Reason.EXPIRED);
        return true;
    }

    /** Ends the session; guarded by this. */
    void endNow(SessionException.Reason why) {
        assert Thread.holdsLock(this);
        if (ended == null) {
            ended = why;
            image = null;
            declared.clear();
            sandbox.sessions().remove(this);
        }
    }

    private void checkUsable() {
        if (ended == SessionException.Reason.EXPIRED) {
            throw new SessionException(
                    SessionException.Reason.EXPIRED,
                    "session "
                            + id
                            + " expired after "
                            + options.idleTimeout()
                            + " idle and was closed");
        }
        if (ended != null || sandbox.isClosed()) {
            throw new SessionException(
                    SessionException.Reason.CLOSED, "session " + id + " is closed");
        }
    }

    @Override
    public String toString() {
        return "SandboxSession[" + id + "]";
    }
}
