package dev.sandjar.bridges.fetch;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.net.ssl.SSLContext;

/**
 * The {@link HttpClient}s a {@link FetchExecutor} sends through: one for plain HTTP, and one per
 * HTTPS host name, least recently used first out past a bound.
 *
 * <p>HTTPS needs a client per name because the TLS identity is bound per client ({@link
 * HostBoundSslContext}) and the client pools connections by IP and port: a shared client would
 * reuse a connection authenticated for one name for another name on the same address. Plain HTTP
 * has no identity to mix up, so one client serves every host.
 *
 * <p>JDK 17's {@code HttpClient} has no close: an evicted or dropped client stops its selector
 * thread once it is unreachable and garbage collected, after its in-flight exchanges finish. The
 * bound caps how many are live at once.
 */
final class HttpClients {
    private final SSLContext tlsBase;
    private final Duration connectTimeout;
    private final int maxTlsClients;
    private HttpClient plain;
    private final LinkedHashMap<String, HttpClient> tls;

    HttpClients(SSLContext tlsBase, Duration connectTimeout, int maxTlsClients) {
        this.tlsBase = tlsBase;
        this.connectTimeout = connectTimeout;
        this.maxTlsClients = maxTlsClients;
        this.tls =
                new LinkedHashMap<>(16, 0.75f, true) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, HttpClient> eldest) {
                        return size() > HttpClients.this.maxTlsClients;
                    }
                };
    }

    synchronized HttpClient forUrl(ParsedUrl url) {
        if (!url.secure()) {
            if (plain == null) {
                plain = builder().build();
            }
            return plain;
        }
        return tls.computeIfAbsent(
                url.host(),
                host ->
                        builder()
                                .sslContext(new HostBoundSslContext(tlsBase, host, url.isLiteral()))
                                .build());
    }

    /** Drops every client so they can be collected. */
    synchronized void clear() {
        plain = null;
        tls.clear();
    }

    synchronized int tlsClientCount() {
        return tls.size();
    }

    private HttpClient.Builder builder() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .proxy(HttpClient.Builder.NO_PROXY)
                .connectTimeout(connectTimeout);
    }
}
