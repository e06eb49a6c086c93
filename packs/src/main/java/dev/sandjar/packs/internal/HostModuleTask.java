package dev.sandjar.packs.internal;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.HostCall;
import dev.sandjar.host.IsolatedTask;
import dev.sandjar.host.Limits;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.RunSession;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.HostModules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One call of a built-in host module's export, run in a worker process (docs/sandbox.md, "Host
 * work"): the sandbox checked the guest's arguments, and the worker finds the same module by id
 * ({@link HostModules#builtIn()}) and calls the export's handler with them, in a session of its own
 * whose host work runs inline on the worker's thread under the call's bounds. So a tenant's CSV,
 * XML, ZIP, office, HTML, diff, token, PDF and image-metadata work allocates and parses in the
 * worker, never on the sandbox's heap, and its garbage collections pause no other tenant's run.
 * Public for the worker; not API.
 */
public final class HostModuleTask implements IsolatedTask {
    public HostModuleTask() {}

    /** The task's input for {@code call} of {@code module}'s export. */
    public static Map<String, Object> input(HostModule module, OperationCall call) {
        Map<String, Object> in = new LinkedHashMap<>();
        in.put("module", module.id());
        in.put("bridge", call.bridge());
        in.put("export", call.operation());
        in.put("args", new ArrayList<>(call.args()));
        Limits l = call.session().limits();
        in.put("hostBytes", l.hostBytes());
        in.put("timeoutMs", l.timeout().toMillis());
        return in;
    }

    @Override
    public Object run(Object input, HostCall call) {
        Map<?, ?> in = (Map<?, ?>) input;
        String id = (String) in.get("module");
        HostModule module =
                HostModules.builtIn()
                        .find(id)
                        .orElseThrow(() -> BridgeException.hostError("no built-in module " + id));
        Operation op = module.exports().get((String) in.get("export"));
        if (op == null) {
            throw BridgeException.hostError("module " + id + " has no export " + in.get("export"));
        }
        @SuppressWarnings("unchecked")
        List<Object> args = new ArrayList<>((List<Object>) in.get("args"));
        Limits limits =
                Limits.builder()
                        .hostBytes((Long) in.get("hostBytes"))
                        .timeout(Duration.ofMillis((Long) in.get("timeoutMs")))
                        .build();
        Object out =
                op.handler()
                        .handle(
                                OperationCall.of(
                                        (String) in.get("bridge"),
                                        op.name(),
                                        args,
                                        new InlineSession(call, limits)));
        if (out instanceof CompletionStage<?> stage) {
            try {
                return stage.toCompletableFuture().join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException re) {
                    throw re;
                }
                throw e;
            }
        }
        return out;
    }

    /**
     * The session a handler sees in the worker: one call's, its host work run inline under the
     * call's bounds; no log, no timers, nothing that outlives the call.
     */
    private static final class InlineSession implements RunSession {
        private final HostCall call;
        private final Limits limits;
        private final Map<Object, Object> state = new HashMap<>();

        InlineSession(HostCall call, Limits limits) {
            this.call = call;
            this.limits = limits;
        }

        @Override
        public String runId() {
            return "worker";
        }

        @Override
        public Limits limits() {
            return limits;
        }

        @Override
        public boolean isCancelled() {
            return call.isStopped();
        }

        @Override
        public void onEnd(Runnable action) {
            // nothing outlives the call: its resources go with the worker's stack
        }

        @Override
        public void holdResultUntil(CompletionStage<?> delivery) {}

        @Override
        public boolean redact(String value) {
            return false;
        }

        @Override
        public String redacted(String text) {
            return text;
        }

        @Override
        public void log(LogEntry.Level level, String message) {}

        @Override
        @SuppressWarnings("unchecked")
        public <T> T state(Object key, Supplier<T> create) {
            return (T) state.computeIfAbsent(key, k -> create.get());
        }

        @Override
        public <T> CompletableFuture<T> work(String where, Function<HostCall, T> task) {
            try {
                return CompletableFuture.completedFuture(task.apply(call));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        @Override
        public CompletableFuture<Object> isolated(
                String where, Class<? extends IsolatedTask> task, Object input) {
            return work(
                    where,
                    c -> {
                        try {
                            return task.getConstructor().newInstance().run(input, c);
                        } catch (ReflectiveOperationException e) {
                            throw BridgeException.hostError(
                                    "the worker cannot make the task " + task.getName());
                        }
                    });
        }

        @Override
        public CompletableFuture<Object> isolatedForGuest(
                String where, Class<? extends IsolatedTask> task, Object input) {
            return isolated(where, task, input);
        }

        @Override
        public <T> T await(CompletableFuture<T> work) {
            return work.join();
        }

        @Override
        public Reservation reserveHostMemory(String where, long bytes) {
            return () -> {}; // the worker's own heap bounds what it holds
        }

        @Override
        public Executor executor() {
            return Runnable::run;
        }

        @Override
        public CompletableFuture<Void> delay(Duration delay) {
            return CompletableFuture.failedFuture(
                    BridgeException.hostError("a host module has no timers in a worker"));
        }
    }
}
