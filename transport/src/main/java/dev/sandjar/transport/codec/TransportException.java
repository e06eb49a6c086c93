package dev.sandjar.transport.codec;

/** A value cannot cross the boundary; the message names its path and why. */
public final class TransportException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TransportException(String message) {
        super(message);
    }

    public TransportException(String message, Throwable cause) {
        super(message, cause);
    }
}
