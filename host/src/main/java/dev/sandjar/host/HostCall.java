package dev.sandjar.host;

/**
 * One guest call's host work, as the code doing it sees it: a bridge's task started with {@link
 * RunSession#work}, or an {@link IsolatedTask} in a worker process. The work runs under its run's
 * budgets (docs/sandbox.md, "Host work"): its CPU time counts against the run's {@code timeout}
 * together with the guest's, the memory it takes against {@code hostBytes}, and it ends with the
 * run. Work that loops over units of input (rows, entries, pages, drawing operations) calls {@link
 * #check()} between them, so a call past a bound stops there with a clear error instead of when the
 * host forcibly ends it. Used by the thread running the work only.
 */
public interface HostCall {
    /** {@code bridge.operation} (or a module's {@code module.function}), as messages name it. */
    String where();

    /**
     * Throws a {@link BridgeException} once the call must stop: the run ended or was cancelled
     * ({@code CANCELLED}), the run's CPU budget is spent ({@code HOST_CPU_LIMIT}), or the call took
     * more memory than {@code hostBytes} allows ({@code HOST_MEMORY_LIMIT}). Cheap enough to call
     * for every unit of work: it reads flags the host's meter sets.
     */
    void check();

    /** Whether {@link #check()} would throw. */
    boolean isStopped();

    /**
     * Counts CPU time that work this call waits for used outside the JVM (a child process it
     * started, such as ffmpeg) against the run's budget, as if the call had used it. Call it as the
     * process runs with what it used since the last call, so the budget can end the run in time.
     */
    default void chargeCpu(long nanos) {}
}
