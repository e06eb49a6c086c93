package dev.sandjar.bridges.fetch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.fetch.FetchException.Code;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS through the pinned IP literal. The server's certificate, made by keytool for this run, is
 * valid for fetch.test, {a,b,c}.fetch.test <em>and</em> the IP 127.0.0.1, so the tests can show
 * that a name the certificate does not cover is refused even though the address it connects to is
 * covered.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FetchHttpsTest {
    private static SSLContext serverTls;
    private static SSLContext clientTls;

    private final CountingResolver resolver = new CountingResolver();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private LoopbackServer server;
    private FetchExecutor executor;

    private static TestCertificate certificate;

    @BeforeAll
    static void makeCertificate(@TempDir Path dir) throws Exception {
        certificate =
                TestCertificate.make(
                        dir,
                        "fetch.test",
                        "dns:fetch.test,dns:a.fetch.test,dns:b.fetch.test,dns:c.fetch.test,ip:127.0.0.1");
        serverTls = certificate.serverTls();
        clientTls = certificate.clientContext();
    }

    @BeforeEach
    void startServer() throws Exception {
        server = LoopbackServer.https("127.0.0.1", serverTls);
        closeables.add(server);
        server.on("/", (exchange, body) -> LoopbackServer.respond(exchange, 200, "secure"));
        for (String name :
                List.of(
                        "fetch.test",
                        "a.fetch.test",
                        "b.fetch.test",
                        "c.fetch.test",
                        "other.test")) {
            resolver.answer(name, "127.0.0.1");
        }
    }

    private FetchExecutor executor(UnaryOperator<FetchConfig.Builder> config) throws Exception {
        executor =
                FetchExecutor.create(
                        config.apply(
                                        FetchConfig.builder()
                                                .withResolver(resolver)
                                                .withSslContext(clientTls)
                                                .withTimeout(Duration.ofSeconds(10))
                                                .exemptAddress(InetAddress.getByName("127.0.0.1")))
                                .build());
        return executor;
    }

    @AfterEach
    void nothingLeaks() throws Exception {
        if (executor != null) {
            executor.close();
            FetchExecutorTest.assertDrained(executor);
        }
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    private static FetchRequest get(String url) {
        return FetchRequest.builder(url).build();
    }

    @Test
    void nameIsSentAsSniAndHostAndTheCertificateIsCheckedAgainstIt() throws Exception {
        FetchResponse response =
                FetchExecutorTest.await(executor(b -> b).fetch(get(server.url("fetch.test", "/"))));

        assertEquals("secure", new String(response.body(), UTF_8));
        assertEquals(server.url("fetch.test", "/"), response.url());
        LoopbackServer.Seen seen = server.requests().get(0);
        assertEquals("fetch.test", seen.sni());
        assertEquals("fetch.test:" + server.port(), seen.header("Host"));
        assertEquals(1, resolver.calls("fetch.test"));
    }

    @Test
    void certificateValidForTheAddressDoesNotPassForANameItLacks() throws Exception {
        // A fresh session cache: nothing to resume, so this is the trust manager's decision. The
        // JDK checks the SNI name first and falls back to the peer host; with the IP literal as
        // peer host, this certificate (which lists 127.0.0.1) would pass.
        SSLContext fresh = certificate.clientContext();
        FetchExecutor fetch = executor(b -> b.withSslContext(fresh));

        FetchException e =
                FetchExecutorTest.failure(fetch.fetch(get(server.url("other.test", "/"))));

        assertEquals(Code.NETWORK, e.code());
        assertTrue(e.getMessage().contains("other.test"), e.getMessage());
        assertEquals(0, server.requests().size());
    }

    @Test
    void sessionMadeForOneNameIsNotResumedForAnotherOnTheSameAddress() throws Exception {
        SSLContext fresh = certificate.clientContext();
        FetchExecutor fetch = executor(b -> b.withSslContext(fresh));
        // A good handshake for fetch.test puts a session for 127.0.0.1:port in the cache, which
        // a cache keyed by the IP literal would resume for other.test without any check.
        FetchExecutorTest.await(fetch.fetch(get(server.url("fetch.test", "/"))));

        FetchException e =
                FetchExecutorTest.failure(fetch.fetch(get(server.url("other.test", "/"))));

        assertEquals(Code.NETWORK, e.code());
        assertTrue(e.getMessage().contains("TLS"), e.getMessage());
        assertTrue(e.getMessage().contains("other.test"), e.getMessage());
        assertEquals(1, server.requests().size(), "no request may reach the server as other.test");
    }

    @Test
    void redirectToAnotherNameIsVerifiedForThatName() throws Exception {
        server.on("/hop", LoopbackServer.redirect(302, server.url("other.test", "/")));
        FetchException e =
                FetchExecutorTest.failure(
                        executor(b -> b).fetch(get(server.url("fetch.test", "/hop"))));
        assertEquals(Code.NETWORK, e.code());
        assertTrue(e.getMessage().contains("TLS"), e.getMessage());
    }

    @Test
    void literalHttpsUrlIsCheckedAgainstTheAddressWithoutSni() throws Exception {
        FetchResponse response =
                FetchExecutorTest.await(executor(b -> b).fetch(get(server.url("/"))));
        assertEquals(200, response.status());
        assertEquals("", server.requests().get(0).sni());
        assertEquals("127.0.0.1:" + server.port(), server.requests().get(0).header("Host"));
    }

    @Test
    void untrustedCertificateIsRefused() throws Exception {
        FetchExecutor fetch =
                FetchExecutor.create(
                        FetchConfig.builder()
                                .withResolver(resolver)
                                .exemptAddress(InetAddress.getByName("127.0.0.1"))
                                .build());
        closeables.add(fetch);
        FetchException e =
                FetchExecutorTest.failure(fetch.fetch(get(server.url("fetch.test", "/"))));
        assertEquals(Code.NETWORK, e.code());
        assertTrue(e.getMessage().contains("TLS"), e.getMessage());
    }

    @Test
    void connectionsAreReusedPerNameButNeverAcrossNames() throws Exception {
        FetchExecutor fetch = executor(b -> b.withMaxTlsClients(2));

        FetchExecutorTest.await(fetch.fetch(get(server.url("fetch.test", "/"))));
        FetchExecutorTest.await(fetch.fetch(get(server.url("fetch.test", "/"))));
        assertEquals(1, server.connections(), "same name: the pooled connection is reused");

        FetchExecutorTest.await(fetch.fetch(get(server.url("a.fetch.test", "/"))));
        assertEquals(2, server.connections(), "same address, other name: a new connection");

        FetchExecutorTest.await(fetch.fetch(get(server.url("b.fetch.test", "/"))));
        FetchExecutorTest.await(fetch.fetch(get(server.url("c.fetch.test", "/"))));
        assertEquals(2, fetch.clients().tlsClientCount(), "clients are bounded by maxTlsClients");
        assertEquals(
                List.of("fetch.test", "fetch.test", "a.fetch.test", "b.fetch.test", "c.fetch.test"),
                server.requests().stream().map(LoopbackServer.Seen::sni).toList());
    }
}
