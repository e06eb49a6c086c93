package dev.sandjar.server.agents;

import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.packs.ToolModules;
import java.util.Objects;

/**
 * One tool an agent's action may call: a namespace (the module it is imported from, {@code
 * @sandjar/tools/<namespace>}), a name (the export), a description, a JSON Schema for its one
 * argument object, and a handler. Immutable.
 *
 * <p>The host validates the arguments against the schema before the handler runs; a handler that
 * returns {@code {"error": ...}} (a map with an {@code error} key), throws, or returns a stage that
 * fails makes the guest's call throw an {@code Error} with a {@code code} and a message.
 */
public final class Tool {
    /** What a tool does when an action calls it. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Runs the call: returns the value for the guest (anything the transport carries), or a
         * {@link java.util.concurrent.CompletionStage} of it. Called on the run's engine thread:
         * put blocking work on {@link ToolInvocation#executor()}.
         */
        Object handle(ToolInvocation call);
    }

    private final String namespace;
    private final String name;
    private final String description;
    private final String parametersSchema;
    private final Handler handler;
    private final boolean suspendsClock;
    private final boolean restricted;
    private final String disabled;

    private Tool(Builder b) {
        this.suspendsClock = b.suspendsClock;
        this.restricted = b.restricted;
        this.disabled = b.disabled;
        this.namespace = b.namespace;
        this.name = b.name;
        this.description = b.description;
        this.parametersSchema = b.parametersSchema;
        this.handler = b.handler;
    }

    /**
     * @param namespace lower-case words joined by '-': the module
     *     {@code @sandjar/tools/<namespace>}
     * @param name a JavaScript name that is not reserved: the module's export
     */
    public static Builder builder(String namespace, String name) {
        return new Builder(namespace, name);
    }

    public String namespace() {
        return namespace;
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    /** The JSON Schema of the argument object, as JSON text. */
    public String parametersSchema() {
        return parametersSchema;
    }

    public Handler handler() {
        return handler;
    }

    /**
     * Whether a call suspends the action's clock until it settles ({@link Builder#suspendsClock}).
     */
    public boolean suspendsClock() {
        return suspendsClock;
    }

    /**
     * Whether only authorized code may call the tool ({@link Builder#restricted()}); unauthorized
     * code fails with {@code REQUIRES_AUTHORIZED_CODE}, or waits for the action's approver.
     */
    public boolean restricted() {
        return restricted;
    }

    /** Why the tool is disabled, or null when it is not ({@link Builder#disabled(String)}). */
    public String disabledReason() {
        return disabled;
    }

    /** The line that makes this tool callable in an action. */
    public String importLine() {
        return "import { " + name + " } from \"" + ToolModules.specifier(namespace) + "\";";
    }

    @Override
    public String toString() {
        return "Tool[" + namespace + "/" + name + "]";
    }

    public static final class Builder {
        private final String namespace;
        private final String name;
        private String description = "";
        private String parametersSchema = "{\"type\":\"object\"}";
        private Handler handler;
        private boolean suspendsClock;
        private boolean restricted;
        private String disabled;

        private Builder(String namespace, String name) {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(name, "name");
            String problem = ToolModules.namespaceProblem(namespace);
            if (problem == null) {
                problem = ToolModules.toolNameProblem(name);
            }
            if (problem != null) {
                throw new InvalidRequestException(problem);
            }
            this.namespace = namespace;
            this.name = name;
        }

        public Builder withDescription(String text) {
            this.description = Objects.requireNonNull(text, "description");
            return this;
        }

        /** The JSON Schema of the argument object; default {@code {"type":"object"}}. */
        public Builder withParameters(String jsonSchema) {
            this.parametersSchema = Objects.requireNonNull(jsonSchema, "parameters");
            return this;
        }

        public Builder withHandler(Handler h) {
            this.handler = Objects.requireNonNull(h, "handler");
            return this;
        }

        /**
         * Each call suspends the action's clock from when the handler is called until its value or
         * stage settles: for a tool that waits for a person (an approval, an answer), so the wait
         * does not use the action's wall-clock budget. The CPU budget is never suspended. A handler
         * that waits only part of the time uses {@link ToolInvocation#suspendClock()}.
         */
        public Builder suspendsClock() {
            this.suspendsClock = true;
            return this;
        }

        /**
         * Only authorized code may call the tool (docs/agents.md, "Restricted tools"): an action
         * whose code the caller did not authorize ({@link Authorization}) fails the call with
         * {@code REQUIRES_AUTHORIZED_CODE}, or, when the action has an approver, waits for its
         * decision with the action's clock suspended and fails with {@code DENIED} if refused.
         */
        public Builder restricted() {
            this.restricted = true;
            return this;
        }

        /**
         * The tool stays importable but every call fails in the guest with {@code NOT_FOUND} and
         * {@code reason}, without reaching the host (a tool switched off by configuration).
         */
        public Builder disabled(String reason) {
            this.disabled = Objects.requireNonNull(reason, "reason");
            return this;
        }

        /**
         * @throws InvalidRequestException when there is no handler or the schema does not parse
         */
        public Tool build() {
            if (handler == null) {
                throw new InvalidRequestException(
                        "tool " + namespace + "/" + name + " has no handler");
            }
            JsonSchemas.compile(parametersSchema, "parameters of tool " + namespace + "/" + name);
            return new Tool(this);
        }
    }
}
