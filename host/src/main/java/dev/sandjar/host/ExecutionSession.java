package dev.sandjar.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One run as its bridges' handlers see it ({@link RunSession}): id, limits, cancellation, end
 * actions, result holds, the log, per-run state and the sandbox's executors. Thread-safe: handlers
 * call it on the engine thread, the stages they return complete anywhere.
 */
final class ExecutionSession implements RunSession {
    private static final Logger LOG = Logger.getLogger(ExecutionSession.class.getName());

    private final Sandbox sandbox;
    private final String runId;
    private final Limits limits;
    private final RunBudget budget;
    private final LogCollector logs;
    private final Redactions redactions;
    private final HostAccount host;
    private final Map<Object, Object> state = new ConcurrentHashMap<>();
    private final List<Runnable> endActions = new ArrayList<>();
    private final List<CompletableFuture<?>> holds = new ArrayList<>(); // under endActions' lock
    private boolean holdsClosed; // under endActions' lock
    private volatile boolean ended;

    ExecutionSession(
            Sandbox sandbox,
            String runId,
            Limits limits,
            RunBudget budget,
            LogCollector logs,
            Redactions redactions,
            Runnable wake,
            List<HostMemory> hostMemories) {
        this.sandbox = sandbox;
        this.runId = runId;
        this.limits = limits;
        this.budget = budget;
        this.logs = logs;
        this.redactions = redactions;
        this.host = new HostAccount(sandbox, runId, limits, budget, wake, hostMemories);
        budget.countHostCpu(host::cpuNanos);
    }

    /** The run's host work and the CPU it used. */
    HostAccount host() {
        return host;
    }

    /** True once the run ended: bridge calls are refused and completions are dropped. */
    boolean hasEnded() {
        return ended;
    }

    /** Marks the run ended, before its end actions run. */
    void markEnded() {
        ended = true;
    }

    /** Runs the end actions once; an action registered later runs at once. */
    void runEndActions() {
        host.end();
        List<Runnable> actions;
        synchronized (endActions) {
            ended = true;
            actions = List.copyOf(endActions);
            endActions.clear();
        }
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                // Whatever one action throws, the others run and the run still ends.
                LOG.log(Level.WARNING, "run " + runId + ": an end action failed", e);
            }
        }
    }

    /** What the result waits for, or null; no hold is taken after this. */
    CompletableFuture<Void> heldBy() {
        List<CompletableFuture<?>> pendingHolds;
        synchronized (endActions) {
            holdsClosed = true;
            pendingHolds = List.copyOf(holds);
            holds.clear();
        }
        if (pendingHolds.isEmpty()) {
            return null;
        }
        return CompletableFuture.allOf(pendingHolds.toArray(CompletableFuture[]::new));
    }

    @Override
    public String runId() {
        return runId;
    }

    @Override
    public Limits limits() {
        return limits;
    }

    @Override
    public boolean isCancelled() {
        return ended || budget.cancelRequested();
    }

    @Override
    public void holdResultUntil(CompletionStage<?> delivery) {
        // Any stage will do (not only a CompletableFuture), and how it completes does not matter.
        CompletableFuture<Void> f = new CompletableFuture<>();
        delivery.whenComplete((v, t) -> f.complete(null));
        synchronized (endActions) {
            if (!holdsClosed && !f.isDone()) {
                holds.add(f);
            }
        }
    }

    @Override
    public void onEnd(Runnable action) {
        synchronized (endActions) {
            if (!ended) {
                endActions.add(action);
                return;
            }
        }
        action.run();
    }

    @Override
    public boolean redact(String value) {
        return redactions.add(value);
    }

    @Override
    public String redacted(String text) {
        return redactions.apply(text);
    }

    @Override
    public void log(LogEntry.Level level, String message) {
        logs.add(level, message, "guest");
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T state(Object key, Supplier<T> create) {
        return (T) state.computeIfAbsent(key, k -> create.get());
    }

    @Override
    public <T> CompletableFuture<T> work(String where, Function<HostCall, T> task) {
        return host.work(where, task);
    }

    @Override
    public CompletableFuture<Object> isolated(
            String where, Class<? extends IsolatedTask> task, Object input) {
        return host.isolated(where, task, input);
    }

    @Override
    public Reservation reserveHostMemory(String where, long bytes) {
        return host.reserve(where, bytes);
    }

    @Override
    public CompletableFuture<Object> isolatedForGuest(
            String where, Class<? extends IsolatedTask> task, Object input) {
        return host.isolatedForGuest(where, task, input);
    }

    @Override
    public <T> T await(CompletableFuture<T> work) {
        try {
            return work.get();
        } catch (InterruptedException e) {
            work.cancel(true);
            Thread.currentThread().interrupt();
            throw BridgeException.cancelled("the run was stopped while host work was in flight");
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(c);
        } catch (java.util.concurrent.CancellationException e) {
            throw BridgeException.cancelled("the host work was cancelled");
        }
    }

    @Override
    public Executor executor() {
        return sandbox.blockingExecutor();
    }

    @Override
    public CompletableFuture<Void> delay(Duration delay) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ScheduledFuture<?> timer =
                sandbox.timer()
                        .schedule(
                                () -> done.complete(null),
                                Math.max(0, delay.toNanos()),
                                TimeUnit.NANOSECONDS);
        onEnd(
                () -> {
                    timer.cancel(false);
                    done.completeExceptionally(
                            BridgeException.cancelled("the run ended during a delay"));
                });
        return done;
    }
}
