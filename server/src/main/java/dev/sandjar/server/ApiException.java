package dev.sandjar.server;

import java.util.Map;

/**
 * A request the server answers with an error status. {@link #code} is stable (clients branch on
 * it); the message says what was wrong and, where there is one, the bound. {@link ErrorResponses}
 * turns it, and every other exception a route throws, into the response.
 */
final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The stable error codes, each with its status. */
    enum Code {
        BAD_REQUEST(400),
        UNAUTHORIZED(401),
        FORBIDDEN(403),
        NOT_FOUND(404),
        NOT_ACCEPTABLE(406),
        CONFLICT(409),
        PAYLOAD_TOO_LARGE(413),
        UNSUPPORTED_MEDIA_TYPE(415),
        /**
         * Only Jetty answers it ({@link JettyErrors}): the request's headers overflow its buffer.
         */
        HEADERS_TOO_LARGE(431),
        TOO_MANY_RUNS(429),
        INTERNAL(500),
        DRAINING(503),
        /** A session whose file the server has not restored yet; {@code Retry-After} says when. */
        RESTORING(503);

        final int status;

        Code(int status) {
            this.status = status;
        }
    }

    final Code code;
    final Map<String, String> headers;

    ApiException(Code code, String message) {
        this(code, message, Map.of());
    }

    ApiException(Code code, String message, Map<String, String> headers) {
        super(message, null, false, false);
        this.code = code;
        this.headers = Map.copyOf(headers);
    }

    static ApiException badRequest(String message) {
        return new ApiException(Code.BAD_REQUEST, message);
    }

    static ApiException forbidden(String message) {
        return new ApiException(Code.FORBIDDEN, message);
    }
}
