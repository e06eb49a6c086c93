package dev.sandjar.host;

import java.util.Objects;

/**
 * Why a run failed.
 *
 * @param kind what the caller branches on
 * @param name the JavaScript error name ({@code TypeError}, ...), or for sandbox-side failures a
 *     name that says what happened ({@code TimeoutError}, {@code OutputTooLarge}, ...)
 * @param message what went wrong; for limits, which limit and its value
 * @param stack the guest's JavaScript stack where there is one, else empty
 * @param line the 1-based line in the user's code the error points at, or 0 when unknown
 * @param column the 1-based column in that line, or 0 when unknown
 */
public record RunError(Kind kind, String name, String message, String stack, int line, int column) {
    public enum Kind {
        /** The code does not parse. */
        SYNTAX,
        /** An import was refused or could not be resolved. */
        IMPORT,
        /** The guest threw (or rejected) and did not catch it. */
        EXCEPTION,
        /** The CPU budget or the wall-clock bound ran out. */
        TIMEOUT,
        /** The guest heap limit was reached. */
        MEMORY,
        /** The guest call stack limit was reached. */
        STACK,
        /** The caller cancelled the run. */
        CANCELLED,
        /** The encoded result or a synced global is over the output limit. */
        OUTPUT,
        /** The sandbox itself failed; the engine instance was checked and replaced if broken. */
        INTERNAL
    }

    public RunError {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(stack, "stack");
    }

    static RunError of(Kind kind, String name, String message) {
        return new RunError(kind, name, message, "", 0, 0);
    }

    /** {@code name: message}, as JavaScript prints an error. */
    @Override
    public String toString() {
        return message.isEmpty() ? name : name + ": " + message;
    }
}
