package dev.sandjar.host;

import dev.sandjar.host.RunExecution.GuestFailure;
import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsException;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.transport.codec.Transport;
import dev.sandjar.transport.codec.TransportException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one host function the prelude hands to the bridges, for one run: checks each call (the run
 * still going, the bridge and operation known, the pending limit, every argument against its {@link
 * Param}) before any handler runs, calls the handler, and keeps the host operations in flight,
 * settling each one's guest promise when its work completes. Engine thread only, except that
 * completions are posted to the {@link EventLoop} from wherever the work completes.
 */
final class BridgeDispatcher {
    private static final Logger LOG = Logger.getLogger(BridgeDispatcher.class.getName());

    private final JsContext ctx;
    private final List<Bridge> bridges;
    private final ExecutionSession session;
    private final RunBudget budget;
    private final Limits limits;
    private final ValueTransfer values;
    private final EventLoop loop;
    private final Map<Integer, Pending> pending = new HashMap<>();
    private int nextOpId;
    private long calls;
    private final Map<String, Long> callsByBridge = new java.util.TreeMap<>();

    /** A host operation in flight: the guest promise's resolving functions and the host work. */
    private record Pending(
            JsValue resolve, JsValue reject, CompletableFuture<?> work, String where) {}

    /**
     * @param bridges the run's bridges by dispatch index; the module loader appends those only
     *     modules declared, so this list is shared, not copied
     */
    BridgeDispatcher(
            JsContext ctx,
            List<Bridge> bridges,
            ExecutionSession session,
            RunBudget budget,
            ValueTransfer values,
            EventLoop loop) {
        this.ctx = ctx;
        this.bridges = bridges;
        this.session = session;
        this.budget = budget;
        this.limits = session.limits();
        this.values = values;
        this.loop = loop;
    }

    /** Host operations the guest called. */
    long calls() {
        return calls;
    }

    /** Host operations the guest called, by bridge name. */
    Map<String, Long> callsByBridge() {
        return callsByBridge;
    }

    /** Whether host work is in flight that could still settle a guest promise. */
    boolean hasPending() {
        return !pending.isEmpty();
    }

    /** Cancels the work in flight; its completions are dropped. */
    void cancelAll() {
        for (Pending p : pending.values()) {
            p.work().cancel(true);
        }
        pending.clear();
    }

    JsValue dispatch(List<JsValue> args) {
        if (session.hasEnded() || budget.cancelRequested() || budget.reason() != null) {
            throw guestError(
                    BridgeException.cancelled(
                            "the run has been cancelled or has ended; no further host calls are"
                                    + " possible"));
        }
        if (args.size() != 4) {
            throw new IllegalArgumentException("the dispatcher takes 4 arguments");
        }
        int index = (int) args.get(0).asNumber();
        if (index < 0 || index >= bridges.size()) {
            throw new IllegalArgumentException("no bridge " + index);
        }
        String op = args.get(1).asString();
        Bridge bridge = bridges.get(index);
        Operation operation = bridge.operations().get(op);
        String where = bridge.name() + "." + op;
        if (operation == null) {
            throw guestError(
                    "TypeError",
                    "UNKNOWN_OPERATION",
                    "bridge " + bridge.name() + " has no operation '" + op + "'");
        }
        calls++;
        callsByBridge.merge(bridge.name(), 1L, Long::sum);
        if (pending.size() >= limits.pendingOperations()) {
            throw guestError(
                    "RangeError",
                    "PENDING_LIMIT",
                    where
                            + ": "
                            + pending.size()
                            + " host operations are already in flight; the limit"
                            + " (pendingOperations) is "
                            + limits.pendingOperations());
        }
        Object decoded = Transport.decode(args.get(2).asString(), values.readSidecar(args.get(3)));
        List<?> given = (List<?>) decoded;
        List<Param> params = operation.params();
        if (given.size() > params.size()) {
            throw guestError(
                    "TypeError",
                    BridgeException.INVALID_ARGUMENT,
                    where
                            + " takes at most "
                            + params.size()
                            + " argument(s), got "
                            + given.size());
        }
        List<Object> checked = new ArrayList<>(params.size());
        try {
            for (int i = 0; i < params.size(); i++) {
                checked.add(params.get(i).check(where, i, i < given.size() ? given.get(i) : null));
            }
        } catch (BridgeException e) {
            throw guestError(e);
        }
        OperationCall call =
                new OperationCall(
                        bridge.name(), op, Collections.unmodifiableList(checked), session);
        Object out;
        try {
            out = operation.handler().handle(call);
        } catch (BridgeException e) {
            throw guestError(e);
        } catch (RuntimeException e) {
            throw guestError(hostFailure(where, e));
        }
        if (out instanceof CompletionStage<?> stage) {
            return startPending(where, stage.toCompletableFuture());
        }
        return values.toGuest(out, where);
    }

