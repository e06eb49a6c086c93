package dev.sandjar.bridges.media;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.fetch.FetchConfig;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
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

    private static final char[] PASSWORD = "changeit".toCharArray();
    static Sandbox sandbox;
    static HttpsServer server;
    static ExecutorService serverThreads;
    static SSLContext clientTls;
    static final AtomicInteger served = new AtomicInteger();

    @BeforeAll
    static void start(Sandbox shared, @TempDir Path dir) throws Exception {
        sandbox = shared;
        Path keystore = dir.resolve("server.p12");
        Process keytool =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "keytool")
                                        .toString(),
                                "-genkeypair",
                                "-alias",
                                "server",
                                "-keyalg",
                                "EC",
                                "-dname",
                                "CN=media.test",
                                "-ext",
                                "SAN=ip:127.0.0.1",
                                "-validity",
                                "2",
                                "-keystore",
                                keystore.toString(),
                                "-storetype",
                                "PKCS12",
                                "-storepass",
                                new String(PASSWORD),
                                "-keypass",
                                new String(PASSWORD))
                        .redirectErrorStream(true)
                        .start();
        String output = new String(keytool.getInputStream().readAllBytes(), UTF_8);
        assertTrue(keytool.waitFor(20, TimeUnit.SECONDS), "keytool hung");
        assertEquals(0, keytool.exitValue(), output);
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            keys.load(in, PASSWORD);
        }
        KeyManagerFactory kmf =
                KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, PASSWORD);
        SSLContext serverTls = SSLContext.getInstance("TLS");
        serverTls.init(kmf.getKeyManagers(), null, null);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("server", keys.getCertificate("server"));
        TrustManagerFactory tmf =
                TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        clientTls = SSLContext.getInstance("TLS");
        clientTls.init(null, tmf.getTrustManagers(), null);

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
