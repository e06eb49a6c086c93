package dev.sandjar.host;

/**
 * A {@link SandboxSession} could not serve the call: it is closed or expired, busy with another
 * call, over a bound, or its saved state does not fit this sandbox. {@link #reason()} says which;
 * the message names the session, the bound or both builds.
 */
public final class SessionException extends SandjarException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, for callers (and an HTTP surface) to branch on. */
    public enum Reason {
        /** The session was closed, or the sandbox was. An HTTP surface answers 404. */
        CLOSED,
        /** The session was idle past its expiry and was closed. An HTTP surface answers 404. */
        EXPIRED,
        /**
         * A call is running on the session; calls run one at a time. An HTTP surface answers 409.
         */
        BUSY,
        /** The sandbox holds its maximum of live sessions. An HTTP surface answers 429. */
        TOO_MANY,
        /**
         * Saved state that cannot be restored here: damaged, of another format, another engine
         * build or another set of bridges. An HTTP surface answers 400.
         */
        IMAGE
    }

    private final Reason reason;

    public SessionException(Reason reason, String message) {
        super(message, null, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
