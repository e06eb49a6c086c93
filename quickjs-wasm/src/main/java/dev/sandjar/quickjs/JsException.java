package dev.sandjar.quickjs;

/**
 * The guest threw, surfaced at the public edge ({@link JsResult#orThrow()}). Keeps the JS name,
 * message and stack. A host function may also throw one to throw a chosen error into the guest.
 */
public final class JsException extends QuickJsException {
    private static final long serialVersionUID = 1L;
    private final JsError error;

    public JsException(JsError error) {
        super(error.toString() + (error.stack().isEmpty() ? "" : "\n" + error.stack()));
        this.error = error;
    }

    public JsError error() {
        return error;
    }
}
