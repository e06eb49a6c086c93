package dev.sandjar.server;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The browser runner's page and its three assets (docs/runners.md, "Browser runner"), bundled into
 * the jar by the build from {@code src/main/runner}. They are the same for everyone and hold
 * nothing a token protects, so they are served without one; everything the page then asks the
 * server for (the pack list, module delivery) goes through the API with the token the user gives
 * the page, under that token's policy.
 */
final class RunnerPage {
    /** The page's files: exactly these, by name; nothing else under /runner/ is served. */
    private static final Map<String, String> TYPES =
            Map.of(
                    "index.html", "text/html; charset=utf-8",
                    "runner.js", "text/javascript; charset=utf-8",
                    "quickjs.wasm", "application/wasm",
                    "wasm-worker.js", "text/javascript; charset=utf-8");

    /**
     * Scripts from this origin only, WebAssembly compiled from them, requests to this origin only:
     * the page runs guest code inside QuickJS, never as the page's own JavaScript.
     */
    private static final String CSP =
            "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self';"
                    + " style-src 'unsafe-inline'; img-src 'self'; base-uri 'none';"
                    + " form-action 'none'; frame-ancestors 'none'";

    private final Map<String, byte[]> files = new ConcurrentHashMap<>();

    void index(Context ctx) {
        serve(ctx, "index.html");
    }

    void asset(Context ctx) {
        serve(ctx, ctx.pathParam("file"));
    }

    private void serve(Context ctx, String name) {
        String type = TYPES.get(name);
        if (type == null) {
            throw new ApiException(
                    ApiException.Code.NOT_FOUND,
                    "the runner serves only " + new java.util.TreeSet<>(TYPES.keySet()));
        }
        byte[] body = files.computeIfAbsent(name, RunnerPage::read);
        if (body.length == 0) {
            throw new ApiException(
                    ApiException.Code.NOT_FOUND,
                    "this build has no browser runner: it is bundled when the server module is"
                            + " built with npm present (docs/runners.md)");
        }
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Cache-Control", "no-cache");
        ctx.header("Content-Security-Policy", CSP);
        ctx.status(200).contentType(type).result(body);
    }

    private static byte[] read(String name) {
        try (InputStream in = RunnerPage.class.getResourceAsStream("runner/" + name)) {
            return in == null ? new byte[0] : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
