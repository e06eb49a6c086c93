package dev.sandjar.host;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A capability a caller grants to a run: guest-side JavaScript that defines globals, and the host
 * operations that JavaScript may call. Immutable and thread-safe; one bridge may serve many runs at
 * once, so per-run state belongs in {@link RunSession#state}.
 *
 * <p>The guest source is a JavaScript function expression, evaluated in strict mode once per run
 * before any user code and before hardening:
 *
 * <pre>{@code
 * (host) => ({
 *   sleep: (ms) => host.call("sleep", ms),   // an async operation: returns a Promise
 * })
 * }</pre>
 *
 * The object it returns becomes globals (own enumerable properties, each defined on {@code
 * globalThis}; two bridges may not define the same name). {@code host.call(op, ...args)} encodes
 * the arguments with the transport (a function or a cycle fails in the guest, naming its path), and
 * returns the operation's value, or a {@code Promise} of it when the operation's handler returned a
 * {@link java.util.concurrent.CompletionStage}. {@code host.name} is the bridge's name. The {@code
 * host} object is private to the bridge's code: the guest reaches the host only through what the
 * bridge exposes, and the host checks the operation name and every argument before a handler runs.
 */
public final class Bridge {
    private static final Pattern NAME =
            Pattern.compile("[a-z][a-zA-Z0-9]*([.-][a-z][a-zA-Z0-9]*)*");

    private final String name;
    private final String guestSource;
    private final Map<String, Operation> operations;

    private Bridge(Builder b) {
        this.name = b.name;
        this.guestSource = Objects.requireNonNull(b.guestSource, "guest source of " + b.name);
        this.operations = Collections.unmodifiableMap(new LinkedHashMap<>(b.operations));
    }

    /** {@code name}: lower camel case words, optionally joined by dots or dashes. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    public String guestSource() {
        return guestSource;
    }

    public Map<String, Operation> operations() {
        return operations;
    }

    @Override
    public String toString() {
        return "Bridge[" + name + ", operations=" + operations.keySet() + "]";
    }

    public static final class Builder {
        private final String name;
        private String guestSource;
        private final Map<String, Operation> operations = new LinkedHashMap<>();

        private Builder(String name) {
            Objects.requireNonNull(name, "name");
            if (!NAME.matcher(name).matches()) {
                throw new InvalidRequestException(
                        "bridge name '" + name + "' must match " + NAME.pattern());
            }
            this.name = name;
        }

        /** The guest-side function expression (see {@link Bridge}). */
        public Builder guest(String source) {
            this.guestSource = Objects.requireNonNull(source, "source");
            return this;
        }

        public Builder operation(Operation op) {
            if (operations.putIfAbsent(op.name(), op) != null) {
                throw new InvalidRequestException(
                        "bridge " + name + " declares operation '" + op.name() + "' twice");
            }
            return this;
        }

        public Bridge build() {
            return new Bridge(this);
        }
    }
}