    private JsValue startPending(String where, CompletableFuture<?> work) {
        JsContext.PromiseCapability cap = ctx.newPromise();
        int id = ++nextOpId;
        pending.put(id, new Pending(cap.resolve(), cap.reject(), work, where));
        work.whenComplete((v, err) -> loop.post(() -> complete(id, v, err)));
        return cap.promise();
    }

    /** Settles the guest promise of a finished host operation (engine thread). */
    private void complete(int id, Object value, Throwable err) {
        Pending p = pending.remove(id);
        if (p == null || session.hasEnded()) {
            return;
        }
        try {
            FaultPoints.at(FaultPoints.COMPLETION);
            JsValue settleWith;
            JsValue fn;
            if (err == null) {
                try {
                    settleWith = values.toGuest(value, p.where());
                    fn = p.resolve();
                } catch (GuestFailure e) {
                    settleWith = errorValue(intoGuestFailed(p.where(), e.error()));
                    fn = p.reject();
                } catch (TransportException e) {
                    settleWith = errorValue(hostFailure(p.where(), e));
                    fn = p.reject();
                }
            } else {
                settleWith = errorValue(asBridgeException(p.where(), err));
                fn = p.reject();
            }
            try (JsValue arg = settleWith) {
                // Resolving functions do not throw; the guest's handlers run later as jobs.
                ctx.call(fn, ctx.undefined(), arg).close();
            }
        } finally {
            p.resolve().close();
            p.reject().close();
        }
    }

    /**
     * A host operation's value that the guest could not take in: its heap full (a result too large
     * for {@code heapBytes}), or its budget spent while the value was copied in.
     */
    private BridgeException intoGuestFailed(String where, RunError e) {
        if (e.kind() == RunError.Kind.MEMORY) {
            return new BridgeException(
                    "RangeError",
                    "RESULT_TOO_LARGE",
                    where
                            + " returned a value that does not fit the guest's heap (heapBytes "
                            + limits.heapBytes()
                            + ")");
        }
        return new BridgeException(
                e.name(),
                BridgeException.HOST_ERROR,
                where + ": its value could not enter the guest: " + e.message());
    }

    private BridgeException asBridgeException(String where, Throwable err) {
        Throwable cause = err;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof BridgeException be) {
            return be;
        }
        if (cause instanceof CancellationException) {
            return BridgeException.cancelled(where + " was cancelled before it finished");
        }
        return hostFailure(where, cause);
    }

    private BridgeException hostFailure(String where, Throwable e) {
        if (e instanceof TransportException te) {
            return BridgeException.hostError(
                    where + " returned a value that cannot enter the guest: " + te.getMessage());
        }
        LOG.log(Level.WARNING, "run " + session.runId() + ": " + where + " failed on the host", e);
        return BridgeException.hostError(
                where + " failed on the host (" + e.getClass().getSimpleName() + ")");
    }

    private static JsException guestError(BridgeException e) {
        return guestError(e.name(), e.code(), e.getMessage());
    }

    private static JsException guestError(String name, String code, String message) {
        return new JsException(new JsError(name, message, ""), Map.of("code", code));
    }

    /** A guest Error object for a bridge failure, with its name and code. */
    private JsValue errorValue(BridgeException e) {
        JsValue err = ctx.newError(e.name(), e.getMessage());
        try (JsValue code = ctx.newString(e.code())) {
            err.set("code", code);
        }
        return err;
    }
}
