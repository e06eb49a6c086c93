package dev.sandjar.bridges.fetch;

import dev.sandjar.host.SandjarException;

/**
 * Why a fetch did not produce a response. One type for every failure; callers branch on {@link
 * #code()}, and the message says what was wrong and, where there is one, what the limit is.
 */
public final class FetchException extends SandjarException {
    private static final long serialVersionUID = 1L;

    /** Stable, machine-readable reasons. */
    public enum Code {
        /** The URL is malformed, not http/https, carries credentials, or names a blocked port. */
        BAD_URL,
        /** The method or body is not acceptable (e.g. a body on GET, a forbidden method). */
        BAD_REQUEST,
        /** A header name or value is invalid, or the header is one the guest may not set. */
        BAD_HEADER,
        /** The host is, or resolves to, an address outside the public internet. */
        BLOCKED_ADDRESS,
        /** The redirect chain is longer than the configured maximum. */
        TOO_MANY_REDIRECTS,
        /** The response body is larger than the configured cap (and truncation was not asked). */
        BODY_TOO_LARGE,
        /** The whole exchange (resolution, connect, headers, body) overran its deadline. */
        TIMEOUT,
        /** The executor was closed while the fetch was pending. */
        ABORTED,
        /** Resolution, connection, TLS or protocol failure. */
        NETWORK
    }

    private final Code code;

    FetchException(Code code, String message) {
        this(code, message, null);
    }

    FetchException(Code code, String message, Throwable cause) {
        // Timeouts and aborts are control flow: the stack says nothing the message does not.
        super(message, cause, code != Code.TIMEOUT && code != Code.ABORTED);
        this.code = code;
    }

    public Code code() {
        return code;
    }
}
