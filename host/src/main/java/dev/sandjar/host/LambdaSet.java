package dev.sandjar.host;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionException;

/**
 * Named lambda modules that may call each other (docs/sessions.md, "Lambdas calling lambdas"): each
 * call runs cold, in a fresh context, with a {@code lambda(target, args)} global that calls another
 * module's export ({@code "b.js:transform"}) and returns a promise of its result. The set tracks
 * the chain of calls: a call that would close a circle fails at once with {@code CIRCULAR_CALL} and
 * the chain ({@code a.js:process → b.js:transform → a.js:process}), and a chain deeper than {@code
 * maxDepth}, or than the sandbox's pool can serve (each waiting caller holds an engine), fails with
 * {@code CALL_DEPTH}. A target that is not in the set fails with {@code NOT_FOUND} before any run
 * starts. Immutable and thread-safe.
 */
public final class LambdaSet {
    /** The guest error's name for every failure of {@code lambda()}. */
    public static final String ERROR_NAME = "LambdaError";

    private static final String GUEST =
            "(host) => ({ lambda: (target, args) => host.call(\"call\", String(target),"
                    + " args === undefined ? [] : args) })";

    private final Map<String, String> modules;
    private final int maxDepth;
    private final Limits limits;
    private final List<Bridge> bridges;

    private LambdaSet(Builder b) {
        this.modules = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.modules));
        this.maxDepth = b.maxDepth;
        this.limits = b.limits;
        this.bridges = List.copyOf(b.bridges);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Calls {@code target} ({@code "module:function"}) with {@code args} and waits for its result.
     *
     * @throws InvalidRequestException for a malformed target or one not in the set
     */
    public RunResult call(Sandbox sandbox, String target, List<?> args) {
        Target t = Target.parse(target);
        if (!modules.containsKey(t.module)) {
            throw new InvalidRequestException(notFound(t));
        }
        Sandbox.refuseOnEngineThread("LambdaSet.call", "Sandbox.submitCall(...)");
        Chain chain = new Chain(List.of(t.toString()));
        return sandbox.await(start(sandbox, t, Sandbox.checkedArgs(args), chain));
    }

    private SandboxRun start(Sandbox sandbox, Target t, List<Object> args, Chain chain) {
        RunRequest module =
                RunRequest.builder(modules.get(t.module))
                        .filename(t.module)
                        .limits(limits)
                        .bridges(bridges)
                        .bridge(bridge(sandbox, chain))
                        .build();
        return sandbox.submitCall(module, t.function, args);
    }

    private String notFound(Target t) {
        return "no lambda module '" + t.module + "' (the set has " + modules.keySet() + ")";
    }

    /** The {@code lambda()} global of one call, which knows the chain that led to it. */
    private Bridge bridge(Sandbox sandbox, Chain chain) {
        return Bridge.builder("lambda")
                .guest(GUEST)
                .operation(
                        Operation.builder("call")
                                .param(Param.string("target"))
                                .param(Param.array("args"))
                                .handler(c -> callFrom(sandbox, chain, c))
                                .build())
                .build();
    }

    private Object callFrom(Sandbox sandbox, Chain chain, OperationCall c) {
        Target t;
        try {
            t = Target.parse(c.string(0));
        } catch (InvalidRequestException e) {
            throw new BridgeException(ERROR_NAME, BridgeException.INVALID_ARGUMENT, e.getMessage());
        }
        if (!modules.containsKey(t.module)) {
            throw new BridgeException(ERROR_NAME, "NOT_FOUND", notFound(t));
        }
        List<String> next = new ArrayList<>(chain.calls);
        next.add(t.toString());
        if (chain.calls.contains(t.toString())) {
            throw new BridgeException(
                    ERROR_NAME, "CIRCULAR_CALL", "circular call: " + String.join(" → ", next));
        }
        int bound = Math.min(maxDepth, sandbox.poolSize());
        if (next.size() > bound) {
            throw new BridgeException(
                    ERROR_NAME,
                    "CALL_DEPTH",
                    "the call chain would be "
                            + next.size()
                            + " deep, past its bound of "
                            + bound
                            + " (maxDepth "
                            + maxDepth
                            + ", pool size "
                            + sandbox.poolSize()
                            + "): "
                            + String.join(" → ", next));
        }
        List<Object> args;
        try {
            args = Sandbox.checkedArgs((List<?>) c.arg(1));
        } catch (InvalidRequestException e) {
            throw BridgeException.invalidArgument(e.getMessage());
        }
        SandboxRun run = start(sandbox, t, args, new Chain(List.copyOf(next)));
        c.session().onEnd(run::cancel);
        return run.result()
                .thenApply(
                        r -> {
                            if (r.isOk()) {
                                return r.value();
                            }
                            RunError e = r.error();
                            // A failure deeper in the chain keeps its own code.
                            String code =
                                    e.name().equals(ERROR_NAME)
                                                    && e.message().startsWith("circular call")
                                            ? "CIRCULAR_CALL"
                                            : e.name().equals(ERROR_NAME)
                                                            && e.message()
                                                                    .startsWith("the call chain")
                                                    ? "CALL_DEPTH"
                                                    : "LAMBDA_FAILED";
                            String message =
                                    code.equals("LAMBDA_FAILED")
                                            ? t + " failed: " + e
                                            : e.message();
                            throw new CompletionException(
                                    new BridgeException(ERROR_NAME, code, message));
                        });
    }

    /** The calls that led to a call, outermost first. */
    private record Chain(List<String> calls) {}

    /** {@code module:function}. */
    private record Target(String module, String function) {
        static Target parse(String target) {
            Objects.requireNonNull(target, "target");
            int colon = target.lastIndexOf(':');
            if (colon <= 0 || colon == target.length() - 1) {
                throw new InvalidRequestException(
                        "a lambda target is 'module:function', got '" + target + "'");
            }
            return new Target(
                    target.substring(0, colon), Sandbox.function(target.substring(colon + 1)));
        }

        @Override
        public String toString() {
            return module + ":" + function;
        }
    }

    public static final class Builder {
        private final Map<String, String> modules = new LinkedHashMap<>();
        private int maxDepth = 8;
        private Limits limits = Limits.none();
        private final List<Bridge> bridges = new ArrayList<>();

        private Builder() {}

        /** A module by name ({@code "a.js"}); its exports are the functions others may call. */
        public Builder module(String name, String code) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(code, "code");
            if (name.isEmpty() || name.contains(":")) {
                throw new InvalidRequestException(
                        "a lambda module's name must be non-empty and hold no ':', got '"
                                + name
                                + "'");
            }
            modules.put(name, code);
            return this;
        }

        /** The deepest chain of calls, 1 to 64; 8 by default. */
        public Builder maxDepth(int depth) {
            if (depth < 1 || depth > 64) {
                throw new InvalidRequestException(
                        "maxDepth (" + depth + ") must be between 1 and 64");
            }
            this.maxDepth = depth;
            return this;
        }

        /** Limits of each call. */
        public Builder limits(Limits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** A bridge every call has, besides {@code lambda}. */
        public Builder bridge(Bridge bridge) {
            bridges.add(Objects.requireNonNull(bridge, "bridge"));
            return this;
        }

        public LambdaSet build() {
            return new LambdaSet(this);
        }
    }
}
