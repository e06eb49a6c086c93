package dev.sandjar.server;

import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.RefusedException;
import dev.sandjar.host.SessionException;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place an exception becomes an error response: JSON {@code {"code", "message"}} with the
 * code's status and headers, never a stack trace. Anything that is not a request's fault is a 500
 * whose message says so and whose details go to the log under the request id.
 */
final class ErrorResponses {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorResponses.class);

    private ErrorResponses() {}

    static void respond(Context ctx, Exception e) {
        ApiException api = asApi(e, requestId(ctx));
        ctx.skipRemainingHandlers(); // a refused before-handler must not reach the route
        if (ctx.res().isCommitted()) {
            LOG.warn(
                    "request={} failed after its response began: {}", requestId(ctx), e.toString());
            return;
        }
        api.headers.forEach(ctx::header);
        ctx.status(api.code.status)
                .contentType("application/json")
                .result(ResultJson.apiError(api.code.name(), api.getMessage()));
    }

    /** The response {@code e} calls for; a stream that has begun writes it as an event. */
    static ApiException asApi(Exception e, String requestId) {
        if (e instanceof ApiException api) {
            return api;
        }
        if (e instanceof InvalidRequestException bad) {
            return ApiException.badRequest(bad.getMessage());
        }
        if (e instanceof SessionException se) {
            return new ApiException(
                    switch (se.reason()) {
                        case CLOSED, EXPIRED -> ApiException.Code.NOT_FOUND;
                        case BUSY -> ApiException.Code.CONFLICT;
                        case TOO_MANY -> ApiException.Code.TOO_MANY_RUNS;
                        case IMAGE -> ApiException.Code.BAD_REQUEST;
                    },
                    se.getMessage());
        }
        if (e instanceof RefusedException refused) {
            return ApiException.forbidden(refused.getMessage());
        }
        if (e instanceof HttpResponseException h && h.getStatus() == 413) {
            return new ApiException(ApiException.Code.PAYLOAD_TOO_LARGE, "the body is too large");
        }
        LOG.error("request={} failed", requestId, e);
        return new ApiException(
                ApiException.Code.INTERNAL,
                "the server failed; the log has the details under request id " + requestId);
    }

    private static String requestId(Context ctx) {
        return ctx.res().getHeader(SandjarServer.REQUEST_ID);
    }
}
