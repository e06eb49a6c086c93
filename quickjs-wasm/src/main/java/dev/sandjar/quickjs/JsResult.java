package dev.sandjar.quickjs;

/**
 * The outcome of evaluating or calling guest code: a value, or the guest error as a value. Owns
 * whichever handle it holds; close it, or take the value with {@link #orThrow()}.
 */
public final class JsResult implements AutoCloseable {
    private final JsValue value;
    private final JsValue errorValue;
    private final JsError error;

    private JsResult(JsValue value, JsValue errorValue, JsError error) {
        this.value = value;
        this.errorValue = errorValue;
        this.error = error;
    }

    static JsResult success(JsValue value) {
        return new JsResult(value, null, null);
    }

    static JsResult failure(JsValue errorValue, JsError error) {
        return new JsResult(null, errorValue, error);
    }

    public boolean isOk() {
        return error == null;
    }

    /** The value; throws {@link IllegalStateException} when this is a failure. */
    public JsValue value() {
        if (error != null) {
            throw new IllegalStateException("result is a failure: " + error);
        }
        return value;
    }

    /** The guest error; throws {@link IllegalStateException} when this is a success. */
    public JsError error() {
        if (error == null) {
            throw new IllegalStateException("result is a success");
        }
        return error;
    }

    /** The thrown value itself (owned by this result), for callers that inspect it further. */
    public JsValue errorValue() {
        error();
        return errorValue;
    }

    /** The value (now owned by the caller), or a {@link JsException} after freeing the error. */
    public JsValue orThrow() {
        if (error != null) {
            if (errorValue.isAlive()) {
                errorValue.close();
            }
            throw new JsException(error);
        }
        return value;
    }

    @Override
    public void close() {
        JsValue held = error == null ? value : errorValue;
        if (held != null && held.isAlive()) {
            held.close();
        }
    }
}
