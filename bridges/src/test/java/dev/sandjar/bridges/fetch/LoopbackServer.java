package dev.sandjar.bridges.fetch;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;

/**
 * A real HTTP(S) server on a loopback address and an ephemeral port, recording every request it
 * gets and counting connections (distinct client ports).
 */
final class LoopbackServer implements AutoCloseable {
    /** One request as the server saw it. */
    record Seen(String method, String target, Headers headers, byte[] body, String sni) {
        String header(String name) {
            return headers.getFirst(name);
        }
    }

    interface Handler {
        void handle(HttpExchange exchange, byte[] body) throws IOException;
    }

    private final HttpServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
    private final String scheme;

    private LoopbackServer(HttpServer server, String scheme) {
        this.server = server;
        this.scheme = scheme;
        server.setExecutor(pool);
        server.start();
    }

    static LoopbackServer http(String bindAddress) throws IOException {
        return new LoopbackServer(
                HttpServer.create(new InetSocketAddress(InetAddress.getByName(bindAddress), 0), 0),
                "http");
    }

    static LoopbackServer https(String bindAddress, SSLContext tls) throws IOException {
        HttpsServer server =
                HttpsServer.create(new InetSocketAddress(InetAddress.getByName(bindAddress), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        return new LoopbackServer(server, "https");
    }

    LoopbackServer on(String path, Handler handler) {
        server.createContext(
                path,
                exchange -> {
                    try (exchange) {
                        byte[] body = exchange.getRequestBody().readAllBytes();
                        clientPorts.add(exchange.getRemoteAddress().getPort());
                        seen.add(
                                new Seen(
                                        exchange.getRequestMethod(),
                                        exchange.getRequestURI().toString(),
                                        exchange.getRequestHeaders(),
                                        body,
                                        sni(exchange)));
                        handler.handle(exchange, body);
                    }
                });
        return this;
    }

    int port() {
        return server.getAddress().getPort();
    }

    /**
     * A URL on this server through the given host (a name the test resolver maps, or a literal).
     */
    String url(String host, String path) {
        return scheme + "://" + host + ":" + port() + path;
    }

    String url(String path) {
        InetAddress address = server.getAddress().getAddress();
        String host = address.getHostAddress();
        return url(host.contains(":") ? "[" + host + "]" : host, path);
    }

    List<Seen> requests() {
        return List.copyOf(seen);
    }

    int connections() {
        return clientPorts.size();
    }

    static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    static Handler redirect(int status, String location) {
        return (exchange, body) -> {
            exchange.getResponseHeaders().add("Location", location);
            exchange.sendResponseHeaders(status, -1);
        };
    }

    private static String sni(HttpExchange exchange) {
        if (!(exchange instanceof HttpsExchange)) {
            return null;
        }
        ExtendedSSLSession session =
                (ExtendedSSLSession) ((HttpsExchange) exchange).getSSLSession();
        for (SNIServerName name : session.getRequestedServerNames()) {
            if (name instanceof SNIHostName) {
                return ((SNIHostName) name).getAsciiName();
            }
        }
        return "";
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
