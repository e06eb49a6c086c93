package dev.sandjar.bridges.fetch;

import java.net.URI;
import java.net.http.HttpRequest;

/**
 * Lets {@code java.net.http} send a Host header we choose, which pinning needs: the request URI
 * names the validated IP literal, and without an explicit Host the client would send that literal.
 *
 * <p>The JDK refuses a user-set {@code Host} unless the system property {@code
 * jdk.httpclient.allowRestrictedHeaders} lists {@code host} at the moment its internal {@code
 * jdk.internal.net.http.common.Utils} class initialises; it is read once and never again. Loading
 * this class adds {@code host} to the property (keeping what was there) and then probes, with a
 * request builder, whether the JDK took it. If {@code java.net.http} was used in this JVM before,
 * the probe fails and {@link #requireAllowed} says how to fix it: start the JVM with {@code
 * -Djdk.httpclient.allowRestrictedHeaders=host}.
 *
 * <p>The property is JVM-wide: other users of {@code java.net.http} in the same JVM may then set
 * Host too. That only relaxes a check the JDK makes on their own headers.
 */
final class HostHeader {
    static final String PROPERTY = "jdk.httpclient.allowRestrictedHeaders";

    /** Null when a Host header can be set, else why not. */
    private static final String FAILURE;

    static {
        String current = System.getProperty(PROPERTY);
        if (!listsHost(current)) {
            System.setProperty(
                    PROPERTY,
                    current == null || current.isBlank() ? "host" : current.trim() + ",host");
        }
        FAILURE = probe();
    }

    private HostHeader() {}

    /** Throws if this JVM's HTTP client will not send our Host header. */
    static void requireAllowed() {
        if (FAILURE != null) {
            throw new IllegalStateException(FAILURE);
        }
    }

    /** Mirrors the JDK's parsing: the whole value is trimmed and split on ",", tokens are not. */
    private static boolean listsHost(String value) {
        if (value == null) {
            return false;
        }
        for (String token : value.trim().split(",")) {
            if (token.equalsIgnoreCase("host")) {
                return true;
            }
        }
        return false;
    }

    private static String probe() {
        try {
            HttpRequest.newBuilder(URI.create("http://127.0.0.1/")).header("Host", "probe.invalid");
            return null;
        } catch (IllegalArgumentException e) {
            return "fetch needs java.net.http to send a Host header, which it allows only when the"
                    + " system property "
                    + PROPERTY
                    + " includes \"host\" before java.net.http is first used; it was used earlier"
                    + " in this JVM (value now: "
                    + System.getProperty(PROPERTY)
                    + "). Start the JVM with -D"
                    + PROPERTY
                    + "=host";
        }
    }
}
