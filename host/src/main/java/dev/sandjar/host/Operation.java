package dev.sandjar.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A host operation a bridge offers its guest code: a name, declared parameters, and a handler.
 * Immutable. The host checks the argument count and each argument against its {@link Param} before
 * the handler runs; a guest that passes anything else gets a {@code TypeError} and the handler
 * never sees it.
 *
 * <p>The handler runs on the run's engine thread, so it must be quick: it returns a value for the
 * guest (anything the transport can carry; {@code null} is JavaScript {@code null}), or a {@link
 * java.util.concurrent.CompletionStage} for work that takes time, which the guest sees as a {@code
 * Promise}. Work behind a stage starts when the guest calls, not when it awaits, so {@code
 * Promise.all} over several calls overlaps them. Blocking work belongs on {@link
 * RunSession#executor()}. A {@link BridgeException} becomes a guest {@code Error} with its name,
 * code and message; any other exception becomes a generic {@code HostError} whose message does not
 * leak host details (the exception is logged on the host).
 */
public final class Operation {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z][a-zA-Z0-9_]*");

    /** What an operation does when the guest calls it. */
    @FunctionalInterface
    public interface Handler {
        Object handle(OperationCall call);
    }

    private final String name;
    private final List<Param> params;
    private final Handler handler;

    private Operation(String name, List<Param> params, Handler handler) {
        this.name = name;
        this.params = List.copyOf(params);
        this.handler = handler;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    public List<Param> params() {
        return params;
    }

    /**
     * The operation's handler: the dispatcher calls it for each checked guest call; a worker
     * process calls it to run the operation away from the run that received it ({@link
     * IsolatedTask}).
     */
    public Handler handler() {
        return handler;
    }

    public static final class Builder {
        private final String name;
        private final List<Param> params = new ArrayList<>();
        private Handler handler;

        private Builder(String name) {
            Objects.requireNonNull(name, "name");
            if (!NAME.matcher(name).matches()) {
                throw new InvalidRequestException(
                        "operation name '" + name + "' must match " + NAME.pattern());
            }
            this.name = name;
        }

        /** The next parameter; optional ones must come after every required one. */
        public Builder param(Param p) {
            if (!p.isOptional()
                    && !params.isEmpty()
                    && params.get(params.size() - 1).isOptional()) {
                throw new InvalidRequestException(
                        "operation "
                                + name
                                + ": required parameter "
                                + p.name()
                                + " follows an optional one");
            }
            params.add(p);
            return this;
        }

        public Builder handler(Handler h) {
            this.handler = Objects.requireNonNull(h, "handler");
            return this;
        }

        public Operation build() {
            if (handler == null) {
                throw new InvalidRequestException("operation " + name + " has no handler");
            }
            return new Operation(name, params, handler);
        }
    }
}
