package dev.sandjar.bridges.node;

import dev.sandjar.bridges.progress.Progress;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.SandboxClock;
import dev.sandjar.host.SandboxRun;
import dev.sandjar.host.ValueJson;
import dev.sandjar.transport.Undefined;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One execution of a {@link CodeNode}: its invocations one after another (one for a streaming body
 * or when nothing is connected, else one per arriving item), the events they make, and the result.
 * Invocations chain on the threads that complete their runs and items; nothing here blocks.
 */
final class NodeRunner implements NodeExecution {
    static final String BRIDGE = "node";

    static final String LEGACY_WARNING =
            "deprecated: the body calls neither emit nor output, so the keys of the object it"
                    + " returns became its outputs; write await output(name, value) (or emit)"
                    + " instead";

    private final CodeNode node;
    private final NodeInvocation invocation;
    private final EventChannel channel;
    private final StreamHub hub;
    private final SandboxClock clock;
    private final CompletableFuture<NodeResult> result = new CompletableFuture<>();
    private final List<LogEntry> logs = new ArrayList<>(); // guarded by this
    private final List<String> warnings = new ArrayList<>(); // guarded by this
    private final Map<String, Object> latest = new LinkedHashMap<>(); // per-item: edge values
    private Map<String, Object> state; // guarded by this
    private Map<String, Object> outputs = Map.of(); // guarded by this
    private int invocations; // guarded by this
    private RunResult lastRun; // guarded by this
    private SandboxRun current; // guarded by this
    private boolean cancelled; // guarded by this
    private boolean finished; // guarded by this

    NodeRunner(CodeNode node, NodeInvocation invocation) {
        this.node = node;
        this.invocation = invocation;
        this.channel = new EventChannel(invocation.listener(), node.emitQueue, CodeNode.EVENTS);
        this.hub = new StreamHub(new LinkedHashMap<>(invocation.streams()), node.inputs);
        this.clock = invocation.clock() != null ? invocation.clock() : SandboxClock.create();
        this.state = new LinkedHashMap<>(invocation.state());
    }

    @Override
    public CompletableFuture<NodeResult> result() {
        return result;
    }

    @Override
    public void cancel() {
        SandboxRun run;
        synchronized (this) {
            if (cancelled || finished) {
                return;
            }
            cancelled = true;
            run = current;
        }
        channel.close();
        hub.close(); // every waiting take answers end of stream
        if (run != null) {
            run.cancel();
        } else {
            finish(cancelledError());
        }
    }

    void start() {
        try {
            hub.start();
        } catch (RuntimeException e) {
            finish(error(RunError.Kind.INTERNAL, "Error", "a stream failed to start: " + e));
            return;
        }
        if (node.isStreaming() || hub.isEmpty()) {
            RunError misuse = node.isStreaming() ? connectedInputRead() : null;
            if (misuse != null) {
                finish(misuse);
                return;
            }
            invoke(new LinkedHashMap<>(invocation.inputs()), true);
        } else {
            nextItem();
        }
    }

    /** Per-item mode: waits for the next item of any handle, then runs the body on it. */
    private void nextItem() {
        hub.nextItem()
                .whenComplete(
                        (item, failure) -> {
                            if (failure != null) {
                                finish(streamFailure(failure));
                                return;
                            }
                            if (item == StreamHub.END) {
                                finish(null);
                                return;
                            }
                            @SuppressWarnings("unchecked")
                            Map<String, Object> taken = (Map<String, Object>) item;
                            latest.put((String) taken.get("handle"), taken.get("value"));
                            Map<String, Object> values = new LinkedHashMap<>(invocation.inputs());
                            values.putAll(latest);
                            invoke(values, false);
                        });
    }

    /** Runs the body once; {@code last}: the execution ends with it. */
    private void invoke(Map<String, Object> values, boolean last) {
        Invocation inv;
        SandboxRun run;
        synchronized (this) {
            if (cancelled) {
                finish(cancelledError());
                return;
            }
            inv = new Invocation(++invocations);
            try {
                run = node.sandbox.submit(request(inv, values, state));
            } catch (RuntimeException e) {
                finish(error(RunError.Kind.INTERNAL, "Error", String.valueOf(e.getMessage())));
                return;
            }
            current = run;
        }
        run.result()
                .whenComplete(
                        (r, failure) -> {
                            if (failure != null) {
                                finish(
                                        error(
                                                RunError.Kind.INTERNAL,
                                                "Error",
                                                String.valueOf(failure.getMessage())));
                                return;
                            }
                            RunError error = completed(inv, r);
                            if (error != null || last) {
                                finish(error);
                            } else {
                                nextItem();
                            }
                        });
    }

