package dev.sandjar.bridges.fetch;

import java.net.URI;
import java.net.http.HttpRequest;

/**
 * Run in a child JVM by {@link HostHeaderTest}: uses {@code java.net.http} before fetch does, then
 * creates an executor. Prints the outcome and exits 0 when the executor was created, 3 when not.
 */
public final class HostHeaderProbeMain {
    private HostHeaderProbeMain() {}

    public static void main(String[] args) {
        HttpRequest.newBuilder(URI.create("http://127.0.0.1/")).header("X-First", "use");
        try {
            FetchExecutor.create(FetchConfig.defaults()).close();
            System.out.println("created");
        } catch (IllegalStateException e) {
            System.out.println(e.getMessage());
            System.exit(3);
        }
    }
}
