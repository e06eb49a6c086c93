package dev.sandjar.bridges.node;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.HostMemory;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Limits;
import dev.sandjar.host.ModuleResolution;
import dev.sandjar.host.Sandbox;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A workflow's code node on a {@link Sandbox}: a body, its declared input and output handles, and
 * what its runs may reach. Immutable and thread-safe; one node serves any number of executions at
 * once (each on an engine of the sandbox's pool).
 *
 * <pre>{@code
 * CodeNode node = CodeNode.builder(sandbox, body)
 *         .inputs("rows", "threshold")
 *         .outputs("row", "count")
 *         .build();
 * NodeResult r = node.run(NodeInvocation.builder()
 *         .input("rows", rows).input("threshold", 10)
 *         .listener(event -> downstream.accept(event))
 *         .build());
 * }</pre>
 *
 * <p>The body's contract (docs/code-node.md): inputs arrive on {@code inputs}; values leave through
 * {@code await emit(handle, value)} (delivered at once, with backpressure) and {@code await
 * output(handle, value)} (finals, delivered together when the body completes); {@code state}
 * carries over between executions; {@code stream(name)}, {@code stream.any()}, {@code
 * stream.first(name)} and {@code stream.open(name)} read connected input streams. The body decides
 * the mode, read from its code once when the node is built: a body that mentions {@code stream}
 * runs once for the whole execution; one that does not runs once per arriving item (or once, when
 * nothing is connected). A body that calls neither {@code emit} nor {@code output} is a legacy
 * body: its returned object's keys become its outputs, with a deprecation warning.
 */
public final class CodeNode {
    /** Emits that may wait undelivered before {@code await emit(...)} waits for room. */
    public static final int DEFAULT_EMIT_QUEUE = 16;

    public static final int MAX_EMIT_QUEUE = 10_000;

    /** The most input or output handles a node declares. */
    public static final int MAX_HANDLES = 1_000;

    static final String GUEST = GuestScripts.load(CodeNode.class, "node.js");

    /**
     * Delivers events to listeners, which may block: one thread per execution while it delivers,
     * idle threads gone after a second.
     */
    static final ExecutorService EVENTS =
            new ThreadPoolExecutor(
                    0,
                    Integer.MAX_VALUE,
                    1,
                    TimeUnit.SECONDS,
                    new SynchronousQueue<>(),
                    new ThreadFactory() {
                        private final AtomicInteger n = new AtomicInteger();

                        @Override
                        public Thread newThread(Runnable r) {
                            Thread t = new Thread(r, "sandjar-node-events-" + n.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        }
                    });

    final Sandbox sandbox;
    final String code;
    final String filename;
    final Set<String> inputs;
    final Set<String> outputs;
    final int emitQueue;
    final Limits limits;
    final List<HostMemory> hostMemories;
    final List<Bridge> bridges;
    final ModuleResolution modules;
    final CodeAnalysis analysis;
    private final boolean streaming;
    private final boolean legacy;

    private CodeNode(Builder b) {
        this.sandbox = b.sandbox;
        this.code = b.code;
        this.filename = b.filename;
        this.inputs = Set.copyOf(b.inputs);
        this.outputs = Set.copyOf(b.outputs);
        this.emitQueue = b.emitQueue;
        this.limits = b.limits;
        this.hostMemories = List.copyOf(b.hostMemories);
        this.bridges = List.copyOf(b.bridges);
        this.modules = b.modules;
        this.analysis = sandbox.analyzeReferences(code);
        this.streaming = analysis.mentions("stream");
        this.legacy =
                analysis.freeReferences() != null
                        && !analysis.mentions("emit")
                        && !analysis.mentions("output");
    }

    public static Builder builder(Sandbox sandbox, String code) {
        return new Builder(sandbox, code);
    }

    /** Whether the body reads streams itself (it mentions {@code stream}): it then runs once. */
    public boolean isStreaming() {
        return streaming;
    }

    /** Whether the body calls neither {@code emit} nor {@code output} (the legacy contract). */
    public boolean isLegacy() {
        return legacy;
    }

    /** The declared input handles, sorted for messages. */
    public List<String> inputs() {
        return inputs.stream().sorted().toList();
    }

    /** The declared output handles, sorted for messages. */
    public List<String> outputs() {
        return outputs.stream().sorted().toList();
    }

    /** The parse of the body the node's mode was read from. */
    public CodeAnalysis analysis() {
        return analysis;
    }

    /**
     * Starts an execution.
     *
     * @throws InvalidRequestException when the invocation gives an undeclared input
     */
    public NodeExecution start(NodeInvocation invocation) {
        Objects.requireNonNull(invocation, "invocation");
        for (String name : invocation.inputs().keySet()) {
            checkDeclared(name, "value");
        }
        for (String name : invocation.streams().keySet()) {
            checkDeclared(name, "stream");
        }
        NodeRunner runner = new NodeRunner(this, invocation);
        runner.start();
        return runner;
    }

    /** {@link #start}, then waits for the result. */
    public NodeResult run(NodeInvocation invocation) {
        NodeExecution e = start(invocation);
        try {
            return e.result().get();
        } catch (InterruptedException ie) {
            e.cancel();
            Thread.currentThread().interrupt();
            return e.result().join();
        } catch (ExecutionException ex) {
            throw new IllegalStateException("a node execution failed", ex.getCause());
        }
    }

    private void checkDeclared(String name, String what) {
        if (!inputs.contains(name)) {
            throw new InvalidRequestException(
                    "the invocation gives a "
                            + what
                            + " for '"
                            + name
                            + "', which is not a declared input; the inputs are "
                            + inputs());
        }
    }

    public static final class Builder {
        private final Sandbox sandbox;
        private final String code;
        private String filename = "main.js";
        private final Set<String> inputs = new LinkedHashSet<>();
        private final Set<String> outputs = new LinkedHashSet<>();
        private int emitQueue = DEFAULT_EMIT_QUEUE;
        private Limits limits = Limits.builder().build();
        private final List<HostMemory> hostMemories = new ArrayList<>();
        private List<Bridge> bridges = Capabilities.defaults();
        private ModuleResolution modules;

        private Builder(Sandbox sandbox, String code) {
            this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
            this.code = Objects.requireNonNull(code, "code");
        }

        public Builder filename(String name) {
            this.filename = Objects.requireNonNull(name, "filename");
            return this;
        }

        /** Declares input handles (connected edges and configured properties alike). */
        public Builder inputs(String... names) {
            return inputs(List.of(names));
        }

        public Builder inputs(Collection<String> names) {
            names.forEach(n -> add(inputs, n, "input"));
            return this;
        }

        /** Declares output handles: {@code emit} and {@code output} accept only these. */
        public Builder outputs(String... names) {
            return outputs(List.of(names));
        }

        public Builder outputs(Collection<String> names) {
            names.forEach(n -> add(outputs, n, "output"));
            return this;
        }

        /** Emits that may wait undelivered before an emit waits for room (default 16). */
        public Builder emitQueue(int size) {
            if (size < 1 || size > MAX_EMIT_QUEUE) {
                throw new InvalidRequestException(
                        "the emit queue must hold 1 to " + MAX_EMIT_QUEUE + " emits, got " + size);
            }
            this.emitQueue = size;
            return this;
        }

        /** A budget of host memory the runs count against ({@code RunRequest.hostMemory}). */
        public Builder hostMemory(HostMemory budget) {
            this.hostMemories.add(Objects.requireNonNull(budget, "budget"));
            return this;
        }

        /** The runs' limits (clamped to the sandbox's ceilings, as for any run). */
        public Builder limits(Limits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * The capabilities the body gets, as {@link Capabilities} builds them (the defaults unless
         * set). A {@code progress} bridge among them is replaced by one that reports into the
         * node's events, in order; without one the body has no {@code progress}.
         */
        public Builder bridges(List<Bridge> granted) {
            List<Bridge> copy = new ArrayList<>(granted);
            for (Bridge b : copy) {
                if (b.name().equals(NodeRunner.BRIDGE)) {
                    throw new InvalidRequestException(
                            "the bridge name '" + NodeRunner.BRIDGE + "' is the node's own");
                }
            }
            this.bridges = copy;
            return this;
        }

        /** How the body's imports resolve (a pack catalog's resolution); none by default. */
        public Builder modules(ModuleResolution resolution) {
            this.modules = resolution;
            return this;
        }

        /** Parses the body (once, cached by the sandbox) to read its mode. */
        public CodeNode build() {
            return new CodeNode(this);
        }

        private static void add(Set<String> set, String name, String what) {
            Objects.requireNonNull(name, what + " name");
            if (name.isEmpty() || name.length() > 256 || name.indexOf('\0') >= 0) {
                throw new InvalidRequestException(
                        what + " handle '" + name + "' must be 1 to 256 characters without NUL");
            }
            if (!set.add(name)) {
                throw new InvalidRequestException(
                        what + " handle '" + name + "' is declared twice");
            }
            if (set.size() > MAX_HANDLES) {
                throw new InvalidRequestException(
                        "a node declares at most " + MAX_HANDLES + " " + what + " handles");
            }
        }
    }
}
