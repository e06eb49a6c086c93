package dev.sandjar.bridges.node;

import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.SandboxClock;
import dev.sandjar.host.ValueJson;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What one execution of a {@link CodeNode} is given: its buffered input values (the node's
 * configured properties, and edge values for a body run once), the streams connected to its input
 * handles, the {@code state} carried over from the node's previous execution in this workflow run,
 * and where its events go. Immutable; {@code NodeInvocation.builder().input("threshold",
 * 10).stream("rows", NodeStream.of(rows)).listener(events::add).build()}.
 */
public final class NodeInvocation {
    private final Map<String, Object> inputs;
    private final Map<String, NodeStream> streams;
    private final Map<String, Object> state;
    private final NodeListener listener;
    private final SandboxClock clock;

    private NodeInvocation(Builder b) {
        this.inputs = Collections.unmodifiableMap(new LinkedHashMap<>(b.inputs));
        this.streams = Collections.unmodifiableMap(new LinkedHashMap<>(b.streams));
        this.state = Collections.unmodifiableMap(new LinkedHashMap<>(b.state));
        this.listener = b.listener;
        this.clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Buffered input values by handle. */
    public Map<String, Object> inputs() {
        return inputs;
    }

    /** Connected input streams by handle. */
    public Map<String, NodeStream> streams() {
        return streams;
    }

    /** The {@code state} the body starts from (empty at the start of a workflow run). */
    public Map<String, Object> state() {
        return state;
    }

    public NodeListener listener() {
        return listener;
    }

    /** The clock the execution's runs share; null for one of their own. */
    public SandboxClock clock() {
        return clock;
    }

    public static final class Builder {
        private final Map<String, Object> inputs = new LinkedHashMap<>();
        private final Map<String, NodeStream> streams = new LinkedHashMap<>();
        private final Map<String, Object> state = new LinkedHashMap<>();
        private NodeListener listener = NodeListener.none();
        private SandboxClock clock;

        private Builder() {}

        /** A buffered value for input {@code name} (copied into the guest, never back). */
        public Builder input(String name, Object value) {
            Objects.requireNonNull(name, "input name");
            if (streams.containsKey(name)) {
                throw new InvalidRequestException(
                        "input '"
                                + name
                                + "' is connected to a stream; give it a value or a stream");
            }
            inputs.put(name, value);
            return this;
        }

        /** {@link #input} from JSON text, with the transport's markers (docs/transport.md). */
        public Builder jsonInput(String name, String json) {
            return input(name, parse("input '" + name + "'", json));
        }

        /** Connects a stream to input {@code name}. */
        public Builder stream(String name, NodeStream stream) {
            Objects.requireNonNull(name, "input name");
            Objects.requireNonNull(stream, "stream");
            if (inputs.containsKey(name)) {
                throw new InvalidRequestException(
                        "input '" + name + "' has a value; give it a value or a stream");
            }
            if (streams.putIfAbsent(name, stream) != null) {
                throw new InvalidRequestException("input '" + name + "' has two streams");
            }
            return this;
        }

        /** The state the body starts from: what the previous execution's result returned. */
        public Builder state(Map<String, ?> values) {
            state.clear();
            state.putAll(Objects.requireNonNull(values, "state"));
            return this;
        }

        /** {@link #state(Map)} from a JSON object's text. */
        @SuppressWarnings("unchecked")
        public Builder jsonState(String json) {
            Object v = parse("state", json);
            if (!(v instanceof Map<?, ?> m)) {
                throw new InvalidRequestException("state must be a JSON object, got: " + json);
            }
            return state((Map<String, ?>) m);
        }

        public Builder listener(NodeListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** A clock the caller also suspends (a person answering, say); optional. */
        public Builder clock(SandboxClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public NodeInvocation build() {
            return new NodeInvocation(this);
        }

        private static Object parse(String what, String json) {
            return ValueJson.read(json, what);
        }
    }
}
