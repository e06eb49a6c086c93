package dev.sandjar.host;

/**
 * A module, pack or capability was refused, or nothing serves it. The message says which and why,
 * and is safe to show the guest: it never names a host path.
 */
public class RefusedException extends SandjarException {
    private static final long serialVersionUID = 1L;

    public RefusedException(String message) {
        super(message);
    }

    public RefusedException(String message, Throwable cause) {
        super(message, cause);
    }
}