    private RunRequest request(Invocation inv, Map<String, Object> values, Map<String, Object> st) {
        List<Bridge> bridges = new ArrayList<>();
        for (Bridge b : node.bridges) {
            bridges.add(
                    b.name().equals("progress")
                            ? Progress.inlineBridge(
                                    p ->
                                            channel.add(
                                                    new NodeEvent.Progress(
                                                            p.percent(), p.message())))
                            : b);
        }
        bridges.add(bridge(inv));
        RunRequest.Builder r =
                RunRequest.builder(node.code)
                        .filename(node.filename)
                        .limits(node.limits)
                        .bridges(bridges)
                        .clock(clock)
                        .onLog(
                                line -> {
                                    synchronized (this) {
                                        logs.add(line);
                                    }
                                    channel.add(new NodeEvent.Log(line));
                                })
                        .input("inputs", values)
                        .global("state", new LinkedHashMap<>(st));
        node.hostMemories.forEach(r::hostMemory);
        if (node.modules != null) {
            r.modules(node.modules);
        }
        return r.build();
    }

    /** An invocation's run ended: its outputs and state, or its error. */
    private RunError completed(Invocation inv, RunResult r) {
        synchronized (this) {
            lastRun = r;
            current = null;
            if (!r.isOk()) {
                return r.error();
            }
            Map<String, Object> finals;
            if (node.isLegacy()) {
                Object legacy = legacyOutputs(r.value());
                if (legacy instanceof RunError e) {
                    return e;
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> m = (Map<String, Object>) legacy;
                finals = m;
                if (!warnings.contains(LEGACY_WARNING)) {
                    warnings.add(LEGACY_WARNING);
                }
            } else {
                finals = inv.finals;
            }
            Object after = r.globals().get("state");
            if (after instanceof Map<?, ?> m) {
                @SuppressWarnings("unchecked")
                Map<String, Object> next = new LinkedHashMap<>((Map<String, Object>) m);
                state = next;
            } else {
                String w =
                        "state must stay an object; the body replaced it, so it was kept as it was";
                if (!warnings.contains(w)) {
                    warnings.add(w);
                }
            }
            outputs = finals;
            channel.add(new NodeEvent.Outputs(finals, state, inv.index));
            return null;
        }
    }

    /** A legacy body's outputs: its returned object's keys; or the error why not. */
    private Object legacyOutputs(Object value) {
        if (value == null || value instanceof Undefined) {
            return Map.of();
        }
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                String key = String.valueOf(e.getKey());
                if (!node.outputs.isEmpty() && !node.outputs.contains(key)) {
                    return error(
                            RunError.Kind.EXCEPTION,
                            "Error",
                            "the body returned '"
                                    + key
                                    + "', which is not a declared output; the outputs are "
                                    + node.outputs());
                }
                out.put(key, e.getValue());
            }
            return out;
        }
        if (node.outputs.size() == 1) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put(node.outputs.iterator().next(), value);
            return out;
        }
        return error(
                RunError.Kind.EXCEPTION,
                "TypeError",
                "a legacy body returns an object keyed by output handle "
                        + node.outputs()
                        + "; better, write await output(name, value)");
    }

    private void finish(RunError error) {
        List<String> w;
        List<LogEntry> l;
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
            if (error == null && cancelled) {
                error = cancelledError();
            }
            w = List.copyOf(warnings);
            l = List.copyOf(logs);
        }
        hub.close();
        RunError e = error;
        Map<String, Object> outs;
        Map<String, Object> st;
        int count;
        RunResult last;
        synchronized (this) {
            outs = e == null ? outputs : Map.of();
            st = state;
            count = invocations;
            last = lastRun;
        }
        channel.drained()
                .whenComplete(
                        (v, x) ->
                                result.complete(
                                        new NodeResult(
                                                e,
                                                outs,
                                                st,
                                                w,
                                                count,
                                                channel.emits(),
                                                channel.dropped(),
                                                l,
                                                last)));
    }

    private RunError connectedInputRead() {
        List<CodeAnalysis.Reference> refs = node.analysis.freeReferences();
        if (refs == null) {
            return null;
        }
        for (CodeAnalysis.Reference r : refs) {
            if (r.name().equals("inputs")
                    && r.property() != null
                    && hub.connected().contains(r.property())) {
                return new RunError(
                        RunError.Kind.EXCEPTION,
                        "TypeError",
                        "inputs."
                                + r.property()
                                + " is a connected stream, and a body that uses stream reads it"
                                + " with stream(\""
                                + r.property()
                                + "\"); inputs holds only configured values",
                        "",
                        r.line(),
                        r.column());
            }
        }
        return null;
    }

    private static RunError streamFailure(Throwable failure) {
        Throwable t = failure.getCause() != null ? failure.getCause() : failure;
        return error(RunError.Kind.EXCEPTION, "Error", String.valueOf(t.getMessage()));
    }

    private static RunError cancelledError() {
        return error(RunError.Kind.CANCELLED, "CancelledError", "the node was cancelled");
    }

    private static RunError error(RunError.Kind kind, String name, String message) {
        return new RunError(kind, name, message, "", 0, 0);
    }

    /** One invocation's finals, and the node's bridge serving it. */
    private static final class Invocation {
        final int index;
        final Map<String, Object> finals = new LinkedHashMap<>(); // engine thread only

        Invocation(int index) {
            this.index = index;
        }
    }

    private Bridge bridge(Invocation inv) {
        return Bridge.builder(BRIDGE)
                .guest(CodeNode.GUEST)
                .operation(
                        Operation.builder("emit")
                                .param(Param.any("name"))
                                .param(Param.any("value").optional())
                                .handler(
                                        call -> {
                                            String handle = handle(call, "emit");
                                            Object value = call.arg(1);
                                            checkSize(call, "emit", handle, value);
                                            return channel.emit(handle, value, clock);
                                        })
                                .build())
                .operation(
                        Operation.builder("output")
                                .param(Param.any("name"))
                                .param(Param.any("value").optional())
                                .handler(
                                        call -> {
                                            String handle = handle(call, "output");
                                            if (inv.finals.containsKey(handle)) {
                                                throw new BridgeException(
                                                        "Error",
                                                        "OUTPUT_ALREADY_SET",
                                                        "output: '"
                                                                + handle
                                                                + "' already has its final value;"
                                                                + " a handle takes one output (emit"
                                                                + " streams any number)");
                                            }
                                            Object value = call.arg(1);
                                            checkSize(call, "output", handle, value);
                                            inv.finals.put(handle, value);
                                            return null;
                                        })
                                .build())
                .operation(
                        Operation.builder("take")
                                .param(Param.any("name"))
                                .handler(call -> hub.take("stream", call.arg(0), clock))
                                .build())
                .operation(Operation.builder("takeAny").handler(call -> hub.takeAny(clock)).build())
                .operation(
                        Operation.builder("open")
                                .param(Param.any("name"))
                                .handler(call -> hub.isOpen("stream", call.arg(0)))
                                .build())
                .build();
    }

    private String handle(OperationCall call, String where) {
        Object name = call.arg(0);
        if (!(name instanceof String handle)) {
            throw new BridgeException(
                    "TypeError",
                    BridgeException.INVALID_ARGUMENT,
                    where
                            + ": the handle name must be a string; the outputs are "
                            + node.outputs());
        }
        if (!node.outputs.contains(handle)) {
            throw new BridgeException(
                    "Error",
                    "UNDECLARED_OUTPUT",
                    where
                            + ": '"
                            + handle
                            + "' is not a declared output; the outputs are "
                            + node.outputs());
        }
        return handle;
    }

    /** A value the caller receives is bounded like a run's result (outputBytes). */
    private static void checkSize(OperationCall call, String where, String handle, Object value) {
        long limit = call.session().limits().outputBytes(); // resolved: never null in a run
        int size = ValueJson.write(value, where).length();
        if (size > limit) {
            throw new BridgeException(
                    "RangeError",
                    "OUTPUT_TOO_LARGE",
                    where
                            + ": the value for '"
                            + handle
                            + "' is "
                            + size
                            + " characters as JSON; the limit (outputBytes) is "
                            + limit);
        }
    }
}
