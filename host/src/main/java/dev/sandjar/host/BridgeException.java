package dev.sandjar.host;

import java.util.Objects;

/**
 * A bridge operation failed in a way the guest should see: it becomes a JavaScript {@code Error}
 * whose {@code name} and {@code code} are stable and whose {@code message} says what was wrong and,
 * for limits, what the limit is. Thrown by a handler, or used to complete its stage exceptionally.
 */
public class BridgeException extends RuntimeException {
    private static final long serialVersionUID = 1L;
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

    public String name() {
        return name;
    }

    public String code() {
        return code;
    }
}
