package dev.sandjar.quickjs;

/**
 * The outcome of evaluating or calling guest code: a value, or the guest error as a value.
 *
 * <p>Ownership: the result owns whichever handle it holds until one of two things happens.
 *
 * <ul>
 *   <li>{@link #close()} frees it. {@link #value()} and {@link #errorValue()} are borrowed from the
 *       result: valid until the result is closed; {@link JsValue#dup()} keeps one longer.
 *   <li>{@link #orThrow()} hands it over: on success the caller owns the value and must close it;
 *       on failure the thrown value is freed and a {@link JsException} thrown. Either way the
 *       result owns nothing afterwards, so closing it (as a try-with-resources does) is a no-op,
 *       and {@code try (JsResult r = ...) { if (r.isOk()) return r.orThrow(); ... }} returns a
 *       value that outlives {@code r} without a {@code dup()}.
 * </ul>
 *
 * <p>Closing twice, reading {@link #value()} or {@link #errorValue()} after close, or after {@link
 * #orThrow()} handed it over, and calling {@link #orThrow()} twice throw {@link
 * IllegalStateException}. A result whose context has been closed may still be closed (its handle
 * was freed with the context). {@link #isOk()} and {@link #error()} are plain data and stay
 * readable.
 */
public final class JsResult implements AutoCloseable {
    private enum State {
        OWNS,
        HANDED_OVER,
        CLOSED
    }

    private final JsValue value;
    private final JsValue errorValue;
    private final JsError error;
    private State state = State.OWNS;

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

    /**
     * The value, borrowed from this result (see the class comment); throws {@link
     * IllegalStateException} when this is a failure, is closed, or handed the value over.
     */
    public JsValue value() {
        if (error != null) {
            throw new IllegalStateException("result is a failure: " + error);
        }
        checkOwns();
        return value;
    }

    /** The guest error; throws {@link IllegalStateException} when this is a success. */
    public JsError error() {
        if (error == null) {
            throw new IllegalStateException("result is a success");
        }
        return error;
    }

    /** The thrown value itself, borrowed from this result, for callers that inspect it further. */
    public JsValue errorValue() {
        error();
        checkOwns();
        return errorValue;
    }

    /**
     * Hands the value over: the caller owns it and closes it, and this result owns nothing more. On
     * failure, frees the thrown value and throws a {@link JsException} with the guest's name,
     * message and stack.
     */
    public JsValue orThrow() {
        checkOwns();
        state = State.HANDED_OVER;
        if (error != null) {
            if (errorValue.isAlive()) {
                errorValue.close();
            }
            throw new JsException(error);
        }
        return value;
    }

    /** Frees the handle this result still owns; a no-op after {@link #orThrow()}. */
    @Override
    public void close() {
        if (state == State.CLOSED) {
            throw new IllegalStateException("JsResult closed twice");
        }
        State was = state;
        state = State.CLOSED;
        if (was == State.HANDED_OVER) {
            return;
        }
        JsValue held = error == null ? value : errorValue;
        if (held != null && held.isAlive()) {
            held.close();
        }
    }

    private void checkOwns() {
        switch (state) {
            case OWNS -> {}
            case HANDED_OVER ->
                    throw new IllegalStateException(
                            "the result's value was handed over by orThrow(); its owner is the"
                                    + " caller that took it");
            case CLOSED -> throw new IllegalStateException("JsResult used after close");
        }
    }
}
