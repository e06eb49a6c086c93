package dev.sandjar.host;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a bridge's handlers can see of the run they serve. Thread-safe: handlers run on the engine
 * thread, but the stages they return complete wherever their work does.
 */
public interface RunSession {
    /** A unique id for the run, for the host's own logs. */
    String runId();

    /** The run's effective limits. */
    Limits limits();

    /**
     * True once the run was cancelled, timed out, or ended. Bridge work still in flight should
     * stop; new calls from the guest are refused before they reach a handler.
     */
    boolean isCancelled();

    /**
     * Runs {@code action} once when the run is cancelled or ends, whichever comes first (at once if
     * that already happened). For aborting in-flight work and releasing per-run resources.
     */
    void onEnd(Runnable action);

    /** The longest a run's result waits for {@link #holdResultUntil} stages after the run ends. */
    Duration MAX_RESULT_HOLD = Duration.ofSeconds(5);

    /**
     * Holds the run's result until {@code delivery} completes: for work a bridge hands to the host
     * off the engine thread (progress reports to a listener) that the caller should see before the
     * result. The engine is released first; the hold only delays the result, by at most {@link
     * #MAX_RESULT_HOLD} after the run ends, after which the result completes anyway and a warning
     * is logged. May be called until the run's end actions have run (an {@link #onEnd} action may
     * call it); later it has no effect. How the stage completes does not matter.
     */
    void holdResultUntil(CompletionStage<?> delivery);

    /**
     * Masks {@code value} wherever the run's text leaves it: from now on in the run's log (before a
     * log listener sees a line), and in the run's {@link RunError} (name, message and stack). Its
     * base64, hex and URL-encoded forms are masked too; a masked value reads {@code ***}. For a
     * bridge that hands the guest a value the caller must not see printed back (a secret).
     *
     * <p>Masking guards against accidents, not a guest bent on leaking: a value printed reversed or
     * split is not found. Values shorter than 4 characters are not masked (masking them would ruin
     * every line), and a run masks at most 1,000 distinct values.
     *
     * @return whether the value is masked
     */
    boolean redact(String value);

    /**
     * {@code text} with every value given to {@link #redact} masked, for text a bridge hands the
     * caller itself (a progress message) rather than through the log.
     */
    String redacted(String text);

    /** Adds a line to the run's log, under the log's caps. */
    void log(LogEntry.Level level, String message);

    /**
     * Per-run state for a bridge, created on first use: {@code session.state(MyState.class,
     * MyState::new)}. Keys are compared with {@code equals}.
     */
    <T> T state(Object key, Supplier<T> create);

    /**
     * Runs {@code task} off the engine thread as host work of this run (docs/sandbox.md, "Host
     * work"): its CPU time counts against the run's {@code timeout}, the bytes it allocates against
     * {@code hostBytes} (past it the call fails {@code HOST_MEMORY_LIMIT}), at most two such calls
     * of a run work at once (later ones wait in order), and the run's end stops it. The task calls
     * {@link HostCall#check()} between units of work. The future completes with the task's value,
     * or with what it threw; return it from a handler and the guest sees a promise.
     *
     * @throws BridgeException {@code CANCELLED} when the run has ended, {@code HOST_CPU_LIMIT} when
     *     its host work already spent the CPU budget
     */
    <T> CompletableFuture<T> work(String where, Function<HostCall, T> task);

    /**
     * Runs an {@link IsolatedTask} as host work of this run, in one of the sandbox's worker
     * processes when it isolates host work ({@link HostIsolation}), else like {@link #work}. For
     * third-party code over untrusted input: a task that runs out of memory or time ends its worker
     * process, not the sandbox's JVM. The run's isolated calls work one at a time, in order. The
     * result (the task's value, copied) may take at most {@code hostBytes}.
     *
     * @throws BridgeException as {@link #work}
     */
    CompletableFuture<Object> isolated(
            String where, Class<? extends IsolatedTask> task, Object input);

    /**
     * {@link #isolated}, for a value that goes to the guest as it is: from a worker process it
     * completes with an {@link EncodedValue}, which enters the guest's heap without being Java
     * objects in the sandbox's (a handler returns the stage; {@link EncodedValue#decode()} if it
     * must look inside). In this JVM it completes with the task's own value.
     */
    CompletableFuture<Object> isolatedForGuest(
            String where, Class<? extends IsolatedTask> task, Object input);

    /**
     * Waits on the engine thread for host work a synchronous operation needs ({@link #work}, {@link
     * #isolated}), and returns its value. The wait ends with the run's bounds: the work itself
     * stops at them, and a cancelled run's watchdog interrupt ends the wait ({@code CANCELLED}). A
     * {@link BridgeException} of the work is thrown as it is.
     */
    <T> T await(CompletableFuture<T> work);

    /**
     * Takes {@code bytes} of the host memory budgets this run counts against ({@link HostMemory}:
     * the sandbox's, and any the request added) for something the bridge keeps on the host for the
     * run (a media handle's bytes). Released by {@link Reservation#close()}, or when the run ends.
     *
     * @throws BridgeException {@code HOST_MEMORY_LIMIT}, naming the budget, when it would pass one
     */
    Reservation reserveHostMemory(String where, long bytes);

    /** Host memory a bridge holds for a run ({@link #reserveHostMemory}). */
    interface Reservation extends AutoCloseable {
        /** Gives the bytes back; idempotent. */
        @Override
        void close();
    }

    /** An executor for blocking bridge work (file and network I/O), shared by the sandbox. */
    Executor executor();

    /**
     * A stage that completes after {@code delay}, or fails with a {@link BridgeException} of code
     * {@code CANCELLED} when the run ends first.
     */
    CompletableFuture<Void> delay(Duration delay);
}
