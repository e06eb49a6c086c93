package dev.sandjar.quickjs;

/**
 * A handle to one guest value, owned by one holder.
 *
 * <p>Owned handles must be closed (try-with-resources or a {@link Scope}); use after close and a
 * second close throw {@link IllegalStateException}. Borrowed handles (a host function's arguments)
 * are valid only during the call and refuse {@link #close()}; {@link #dup()} makes an owned copy.
 * The constants ({@link JsContext#undefined()}, {@link JsContext#nullValue()}, {@link
 * JsContext#bool(boolean)}) may be closed any number of times. A handle is tied to its context: a
 * context refuses handles from another one. Engine thread only.
 */
public final class JsValue implements AutoCloseable {
    enum Kind {
        OWNED,
        BORROWED,
        CONSTANT
    }

    private final JsContext context;
    private final Kind kind;
    private int ptr;
    private boolean alive = true;

    private JsValue(JsContext context, int ptr, Kind kind) {
        this.context = context;
        this.ptr = ptr;
        this.kind = kind;
    }

    static JsValue owned(JsContext context, int ptr) {
        JsValue v = new JsValue(context, ptr, Kind.OWNED);
        context.track(v);
        return v;
    }

    static JsValue borrowed(JsContext context, int ptr) {
        return new JsValue(context, ptr, Kind.BORROWED);
    }

    static JsValue constant(JsContext context, int ptr) {
        return new JsValue(context, ptr, Kind.CONSTANT);
    }

    public JsContext context() {
        return context;
    }

    public boolean isAlive() {
        return alive && context.isAlive();
    }

    /** The raw pointer, checked for life and thread. */
    int ptr() {
        context.engine().checkThread();
        if (!isAlive()) {
            throw new IllegalStateException(
                    kind == Kind.BORROWED
                            ? "borrowed JsValue used after its host call returned; dup() it to keep"
                                    + " it"
                            : "JsValue used after close");
        }
        return ptr;
    }

    Kind kind() {
        return kind;
    }

    /** An owned copy of this value. */
    public JsValue dup() {
        return context.dup(this);
    }

    // Convenience reads; each delegates to the context.

    public String typeOf() {
        return context.typeOf(this);
    }

    public boolean isUndefined() {
        return context.isUndefined(this);
    }

    public boolean isNull() {
        return context.isNull(this);
    }

    public String asString() {
        return context.toJavaString(this);
    }

    public double asNumber() {
        return context.toNumber(this);
    }

    public boolean asBoolean() {
        return context.toBoolean(this);
    }

    /** {@code this[key]}, owned by the caller. */
    public JsValue get(String key) {
        return context.getProperty(this, key);
    }

    public void set(String key, JsValue value) {
        context.setProperty(this, key, value);
    }

    @Override
    public void close() {
        switch (kind) {
            case CONSTANT -> {}
            case BORROWED ->
                    throw new IllegalStateException(
                            "a borrowed JsValue (a host function argument) is not the callee's to"
                                    + " close");
            case OWNED -> {
                if (!alive) {
                    throw new IllegalStateException("JsValue closed twice");
                }
                context.release(this);
            }
        }
    }

    /** The pointer field as is, for snapshots (no checks). */
    int rawPtr() {
        return ptr;
    }

    /** Brings a handle back after its engine's memory was restored from a snapshot. */
    void revive(int valuePtr) {
        ptr = valuePtr;
        alive = true;
    }

    /** Marks the handle dead without freeing (its value was freed or handed to the engine). */
    void invalidate() {
        alive = false;
        ptr = 0;
    }

    @Override
    public String toString() {
        return alive
                ? "JsValue[" + kind.name().toLowerCase(java.util.Locale.ROOT) + "]"
                : "JsValue[closed]";
    }
}
