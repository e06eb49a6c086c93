package dev.sandjar.host;

import dev.sandjar.quickjs.QuickJsEngine;

/**
 * Collects what one run cost as it goes (queueing, the setup phases, guest CPU, memory) and
 * assembles its {@link RunStats}. Engine thread only, except for a run that never reached an
 * engine, whose stats hold only its wall time.
 */
final class RunStatsRecorder {
    private final RunBudget budget;
    private final SetupPhases phases = new SetupPhases();
    private QuickJsEngine engine;
    private long queueNanos;
    private int pagesAtStart = -1;
    private long guestCpuStart;

    RunStatsRecorder(RunBudget budget) {
        this.budget = budget;
    }

    /** The run reached {@code engine} after waiting {@code queueNanos} for it. */
    void started(QuickJsEngine engine, long queueNanos) {
        this.engine = engine;
        this.queueNanos = queueNanos;
        this.pagesAtStart = engine.currentPages();
    }

    SetupPhases phases() {
        return phases;
    }

    /** The first user statement is about to run: guest CPU counts from here. */
    void guestStarts() {
        guestCpuStart = budget.cpuNow();
    }

    RunStats stats(long wallNanos, long bridgeCalls, java.util.Map<String, Long> callsByBridge) {
        long guestCpu =
                guestCpuStart == 0 || engine == null ? 0 : Math.max(0, cpuSinceGuestStart());
        long pages = engine == null ? 0 : engine.currentPages();
        long grown = pagesAtStart < 0 ? 0 : pages - pagesAtStart;
        return new RunStats(
                queueNanos,
                phases.analysisNanos,
                phases.runtimeNanos,
                phases.contextNanos,
                phases.bridgesNanos,
                phases.preludeNanos,
                phases.setupNanos,
                phases.setupCpuNanos,
                guestCpu,
                budget.hostCpuNanos(),
                wallNanos,
                bridgeCalls,
                pages * 65536,
                grown * 65536,
                budget.watchdogFired(),
                callsByBridge);
    }

    private long cpuSinceGuestStart() {
        try {
            return budget.cpuNow() - guestCpuStart;
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
