package dev.sandjar.host;

import dev.sandjar.quickjs.EngineImage;
import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.QuickJsEngine;
import dev.sandjar.transport.codec.Transport;
import java.util.List;

/**
 * Setup of one run, before any user code (docs/sandbox.md, "A run, in order", step 4): the engine
 * restored to the prepared template for the run's bridges, the run's heap, stack and growth limits
 * set, then the injected globals defined. Times each phase into {@link SetupPhases}. Engine thread
 * only; {@link #restore} first, then {@link #defineGlobals}.
 */
final class RunSetup {
    private final Sandbox sandbox;
    private final Limits limits;
    private final RunBudget budget;
    private final SetupPhases phases;
    private long start;
    private long cpuStart;
    private long limitsSet;

    RunSetup(Sandbox sandbox, Limits limits, RunBudget budget, SetupPhases phases) {
        this.sandbox = sandbox;
        this.limits = limits;
        this.budget = budget;
        this.phases = phases;
    }

    /**
     * Restores {@code engine} to the template for {@code bridges} (building it first if new),
     * routes its host callbacks to {@code run}, starts the CPU budget and sets the run's limits.
     */
    Template restore(
            QuickJsEngine engine, RunExecution run, List<Bridge> bridges, EngineImage session) {
        start = System.nanoTime();
        cpuStart = budget.cpuNow();
        Template template = sandbox.templates().restoreFor(engine, run, bridges);
        if (session != null) {
            try {
                engine.restoreImage(template.snapshot, session);
            } catch (IllegalArgumentException e) {
                throw new SessionException(
                        SessionException.Reason.IMAGE,
                        "the session's state does not fit this sandbox: " + e.getMessage());
            }
        }
        FaultPoints.at(FaultPoints.RESTORE);
        long restored = System.nanoTime();
        phases.runtimeNanos = restored - start;
        // The CPU budget is the guest's: building a template (~0.15-0.6 s on a cold engine, once
        // per engine and bridge set) is the sandbox's own cost, so the budget starts only here;
        // until then the wall bound and cancellation still stop the run.
        budget.start();

        template.runtime.setMemoryLimit(limits.heapBytes());
        template.runtime.setMaxStackSize(limits.stackBytes());
        engine.setGrowthLimitPages(sandbox.growthPagesFor(limits.heapBytes()));
        limitsSet = System.nanoTime();
        phases.contextNanos = limitsSet - restored;
        phases.bridgesNanos = 0;
        return template;
    }

    /** Removes the globals the host defined for a session's previous call. */
    void removeGlobals(Template template, RunExecution run, java.util.Set<String> names) {
        if (names.isEmpty()) {
            return;
        }
        StringBuilder script = new StringBuilder("\"use strict\";");
        for (String n : names) {
            script.append("delete globalThis.").append(n).append(';');
        }
        try (JsResult r = template.context.evalScript(script.toString(), "sandjar:session")) {
            if (!r.isOk()) {
                throw run.setupFailure(r.error());
            }
        }
    }

    /**
     * Defines the request's globals, from the binary format when they had one, else from the
     * codec's JSON and sidecar. A reserved global name is the caller's error ({@link
     * InvalidRequestException}).
     */
    void defineGlobals(
            Template template,
            ValueTransfer values,
            RunExecution run,
            Transport.Encoded globals,
            byte[] binaryGlobals) {
        JsContext ctx = template.context;
        if (binaryGlobals != null) {
            try (JsValue read = values.readBinary(binaryGlobals);
                    JsResult defined =
                            ctx.call(template.defineGlobalValues, ctx.undefined(), read)) {
                checkDefined(defined, run);
            }
        } else if (globals != null) {
            try (JsValue json = ctx.newString(globals.json());
                    JsValue side = values.sidecar(globals.sidecar());
                    JsResult defined =
                            ctx.call(template.defineGlobals, ctx.undefined(), json, side)) {
                checkDefined(defined, run);
            }
        }
        long end = System.nanoTime();
        phases.preludeNanos = end - limitsSet;
        phases.setupNanos = end - start;
        if (RunBudget.measuresCpu()) {
            phases.setupCpuNanos = budget.cpuNow() - cpuStart;
        }
    }

    private static void checkDefined(JsResult defined, RunExecution run) {
        if (!defined.isOk()) {
            JsError err = defined.error();
            if (err.name().equals("SandjarReservedGlobal")) {
                throw new InvalidRequestException(err.message());
            }
            throw run.setupFailure(err);
        }
    }
}
