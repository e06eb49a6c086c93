package dev.sandjar.packs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A real HTTP server on a free loopback port that answers the two routes a {@link RemoteCatalog}
 * reads from a {@link ModuleCatalog}, the way the Sandjar server writes them (the server module's
 * own tests run the remote catalog against the real one), with a hook that can change any answer: a
 * wrong digest, a status, a delay, a larger body.
 */
final class CatalogServer implements AutoCloseable {
    static final String TOKEN = "remote-test-token";

    /** One answer, before it is sent. */
    record Answer(
            String path,
            int status,
            Map<String, String> headers,
            byte[] body,
            long delayMs,
            boolean chunked) {
        Answer with(String header, String value) {
            Map<String, String> h = new LinkedHashMap<>(headers);
            h.put(header, value);
            return new Answer(path, status, h, body, delayMs, chunked);
        }

        Answer status(int s) {
            return new Answer(path, s, headers, body, delayMs, chunked);
        }

        Answer body(byte[] b) {
            return new Answer(path, status, headers, b, delayMs, chunked);
        }

        Answer delay(long ms) {
            return new Answer(path, status, headers, body, ms, chunked);
        }

        /** Sent without a Content-Length. */
        Answer withoutLength() {
            return new Answer(path, status, headers, body, delayMs, true);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ModuleCatalog catalog;
    private final HttpServer http;
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    volatile UnaryOperator<Answer> tamper = UnaryOperator.identity();
    final java.util.List<String> requests = new java.util.concurrent.CopyOnWriteArrayList<>();

    CatalogServer(ModuleCatalog catalog) throws IOException {
        this.catalog = catalog;
        this.http =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", this::handle);
        http.setExecutor(executor);
        http.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            requests.add(path);
            Answer a;
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            if (!("Bearer " + TOKEN).equals(auth)) {
                a = json(path, 401, "{\"error\":{\"code\":\"UNAUTHORIZED\"}}");
            } else if (path.equals("/api/packs")) {
                a = json(path, 200, packs());
            } else if (path.startsWith("/api/sandbox-modules/")) {
                a = module(path, path.substring("/api/sandbox-modules/".length()));
            } else {
                a = json(path, 404, "{}");
            }
            a = tamper.apply(a);
            if (a.delayMs() > 0) {
                Thread.sleep(a.delayMs());
            }
            a.headers().forEach((k, v) -> ex.getResponseHeaders().set(k, v));
            ex.sendResponseHeaders(
                    a.status(), a.chunked() ? 0 : a.body().length == 0 ? -1 : a.body().length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(a.body());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client went away (it timed out): nothing to answer
        }
    }

    private static Answer json(String path, int status, String body) {
        return new Answer(
                path,
                status,
                Map.of("Content-Type", "application/json"),
                body.getBytes(StandardCharsets.UTF_8),
                0,
                false);
    }

    private String packs() throws IOException {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode modules = root.putArray("modules");
        for (ModuleSummary m : catalog.summaries()) {
            ObjectNode o = modules.addObject();
            o.put("specifier", m.specifier());
            o.put("pack", m.pack());
            o.put("version", m.version());
            o.put("kind", m.kind().id());
            o.put("id", m.specifier());
            o.put("description", m.description());
            o.put("graphDigest", m.graphDigest());
            o.put("shipped", m.shipped());
        }
        ArrayNode diags = root.putArray("diagnostics");
        for (Diagnostic d : catalog.diagnostics()) {
            ObjectNode o = diags.addObject();
            o.put("severity", d.severity().name().toLowerCase(java.util.Locale.ROOT));
            o.put("code", d.code());
            o.put("pack", d.pack());
            o.put("where", d.where());
            o.put("message", d.message());
        }
        return JSON.writeValueAsString(root);
    }

    private Answer module(String path, String id) {
        ModuleDelivery d;
        try {
            d = catalog.authorizeDelivery(id);
        } catch (ModuleDeliveryException e) {
            return json(path, 404, "{}");
        }
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Type", ModuleDelivery.MEDIA_TYPE);
        h.put("X-Content-Sha256", d.contentSha256());
        h.put("X-Content-Digest", d.graphDigest());
        h.put("X-Sandbox-File-Id", d.graphId());
        h.put("X-Sandbox-Module-Dependencies", String.join(", ", d.dependencyIds()));
        if (d.hostModule() != null) {
            h.put("X-Sandbox-Host-Module", d.hostModule());
        }
        if (d.npm() != null) {
            h.put("X-Sandbox-Npm", d.npm());
        }
        return new Answer(path, 200, h, d.source().getBytes(StandardCharsets.UTF_8), 0, false);
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
