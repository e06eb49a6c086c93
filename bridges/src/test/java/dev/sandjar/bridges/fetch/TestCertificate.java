package dev.sandjar.bridges.fetch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed EC certificate made by the JDK's keytool for a test's HTTPS server, and what a
 * client needs to trust it (and nothing else).
 *
 * @param serverTls the server side's context, holding the key
 * @param trustStore a store holding only the certificate
 */
public record TestCertificate(SSLContext serverTls, KeyStore trustStore) {
    private static final char[] PASSWORD = "changeit".toCharArray();

    /** Makes one in {@code dir} for {@code commonName}, valid for {@code subjectAltNames}. */
    public static TestCertificate make(Path dir, String commonName, String subjectAltNames)
            throws Exception {
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
                                "-groupname",
                                "secp256r1",
                                "-dname",
                                "CN=" + commonName,
                                "-ext",
                                "SAN=" + subjectAltNames,
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
        return new TestCertificate(serverTls, trust);
    }

    /** A client context trusting only this certificate, with an empty session cache. */
    public SSLContext clientContext() throws Exception {
        TrustManagerFactory tmf =
                TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trustStore);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}
