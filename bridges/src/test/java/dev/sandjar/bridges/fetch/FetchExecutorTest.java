package dev.sandjar.bridges.fetch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.fetch.FetchException.Code;
import dev.sandjar.bridges.fetch.LoopbackServer.Seen;
import java.io.OutputStream;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The executor against real servers on loopback. The guard exempts exactly 127.0.0.1 (and ::1 where
 * a test says so); 127.0.0.2 stays refused like any other non-public address, and servers on it
 * count connections that must never happen.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FetchExecutorTest {
    static final String ALLOWED = "127.0.0.1";
    static final String REFUSED = "127.0.0.2";

    private final CountingResolver resolver = new CountingResolver();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private FetchExecutor executor;

    private FetchExecutor executor(UnaryOperator<FetchConfig.Builder> config) throws Exception {
        FetchConfig.Builder builder =
                FetchConfig.builder()
                        .withResolver(resolver)
                        .withTimeout(Duration.ofSeconds(10))
                        .exemptAddress(InetAddress.getByName(ALLOWED));
        executor = FetchExecutor.create(config.apply(builder).build());
        return executor;
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    @AfterEach
    void nothingLeaks() throws Exception {
        if (executor != null) {
            executor.close();
            assertDrained(executor);
        }
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    /**
     * No call stays in flight after close. A call completed by another thread just before leaves
     * the set a moment later (its removal is a dependent of its future, and the waiter it woke may
     * run first), so this waits for that, up to 10 s; a call that never leaves fails it.
     */
    static void assertDrained(FetchExecutor executor) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (executor.inFlightCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, executor.inFlightCount());
    }

    static FetchResponse await(CompletableFuture<FetchResponse> future) throws Exception {
        return future.get(20, TimeUnit.SECONDS);
    }

    static FetchException failure(CompletableFuture<FetchResponse> future) {
        ExecutionException e =
                assertThrows(ExecutionException.class, () -> future.get(20, TimeUnit.SECONDS));
        return assertInstanceOf(FetchException.class, e.getCause());
    }

    @Test
    void getReturnsStatusHeadersAndBody() throws Exception {
        LoopbackServer server =
                closeLater(LoopbackServer.http(ALLOWED))
                        .on(
                                "/hello",
                                (exchange, body) -> {
                                    exchange.getResponseHeaders().add("X-Multi", "one");
                                    exchange.getResponseHeaders().add("X-Multi", "two");
                                    exchange.getResponseHeaders().add("Content-Type", "text/plain");
                                    LoopbackServer.respond(exchange, 200, "hi there");
                                });
        FetchResponse response =
                await(
                        executor(b -> b)
                                .fetch(FetchRequest.builder(server.url("/hello?x=1")).build()));

        assertEquals(200, response.status());
        assertEquals("OK", response.statusText());
        assertTrue(response.ok());
        assertEquals("hi there", new String(response.body(), UTF_8));
        assertEquals(List.of("one", "two"), response.headers().get("x-multi"));
        assertEquals("text/plain", response.header("Content-Type"));
        assertEquals(server.url("/hello?x=1"), response.url());
        assertFalse(response.redirected());
        assertFalse(response.truncated());

        Seen seen = server.requests().get(0);
        assertEquals("GET", seen.method());
        assertEquals("/hello?x=1", seen.target());
        assertEquals("127.0.0.1:" + server.port(), seen.header("Host"));
        assertNull(seen.header("Accept-Encoding"), "identity: no Accept-Encoding is sent");
        assertEquals(0, resolver.totalCalls());
    }

    @Test
    void hostNameIsResolvedOnceAndSentAsHostHeader() throws Exception {
        LoopbackServer server =
                closeLater(LoopbackServer.http(ALLOWED))
                        .on("/", (exchange, body) -> LoopbackServer.respond(exchange, 200, "ok"));
        resolver.answer("app.test", ALLOWED);
        String url = server.url("app.test", "/");

        FetchResponse response = await(executor(b -> b).fetch(FetchRequest.builder(url).build()));

        assertEquals(url, response.url());
        assertEquals("app.test:" + server.port(), server.requests().get(0).header("Host"));
        assertEquals(1, resolver.calls("app.test"));
    }

    @Test
    void postSendsBytesAndHeadersUnchanged() throws Exception {
        LoopbackServer server =
                closeLater(LoopbackServer.http(ALLOWED))
                        .on(
                                "/echo",
                                (exchange, body) -> {
                                    exchange.sendResponseHeaders(201, body.length);
                                    try (OutputStream out = exchange.getResponseBody()) {
                                        out.write(body);
                                    }
                                });
        byte[] payload = new byte[70_000];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 31);
        }
        FetchRequest request =
                FetchRequest.builder(server.url("/echo"))
                        .withMethod("post")
                        .addHeader("Content-Type", "application/octet-stream")
                        .addHeader("X-Custom", "a")
                        .addHeader("X-Custom", "b")
                        .withBody(payload)
                        .build();

        FetchResponse response = await(executor(b -> b).fetch(request));

        assertEquals(201, response.status());
        assertEquals("Created", response.statusText());
        assertArrayEquals(payload, response.body());
        Seen seen = server.requests().get(0);
        assertEquals("POST", seen.method());
        assertArrayEquals(payload, seen.body());
        assertEquals(String.valueOf(payload.length), seen.header("Content-Length"));
        assertEquals(List.of("a", "b"), seen.headers().get("X-Custom"));
        assertEquals("application/octet-stream", seen.header("Content-Type"));
    }

    @ParameterizedTest
    @CsvSource({"404, Not Found", "500, Internal Server Error", "599, ''"})
    void errorStatusesAreResponsesNotFailures(int status, String text) throws Exception {
        LoopbackServer server =
                closeLater(LoopbackServer.http(ALLOWED))
                        .on(
                                "/",
                                (exchange, body) -> LoopbackServer.respond(exchange, status, "no"));
        FetchResponse response =
                await(executor(b -> b).fetch(FetchRequest.builder(server.url("/")).build()));
        assertEquals(status, response.status());
        assertEquals(text, response.statusText());
        assertFalse(response.ok());
        assertEquals("no", new String(response.body(), UTF_8));
    }

    @Test
    void ipv6LoopbackIsPinnedAsABracketedLiteral() throws Exception {
        LoopbackServer server =
                closeLater(LoopbackServer.http("::1"))
                        .on("/", (exchange, body) -> LoopbackServer.respond(exchange, 200, "six"));
        resolver.answer("six.test", "::1");
        FetchExecutor fetch = executor(b -> b.exemptAddress(CountingResolver.literal("::1")));

        FetchResponse byName =
                await(fetch.fetch(FetchRequest.builder(server.url("six.test", "/")).build()));
        FetchResponse byLiteral = await(fetch.fetch(FetchRequest.builder(server.url("/")).build()));

        assertEquals("six", new String(byName.body(), UTF_8));
        assertEquals("six", new String(byLiteral.body(), UTF_8));
        assertEquals("six.test:" + server.port(), server.requests().get(0).header("Host"));
        assertEquals("[::1]:" + server.port(), server.requests().get(1).header("Host"));
    }

    // --- redirects -------------------------------------------------------------------------

    @Test
    void redirectChainIsFollowedAndReported() throws Exception {
        LoopbackServer server = closeLater(LoopbackServer.http(ALLOWED));
        server.on("/r1", LoopbackServer.redirect(302, "/r2"))
                .on(
                        "/r2",
                        (exchange, body) -> {
                            // A redirect with a body: the body is dropped, not followed or kept.
                            exchange.getResponseHeaders()
                                    .add("Location", server.url("app.test", "/r3"));
                            LoopbackServer.respond(exchange, 307, "moved ".repeat(1000));
                        })
                .on("/r3", LoopbackServer.redirect(308, "r4?q=1"))
                .on("/r4", (exchange, body) -> LoopbackServer.respond(exchange, 200, "end"));
        resolver.answer("app.test", ALLOWED);

        FetchResponse response =
                await(executor(b -> b).fetch(FetchRequest.builder(server.url("/r1")).build()));

        assertEquals(200, response.status());
        assertEquals("end", new String(response.body(), UTF_8));
        assertTrue(response.redirected());
        assertEquals(server.url("app.test", "/r4?q=1"), response.url());
        assertEquals(
                List.of("/r1", "/r2", "/r3", "/r4?q=1"),
                server.requests().stream().map(Seen::target).toList());
        assertEquals("app.test:" + server.port(), server.requests().get(3).header("Host"));
    }

    @ParameterizedTest
    @CsvSource({
        "POST, 301, GET, false",
        "POST, 302, GET, false",
        "POST, 303, GET, false",
        "PUT, 303, GET, false",
        "POST, 307, POST, true",
        "POST, 308, POST, true",
        "PUT, 302, PUT, true",
        "DELETE, 301, DELETE, true",
    })
    void redirectsRewriteMethodAndBodyLikeFetch(
            String method, int status, String nextMethod, boolean keepsBody) throws Exception {
        LoopbackServer server = closeLater(LoopbackServer.http(ALLOWED));
        server.on("/from", LoopbackServer.redirect(status, "/to"))
                .on("/to", (exchange, body) -> LoopbackServer.respond(exchange, 200, "done"));
        FetchRequest request =
                FetchRequest.builder(server.url("/from"))
                        .withMethod(method)
                        .addHeader("Content-Type", "text/plain")
                        .withBody("payload".getBytes(UTF_8))
                        .build();

        await(executor(b -> b).fetch(request));

        Seen second = server.requests().get(1);
        assertEquals(nextMethod, second.method());
        assertEquals(keepsBody ? "payload" : "", new String(second.body(), UTF_8));
        assertEquals(keepsBody ? "text/plain" : null, second.header("Content-Type"));
    }

    @Test
    void credentialsAreDroppedWhenTheOriginChangesAndKeptWhenItDoesNot() throws Exception {
        LoopbackServer server = closeLater(LoopbackServer.http(ALLOWED));
        server.on("/same", LoopbackServer.redirect(302, "/landing"))
                .on("/cross", LoopbackServer.redirect(302, server.url("other.test", "/landing")))
                .on("/landing", (exchange, body) -> LoopbackServer.respond(exchange, 200, "ok"));
        resolver.answer("app.test", ALLOWED).answer("other.test", ALLOWED);
        FetchExecutor fetch = executor(b -> b);

        for (String path : List.of("/same", "/cross")) {
            await(
                    fetch.fetch(
                            FetchRequest.builder(server.url("app.test", path))
                                    .addHeader("Authorization", "Bearer secret")
                                    .addHeader("Cookie", "session=1")
                                    .addHeader("X-Other", "kept")
                                    .build()));
        }

        List<Seen> seen = server.requests();
        assertEquals("Bearer secret", seen.get(1).header("Authorization"));
        assertEquals("session=1", seen.get(1).header("Cookie"));
        assertEquals("/landing", seen.get(3).target());
        assertNull(seen.get(3).header("Authorization"));
        assertNull(seen.get(3).header("Cookie"));
        assertEquals("kept", seen.get(3).header("X-Other"));
    }

    @Test
    void tooManyRedirectsFailsAfterTheLimit() throws Exception {
        LoopbackServer server =
                closeLater(LoopbackServer.http(ALLOWED))
                        .on("/loop", LoopbackServer.redirect(302, "/loop"));
        FetchException e =
                failure(
                        executor(b -> b.withMaxRedirects(2))
                                .fetch(FetchRequest.builder(server.url("/loop")).build()));
        assertEquals(Code.TOO_MANY_REDIRECTS, e.code());
        assertTrue(e.getMessage().contains("maxRedirects (2)"), e.getMessage());
        assertEquals(3, server.requests().size());
    }

    @Test
    void redirectWithoutLocationIsReturnedAsIs() throws Exception {
        LoopbackServer server =
                closeLater(LoopbackServer.http(ALLOWED))
                        .on("/", (exchange, body) -> LoopbackServer.respond(exchange, 302, "stay"));
        FetchResponse response =
                await(executor(b -> b).fetch(FetchRequest.builder(server.url("/")).build()));
        assertEquals(302, response.status());
        assertFalse(response.redirected());
    }

    @Test
    void redirectToAPrivateAddressIsRefusedAtThatHopWithoutConnecting() throws Exception {
        RawServer internal = closeLater(RawServer.mustNotBeHit(REFUSED));
        LoopbackServer server = closeLater(LoopbackServer.http(ALLOWED));
        server.on("/literal", LoopbackServer.redirect(302, internal.url(REFUSED, "/admin")))
                .on(
                        "/mapped",
                        LoopbackServer.redirect(302, internal.url("[::ffff:127.0.0.2]", "/")))
                .on("/name", LoopbackServer.redirect(301, internal.url("internal.test", "/admin")));
        resolver.answer("internal.test", REFUSED);
        FetchExecutor fetch = executor(b -> b);

        FetchException literal =
                failure(fetch.fetch(FetchRequest.builder(server.url("/literal")).build()));
        FetchException mapped =
                failure(fetch.fetch(FetchRequest.builder(server.url("/mapped")).build()));
        FetchException name =
                failure(fetch.fetch(FetchRequest.builder(server.url("/name")).build()));

        assertEquals(Code.BLOCKED_ADDRESS, literal.code());
        assertTrue(
                literal.getMessage().contains("127.0.0.2 is in 127.0.0.0/8"), literal.getMessage());
        assertEquals(Code.BLOCKED_ADDRESS, mapped.code());
        assertTrue(mapped.getMessage().contains("::ffff:0:0/96"), mapped.getMessage());
        assertEquals(Code.BLOCKED_ADDRESS, name.code());
        assertTrue(
                name.getMessage().contains("\"internal.test\" resolves to 127.0.0.2"),
                name.getMessage());
        assertEquals(1, resolver.calls("internal.test"));
        assertEquals(3, server.requests().size());
        assertEquals(0, internal.accepted(), "nothing may connect to the refused address");
    }

    @Test
    void redirectToAnotherSchemeOrWithCredentialsIsBadUrl() throws Exception {
        LoopbackServer server = closeLater(LoopbackServer.http(ALLOWED));
        server.on("/ftp", LoopbackServer.redirect(302, "ftp://127.0.0.1/file"))
                .on("/creds", LoopbackServer.redirect(302, server.url("user:pw@127.0.0.1", "/")));
        FetchExecutor fetch = executor(b -> b);
        assertEquals(
                Code.BAD_URL,
                failure(fetch.fetch(FetchRequest.builder(server.url("/ftp")).build())).code());
        assertEquals(
                Code.BAD_URL,
                failure(fetch.fetch(FetchRequest.builder(server.url("/creds")).build())).code());
    }

    // --- DNS ---------------------------------------------------------------------------------

    @Test
    void nameResolvingToAPrivateAddressIsRefusedWithoutConnecting() throws Exception {
        RawServer internal = closeLater(RawServer.mustNotBeHit(REFUSED));
        resolver.answer("private.test", REFUSED);
        FetchException e =
                failure(
                        executor(b -> b)
                                .fetch(
                                        FetchRequest.builder(internal.url("private.test", "/"))
                                                .build()));
        assertEquals(Code.BLOCKED_ADDRESS, e.code());
        assertTrue(e.getMessage().contains("private.test"), e.getMessage());
        assertEquals(0, internal.accepted());
    }

    @Test
    void nameResolvingToAMixIsRefusedWithoutConnectingAnywhere() throws Exception {
        LoopbackServer allowed =
                closeLater(LoopbackServer.http(ALLOWED))
                        .on("/", (exchange, body) -> LoopbackServer.respond(exchange, 200, "x"));
        resolver.answer("mixed.test", ALLOWED, REFUSED);
        FetchException e =
                failure(
                        executor(b -> b)
                                .fetch(
                                        FetchRequest.builder(allowed.url("mixed.test", "/"))
                                                .build()));
        assertEquals(Code.BLOCKED_ADDRESS, e.code());
        assertTrue(e.getMessage().contains("127.0.0.2"), e.getMessage());
        assertEquals(0, allowed.connections());
    }

    @Test
    void rebindingNameIsConnectedToTheFirstValidatedAddressOnly() throws Exception {
        LoopbackServer first =
                closeLater(LoopbackServer.http(ALLOWED))
                        .on(
                                "/",
                                (exchange, body) -> LoopbackServer.respond(exchange, 200, "first"));
        // The same port on the refused address: a second lookup that reached it would connect.
        RawServer second = closeLater(RawServer.mustNotBeHit(REFUSED));
        resolver.answer("rebind.test", ALLOWED).answer("rebind.test", REFUSED);
        FetchExecutor fetch = executor(b -> b);

        FetchResponse response =
                await(fetch.fetch(FetchRequest.builder(first.url("rebind.test", "/")).build()));

        assertEquals("first", new String(response.body(), UTF_8));
        assertEquals(1, resolver.calls("rebind.test"), "one lookup per hop, none by the client");
        assertEquals(1, first.connections());
        assertEquals(0, second.accepted());

        // The next fetch does look the name up again, and the new answer is checked too.
        FetchException e =
                failure(fetch.fetch(FetchRequest.builder(first.url("rebind.test", "/")).build()));
        assertEquals(Code.BLOCKED_ADDRESS, e.code());
        assertEquals(2, resolver.calls("rebind.test"));
        assertEquals(1, first.connections());
        assertEquals(0, second.accepted());
    }

    @Test
    void unresolvableNameIsANetworkError() throws Exception {
        FetchException e =
                failure(
                        executor(b -> b)
                                .fetch(FetchRequest.builder("http://nowhere.test/").build()));
        assertEquals(Code.NETWORK, e.code());
        assertTrue(e.getMessage().contains("nowhere.test"), e.getMessage());
    }

    // --- body cap ----------------------------------------------------------------------------

    private LoopbackServer bodyServer() throws Exception {
        return closeLater(LoopbackServer.http(ALLOWED))
                .on(
                        "/",
                        (exchange, body) -> {
                            String query = exchange.getRequestURI().getQuery();
                            int size = Integer.parseInt(query.substring(query.indexOf('=') + 1));
                            boolean chunked = query.startsWith("chunked");
                            byte[] bytes = new byte[size];
                            Arrays.fill(bytes, (byte) 'x');
                            exchange.sendResponseHeaders(200, chunked ? 0 : size);
                            try (OutputStream out = exchange.getResponseBody()) {
                                out.write(bytes);
                            } catch (java.io.IOException clientStoppedReading) {
                                // Expected past the cap.
                            }
                        });
    }

    @ParameterizedTest
    @CsvSource({"length=1000", "chunked=1000"})
    void bodyExactlyAtTheCapIsWhole(String query) throws Exception {
        LoopbackServer server = bodyServer();
        FetchResponse response =
                await(
                        executor(b -> b.withMaxBodyBytes(1000))
                                .fetch(FetchRequest.builder(server.url("/?" + query)).build()));
        assertEquals(1000, response.body().length);
        assertFalse(response.truncated());
    }

    @ParameterizedTest
    @CsvSource({"length=1001", "chunked=1001", "length=5000000", "chunked=5000000"})
    void bodyPastTheCapFails(String query) throws Exception {
        LoopbackServer server = bodyServer();
        FetchException e =
                failure(
                        executor(b -> b.withMaxBodyBytes(1000))
                                .fetch(FetchRequest.builder(server.url("/?" + query)).build()));
        assertEquals(Code.BODY_TOO_LARGE, e.code());
        assertTrue(e.getMessage().contains("maxBodyBytes (1000 bytes)"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"length=1001", "chunked=1001", "length=5000000", "chunked=5000000"})
    void bodyPastTheCapIsTruncatedWhenAsked(String query) throws Exception {
        LoopbackServer server = bodyServer();
        FetchResponse response =
                await(
                        executor(b -> b.withMaxBodyBytes(1000))
                                .fetch(
                                        FetchRequest.builder(server.url("/?" + query))
                                                .withTruncateOversizedBody(true)
                                                .build()));
        assertEquals(1000, response.body().length);
        assertTrue(response.truncated());
        assertEquals(200, response.status());
    }

    @Test
    void headResponseContentLengthIsNotCountedAgainstTheCap() throws Exception {
        RawServer server =
                closeLater(
                        RawServer.stalling(
                                ALLOWED, "HTTP/1.1 200 OK\r\nContent-Length: 5000000\r\n\r\n"));
        FetchResponse response =
                await(
                        executor(b -> b.withMaxBodyBytes(1000))
                                .fetch(
                                        FetchRequest.builder(server.url(ALLOWED, "/"))
                                                .withMethod("HEAD")
                                                .build()));
        assertEquals(200, response.status());
        assertEquals(0, response.body().length);
        assertEquals("5000000", response.header("content-length"));
    }

    // --- deadline and cancellation -----------------------------------------------------------

    @Test
    void timeoutCoversTheBodyAndClosesTheConnection() throws Exception {
        RawServer server =
                closeLater(
                        RawServer.stalling(
                                ALLOWED,
                                "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly part of it"));
        long start = System.nanoTime();
        FetchException e =
                failure(
                        executor(b -> b.withTimeout(Duration.ofMillis(500)))
                                .fetch(FetchRequest.builder(server.url(ALLOWED, "/")).build()));
        long failedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertEquals(Code.TIMEOUT, e.code());
        assertTrue(e.getMessage().contains("500 ms"), e.getMessage());
        // The upper bound only has to tell a timeout from a hang, with room for a loaded machine.
        assertTrue(
                failedAfter >= 450 && failedAfter < 10_000, "failed after " + failedAfter + " ms");
        server.awaitClientClose(10_000);
    }

    @Test
    void timeoutCoversWaitingForHeaders() throws Exception {
        RawServer server = closeLater(RawServer.stalling(ALLOWED, ""));
        FetchException e =
                failure(
                        executor(b -> b.withTimeout(Duration.ofMillis(300)))
                                .fetch(FetchRequest.builder(server.url(ALLOWED, "/")).build()));
        assertEquals(Code.TIMEOUT, e.code());
        server.awaitClientClose(5000);
    }

    @Test
    void cancellingTheFutureAbortsTheRequestPromptly() throws Exception {
        RawServer server =
                closeLater(
                        RawServer.stalling(
                                ALLOWED, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial"));
        CompletableFuture<FetchResponse> future =
                executor(b -> b).fetch(FetchRequest.builder(server.url(ALLOWED, "/")).build());
        assertTrue(server.requestSeen.await(10, TimeUnit.SECONDS));
        Thread.sleep(100); // let the client start reading the body

        long cancelledAt = System.nanoTime();
        assertTrue(future.cancel(true));
        long closedAt = server.awaitClientClose(10_000);

        assertThrows(CancellationException.class, future::join);
        // Promptly: well before the 15 s default timeout would have closed it, with room for a
        // loaded machine to schedule the client and the server threads.
        assertTrue(
                TimeUnit.NANOSECONDS.toMillis(closedAt - cancelledAt) < 5000,
                "closed "
                        + TimeUnit.NANOSECONDS.toMillis(closedAt - cancelledAt)
                        + " ms after cancel");
    }

    @Test
    void cancellingBeforeHeadersAbortsToo() throws Exception {
        RawServer server = closeLater(RawServer.stalling(ALLOWED, ""));
        CompletableFuture<FetchResponse> future =
                executor(b -> b).fetch(FetchRequest.builder(server.url(ALLOWED, "/")).build());
        assertTrue(server.requestSeen.await(10, TimeUnit.SECONDS));
        future.cancel(true);
        server.awaitClientClose(5000);
    }

    @Test
    void closingTheExecutorAbortsPendingFetchesAndRefusesNewOnes() throws Exception {
        RawServer server = closeLater(RawServer.stalling(ALLOWED, ""));
        FetchExecutor fetch = executor(b -> b);
        CompletableFuture<FetchResponse> pending =
                fetch.fetch(FetchRequest.builder(server.url(ALLOWED, "/")).build());
        assertTrue(server.requestSeen.await(10, TimeUnit.SECONDS));

        fetch.close();

        assertEquals(Code.ABORTED, failure(pending).code());
        server.awaitClientClose(5000);
        FetchException after =
                failure(fetch.fetch(FetchRequest.builder(server.url(ALLOWED, "/")).build()));
        assertEquals(Code.ABORTED, after.code());
    }

    @Test
    void refusedConnectionIsANetworkError() throws Exception {
        RawServer gone = RawServer.mustNotBeHit(ALLOWED);
        String url = gone.url(ALLOWED, "/");
        gone.close();
        assertEquals(
                Code.NETWORK,
                failure(executor(b -> b).fetch(FetchRequest.builder(url).build())).code());
    }

    // --- resources ---------------------------------------------------------------------------

    private static long threadsNamed(java.util.function.Predicate<String> name) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(name)
                .count();
    }

    @Test
    void requestsShareOneHttpClientInsteadOfOnePerRequest() throws Exception {
        LoopbackServer server =
                closeLater(LoopbackServer.http(ALLOWED))
                        .on("/", (exchange, body) -> LoopbackServer.respond(exchange, 200, "ok"));
        resolver.answer("a.test", ALLOWED).answer("b.test", ALLOWED).answer("c.test", ALLOWED);
        FetchExecutor fetch = executor(b -> b);
        java.util.function.Predicate<String> selector =
                n -> n.startsWith("HttpClient-") && n.endsWith("-SelectorManager");
        long before = threadsNamed(selector);

        for (int i = 0; i < 12; i++) {
            String host = List.of("a.test", "b.test", "c.test").get(i % 3);
            await(fetch.fetch(FetchRequest.builder(server.url(host, "/")).build()));
        }

        assertTrue(
                threadsNamed(selector) - before <= 1,
                "selector threads grew from " + before + " to " + threadsNamed(selector));
        assertEquals(
                1, server.connections(), "plain HTTP reuses the pooled connection across names");
    }

    @Test
    void closeStopsTheExecutorsOwnThreads() throws Exception {
        RawServer server = closeLater(RawServer.stalling(ALLOWED, ""));
        FetchExecutor fetch = executor(b -> b);
        fetch.fetch(FetchRequest.builder(server.url(ALLOWED, "/")).build());
        assertTrue(server.requestSeen.await(10, TimeUnit.SECONDS));
        assertTrue(threadsNamed(n -> n.startsWith("sandjar-fetch-")) > 0);

        fetch.close();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("sandjar-fetch-")) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        }
        assertEquals(
                0,
                threadsNamed(n -> n.startsWith("sandjar-fetch-")),
                "sandjar-fetch threads outlived close() by 10 s");
        assertDrained(fetch);
    }
}
