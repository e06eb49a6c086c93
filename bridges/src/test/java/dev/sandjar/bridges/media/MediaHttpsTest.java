package dev.sandjar.bridges.media;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.fetch.FetchConfig;
import dev.sandjar.bridges.fetch.TestCertificate;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An https: media ref read through the run's fetch, from a real HTTPS server with a certificate
 * keytool makes for this run: counted against the run's requests like the guest's own fetches.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MediaHttpsTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;
    static HttpsServer server;
    static ExecutorService serverThreads;
    static SSLContext clientTls;
    static final AtomicInteger served = new AtomicInteger();

    @BeforeAll
    static void start(Sandbox shared, @TempDir Path dir) throws Exception {
        sandbox = shared;
        TestCertificate certificate = TestCertificate.make(dir, "media.test", "ip:127.0.0.1");
        SSLContext serverTls = certificate.serverTls();
        clientTls = certificate.clientContext();

        server =
                HttpsServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(serverTls));
        serverThreads = Executors.newFixedThreadPool(2);
        server.setExecutor(serverThreads);
        server.createContext(
                "/note.txt",
                exchange -> {
                    served.incrementAndGet();
                    byte[] body = "remote text".getBytes(UTF_8);
                    exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
                    exchange.sendResponseHeaders(200, body.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                });
        server.start();
    }

    @AfterAll
    static void stop() {
        server.stop(0);
        serverThreads.shutdownNow();
    }

    @Test
    void anHttpsRefIsReadAsOneOfTheRunsFetches() {
        String url = "https://127.0.0.1:" + server.getAddress().getPort() + "/note.txt";
        try (Fetch fetch =
                Fetch.create(
                        FetchConfig.builder()
                                .withSslContext(clientTls)
                                .withAllowPrivateNetwork(true)
                                .build(),
                        2)) {
            Media media = Media.builder().withFetch(fetch).build();
            Object out =
                    sandbox.run(
                                    RunRequest.builder(
                                                    MediaTest.ATTEMPT
                                                            + "const ref = { type: 'document',"
                                                            + " uri: '"
                                                            + url
                                                            + "' };\n"
                                                            + "const info = await"
                                                            + " media.info(ref);\n"
                                                            + "return [await media.text(ref),"
                                                            + " info.mimeType, info.size, await"
                                                            + " attempt(() => media.bytes(ref))];")
                                            .bridge(media.bridge())
                                            .bridge(fetch.bridge())
                                            .build())
                            .valueOrThrow();
            assertEquals(
                    List.of(
                            "remote text",
                            "text/plain",
                            11L,
                            "FetchError LIMIT: fetch: this run has already started 2 requests;"
                                    + " the limit is 2 per run"),
                    out);
            assertEquals(2, served.get());
        }
    }
}
