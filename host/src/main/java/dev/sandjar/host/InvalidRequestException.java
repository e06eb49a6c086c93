package dev.sandjar.host;

/**
 * The caller's input is wrong: a value out of its bound, a reserved or malformed name, code over
 * its size limit, a global with no JavaScript form. The message names the value and the bound.
 * Thrown where the value is set or submitted, before any guest code runs.
 */
public class InvalidRequestException extends SandjarException {
    private static final long serialVersionUID = 1L;

    public InvalidRequestException(String message) {
        super(message);
    }

    public InvalidRequestException(String message, Throwable cause) {
        super(message, cause);
    }
}
