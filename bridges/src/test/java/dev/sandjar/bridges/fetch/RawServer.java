package dev.sandjar.bridges.fetch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP server on a loopback address that counts every accepted connection and lets a test script
 * the bytes, for what an HTTP server library hides: connections that must never be made, and
 * whether the client really closed its connection.
 */
final class RawServer implements AutoCloseable {
    interface Behaviour {
        void serve(Socket socket, RawServer server) throws IOException;
    }

    private final ServerSocket socket;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final AtomicInteger accepted = new AtomicInteger();
    final CountDownLatch requestSeen = new CountDownLatch(1);
    final CountDownLatch clientClosed = new CountDownLatch(1);
    private final AtomicLong clientClosedAt = new AtomicLong();

    RawServer(String bindAddress, Behaviour behaviour) throws IOException {
        socket = new ServerSocket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(bindAddress), 0));
        pool.execute(
                () -> {
                    while (!socket.isClosed()) {
                        try {
                            Socket client = socket.accept();
                            accepted.incrementAndGet();
                            pool.execute(
                                    () -> {
                                        try (client) {
                                            behaviour.serve(client, this);
                                        } catch (IOException ignored) {
                                            // The client went away; tests look at the latches.
                                        }
                                    });
                        } catch (IOException closed) {
                            return;
                        }
                    }
                });
    }

    /** Accepts and closes at once: for addresses nothing may connect to. */
    static RawServer mustNotBeHit(String bindAddress) throws IOException {
        return new RawServer(bindAddress, (s, server) -> {});
    }

    /**
     * Reads the request, writes {@code head} (a status line, headers and maybe some body), then
     * waits, never finishing, until the client closes the connection.
     */
    static RawServer stalling(String bindAddress, String head) throws IOException {
        return new RawServer(
                bindAddress,
                (client, server) -> {
                    readHead(client.getInputStream());
                    server.requestSeen.countDown();
                    client.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
                    client.getOutputStream().flush();
                    try {
                        while (client.getInputStream().read() >= 0) {
                            // Drain until the client closes.
                        }
                    } catch (IOException reset) {
                        // A reset is a close too.
                    }
                    server.clientClosedAt.set(System.nanoTime());
                    server.clientClosed.countDown();
                });
    }

    int port() {
        return socket.getLocalPort();
    }

    String url(String host, String path) {
        return "http://" + host + ":" + port() + path;
    }

    int accepted() {
        return accepted.get();
    }

    /** Waits for the client to close; returns when it did, in nanoTime. */
    long awaitClientClose(long timeoutMillis) throws InterruptedException {
        if (!clientClosed.await(timeoutMillis, TimeUnit.MILLISECONDS)) {
            throw new AssertionError(
                    "the client did not close its connection in " + timeoutMillis + " ms");
        }
        return clientClosedAt.get();
    }

    private static void readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed before the request ended");
            }
            head.write(b);
            state =
                    (b == '\r' && (state == 0 || state == 2))
                                    || (b == '\n' && (state == 1 || state == 3))
                            ? state + 1
                            : 0;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        pool.shutdownNow();
    }
}
