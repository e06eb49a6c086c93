package dev.sandjar.quickjs;

import java.util.Map;

/**
 * The guest threw, surfaced at the public edge ({@link JsResult#orThrow()}). Keeps the JS name,
 * message and stack. A host function may also throw one to throw a chosen error into the guest.
 */
public final class JsException extends QuickJsException {
    private static final long serialVersionUID = 1L;
    private final JsError error;
    private final Map<String, String> properties;

    public JsException(JsError error) {
        this(error, Map.of());
    }

    /**
     * An error a host function throws into the guest with extra string properties on the error
     * object, for example a stable {@code code}.
     */
    public JsException(JsError error, Map<String, String> properties) {
        super(error.toString() + (error.stack().isEmpty() ? "" : "\n" + error.stack()));
        this.error = error;
        this.properties = Map.copyOf(properties);
    }

    public JsError error() {
        return error;
    }

    /** Extra properties set on the guest error when a host function throws this. */
    public Map<String, String> properties() {
        return properties;
    }
}
