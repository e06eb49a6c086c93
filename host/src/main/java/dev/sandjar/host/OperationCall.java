package dev.sandjar.host;

import java.util.List;
import java.util.Map;

/**
 * One guest call of an {@link Operation}, with its arguments already checked against the declared
 * {@link Param}s. Valid during the handler call and for the stage it returns.
 */
public final class OperationCall {
    private final String bridge;
    private final String operation;
    private final List<Object> args;
    private final RunSession session;

    /**
     * A call of {@code bridge.operation} with arguments already checked against its parameters, in
     * {@code session}: for running an operation's handler away from the run that received the
     * guest's call, as an {@link IsolatedTask} does in a worker process with a session of its own.
     */
    public static OperationCall of(
            String bridge, String operation, List<Object> args, RunSession session) {
        return new OperationCall(
                bridge, operation, java.util.Collections.unmodifiableList(args), session);
    }

    OperationCall(String bridge, String operation, List<Object> args, RunSession session) {
        this.bridge = bridge;
        this.operation = operation;
        this.args = args;
        this.session = session;
    }

    public String bridge() {
        return bridge;
    }

    public String operation() {
        return operation;
    }

    /** {@code bridge.operation}, as messages name it. */
    public String where() {
        return bridge + "." + operation;
    }

    /** One entry per declared parameter, in order; {@code null} for an absent optional one. */
    public List<Object> args() {
        return args;
    }

    public Object arg(int i) {
        return args.get(i);
    }

    public String string(int i) {
        return (String) args.get(i);
    }

    /** An INTEGER parameter; {@code fallback} when an optional one is absent. */
    public long integer(int i, long fallback) {
        Object v = args.get(i);
        return v == null ? fallback : (Long) v;
    }

    /** A NUMBER parameter; {@code fallback} when an optional one is absent. */
    public double number(int i, double fallback) {
        Object v = args.get(i);
        return v == null ? fallback : ((Number) v).doubleValue();
    }

    /** A BOOLEAN parameter; {@code fallback} when an optional one is absent. */
    public boolean bool(int i, boolean fallback) {
        Object v = args.get(i);
        return v == null ? fallback : (Boolean) v;
    }

    public byte[] bytes(int i) {
        return (byte[]) args.get(i);
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> object(int i) {
        return (Map<String, Object>) args.get(i);
    }

    @SuppressWarnings("unchecked")
    public List<Object> array(int i) {
        return (List<Object>) args.get(i);
    }

    /** The run this call belongs to. */
    public RunSession session() {
        return session;
    }
}
