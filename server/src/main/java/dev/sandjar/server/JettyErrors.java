package dev.sandjar.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The errors Jetty answers itself, before any route sees the request, in the server's form: JSON
 * {@code {"code", "message"}} with an {@code X-Request-Id}, and the connection closed (Jetty drops
 * it after a request it could not parse, and a client that is not told reuses it). Jetty's reason
 * is not echoed: it may quote the URI.
 *
 * <p>Two kinds reach here. A request Jetty refuses after parsing (bad UTF-8 such as {@code %C0%AE},
 * a {@code ..;} segment) still has its path: under {@code /api/sandbox-modules/} it gets the module
 * 404, byte for byte, since a refused id must look like any id that is not delivered. A request its
 * parser refuses (a NUL, a path that climbs above the root) has lost its path (Jetty substitutes
 * {@code /badMessage}): it gets the same 400 on every path, which says nothing of the id either.
 *
 * <p>The body's code is the status's own {@link ApiException.Code} (431, headers over Jetty's
 * buffer, is {@code HEADERS_TOO_LARGE}); a status without one falls back to {@code BAD_REQUEST} or
 * {@code INTERNAL}.
 */
final class JettyErrors extends ErrorHandler {
    static final String MODULES = "/api/sandbox-modules/";

    private final String moduleNotFound;

    JettyErrors(String moduleNotFound) {
        this.moduleNotFound = moduleNotFound;
    }

    @Override
    protected void generateResponse(
            Request request,
            Response response,
            int status,
            String message,
            Throwable cause,
            Callback callback) {
        String path = request.getHttpURI() == null ? null : request.getHttpURI().getPath();
        String body;
        if (path != null && path.startsWith(MODULES) && status == HttpStatus.BAD_REQUEST_400) {
            status = HttpStatus.NOT_FOUND_404;
            body = moduleNotFound;
        } else {
            body = ResultJson.apiError(code(status).name(), HttpStatus.getMessage(status));
        }
        response.setStatus(status);
        response.getHeaders().put("Content-Type", "application/json");
        response.getHeaders().put("Connection", "close");
        response.getHeaders()
                .put(
                        SandjarServer.REQUEST_ID,
                        SandjarServer.requestId(
                                request.getHeaders().get(SandjarServer.REQUEST_ID)));
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }

    private static ApiException.Code code(int status) {
        for (ApiException.Code c : ApiException.Code.values()) {
            if (c.status == status) {
                return c;
            }
        }
        return status >= 500 ? ApiException.Code.INTERNAL : ApiException.Code.BAD_REQUEST;
    }
}
