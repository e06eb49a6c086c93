package dev.sandjar.host;

import java.util.Objects;

/**
 * A bridge operation failed in a way the guest should see: it becomes a JavaScript {@code Error}
 * whose {@code name} and {@code code} are stable and whose {@code message} says what was wrong and,
 * for limits, what the limit is. Thrown by a handler, or used to complete its stage exceptionally.
 *
 * <p>The codes every bridge shares are constants here, with a factory each ({@link
 * #invalidArgument}, {@link #cancelled}, {@link #hostError}); a bridge's own codes (fetch's {@code
 * BLOCKED_ADDRESS}, say) are its own.
 */
public class BridgeException extends SandjarException {
    private static final long serialVersionUID = 1L;

    /** An argument has the wrong type, shape or value; the guest sees a {@code TypeError}. */
    public static final String INVALID_ARGUMENT = "INVALID_ARGUMENT";

    /** The run was cancelled or ended while the operation was pending or before it started. */
    public static final String CANCELLED = "CANCELLED";

    /** The host failed in a way the guest may not see the details of. */
    public static final String HOST_ERROR = "HOST_ERROR";

    private final String name;
    private final String code;

    /**
     * @param name the guest error's {@code name}, for example {@code FetchError} or {@code
     *     TypeError}
     * @param code a stable machine code, for example {@code BLOCKED_ADDRESS}
     * @param message what went wrong
     */
    public BridgeException(String name, String code, String message) {
        super(message);
        this.name = Objects.requireNonNull(name, "name");
        this.code = Objects.requireNonNull(code, "code");
    }

    public BridgeException(String name, String code, String message, Throwable cause) {
        super(message, cause);
        this.name = Objects.requireNonNull(name, "name");
        this.code = Objects.requireNonNull(code, "code");
    }

    /** A {@code TypeError} with code {@link #INVALID_ARGUMENT}. */
    public static BridgeException invalidArgument(String message) {
        return new BridgeException("TypeError", INVALID_ARGUMENT, message);
    }

    /** A {@code CancelledError} with code {@link #CANCELLED}. */
    public static BridgeException cancelled(String message) {
        return new BridgeException("CancelledError", CANCELLED, message);
    }

    /**
     * A {@code HostError} with code {@link #HOST_ERROR}; the message must not leak host details.
     */
    public static BridgeException hostError(String message) {
        return new BridgeException("HostError", HOST_ERROR, message);
    }

    public String name() {
        return name;
    }

    public String code() {
        return code;
    }
}
