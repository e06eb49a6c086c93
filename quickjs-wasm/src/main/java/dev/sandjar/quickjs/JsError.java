package dev.sandjar.quickjs;

import java.util.Objects;

/**
 * A guest exception as a value: the thrown value's {@code name}, {@code message} and {@code stack}
 * (empty strings when the thrown value had none, for example {@code throw 42}).
 *
 * @param name the JS error name, such as {@code TypeError}; for a non-Error value, its type
 * @param message the message, or the thrown value as a string for a non-Error value
 * @param stack the JS stack as QuickJS formats it, possibly empty
 */
public record JsError(String name, String message, String stack) {
    public JsError {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(stack, "stack");
    }

    /**
     * QuickJS's interrupt ({@code InternalError: interrupted}): the interrupt handler stopped it.
     */
    public boolean isInterrupted() {
        return name.equals("InternalError") && message.equals("interrupted");
    }

    /** QuickJS's allocator refused: the runtime's memory limit or the wasm memory maximum. */
    public boolean isOutOfMemory() {
        return (name.equals("InternalError") || name.equals("RangeError"))
                && message.contains("out of memory");
    }

    /** QuickJS's own stack check fired. */
    public boolean isStackOverflow() {
        return name.equals("RangeError") && message.contains("Maximum call stack size exceeded");
    }

    /** {@code name: message}, as JavaScript prints an error. */
    @Override
    public String toString() {
        return message.isEmpty() ? name : name + ": " + message;
    }
}
