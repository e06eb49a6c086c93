package dev.sandjar.host;

import dev.sandjar.host.RunExecution.GuestFailure;
import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsContext.PromiseState;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsRuntime;
import dev.sandjar.quickjs.JsValue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One run's event loop: runs pending jobs and applies finished host operations until a promise
 * settles, the budget runs out, or nothing is left that could settle it (then it fails at once
 * instead of hanging). Host work completes on any thread and {@link #post posts} its completion
 * here; the loop applies it on the engine thread. {@link #post}, {@link #wake} and {@link #clear}
 * are thread-safe; {@link #settle} runs on the engine thread.
 */
final class EventLoop {
    private static final Runnable WAKE = () -> {};
    private static final long WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final RunBudget budget;
    private final Function<JsError, RunError> errors;
    private final LinkedBlockingQueue<Runnable> completions = new LinkedBlockingQueue<>();

    /**
     * @param errors the run's mapping of a guest error to its run error
     */
    EventLoop(RunBudget budget, Function<JsError, RunError> errors) {
        this.budget = budget;
        this.errors = errors;
    }

    /** Queues a completion to apply on the engine thread. */
    void post(Runnable completion) {
        completions.add(completion);
    }

    /** Wakes a loop waiting for completions, so it sees a cancellation at once. */
    void wake() {
        completions.add(WAKE);
    }

    /** Drops completions not yet applied (the run ended). */
    void clear() {
        completions.clear();
    }

    /**
     * Drives jobs and host completions until {@code promise} settles; returns its value (owned by
     * the caller). A value that is not a promise is returned as it is. A rejection, a job's
     * uncaught error, the budget running out, or a promise nothing can settle throws {@link
     * GuestFailure}.
     */
    JsValue settle(JsContext ctx, JsRuntime runtime, JsValue promise, BridgeDispatcher host) {
        while (true) {
            PromiseState s = ctx.promiseState(promise);
            if (s == PromiseState.NOT_A_PROMISE) {
                return promise;
            }
            if (s == PromiseState.FULFILLED) {
                return ctx.promiseResult(promise);
            }
            if (s == PromiseState.REJECTED) {
                try (JsValue reason = ctx.promiseResult(promise)) {
                    throw new GuestFailure(errors.apply(ctx.errorOf(reason)));
                }
            }
            JsRuntime.JobsResult jobs = runtime.executePendingJobs(-1);
            if (jobs.error() != null) {
                throw new GuestFailure(errors.apply(jobs.error()));
            }
            drainCompletions();
            if (ctx.promiseState(promise) != PromiseState.PENDING || runtime.isJobPending()) {
                continue;
            }
            if (budget.expired()) {
                throw new GuestFailure(budget.error());
            }
            if (!host.hasPending()) {
                throw new GuestFailure(
                        RunError.of(
                                RunError.Kind.EXCEPTION,
                                "Error",
                                "the code awaits a promise that nothing can settle: no job is"
                                        + " queued and no host operation is in flight"));
            }
            waitForCompletion();
        }
    }

    private void waitForCompletion() {
        long wait = Math.max(1, Math.min(budget.wallRemainingNanos(), WAIT_SLICE_NANOS));
        long before = System.nanoTime();
        Runnable c;
        try {
            c = completions.poll(wait, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            budget.cancel();
            return;
        } finally {
            budget.waited(System.nanoTime() - before);
        }
        if (c != null) {
            c.run();
        }
    }

    private void drainCompletions() {
        for (Runnable c; (c = completions.poll()) != null; ) {
            c.run();
        }
    }
}
