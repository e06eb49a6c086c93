package dev.sandjar.bridges.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxRun;
import dev.sandjar.host.testing.SandboxExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The guest's fetch through Sandbox.run, against a real HTTP server on loopback. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FetchBridgeTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(2);

    static Sandbox sandbox;
    static HttpServer server;
    static ExecutorService serverThreads;
    static String base;
    static Fetch fetch;
    static final List<Long> slowStarts = Collections.synchronizedList(new ArrayList<>());
    static final List<Long> slowEnds = Collections.synchronizedList(new ArrayList<>());
    static final AtomicInteger connections = new AtomicInteger();
    static final CountDownLatch hangStarted = new CountDownLatch(1);

    @BeforeAll
    static void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        serverThreads = Executors.newCachedThreadPool();
        server.setExecutor(serverThreads);
        server.createContext(
                "/json", ex -> reply(ex, 200, "application/json", "{\"a\":[1,2],\"s\":\"é\"}"));
        server.createContext(
                "/echo",
                ex -> {
                    byte[] body = ex.getRequestBody().readAllBytes();
                    String info =
                            ex.getRequestMethod()
                                    + " "
                                    + ex.getRequestHeaders().getFirst("content-type")
                                    + " "
                                    + body.length
                                    + " "
                                    + ex.getRequestHeaders().getFirst("x-token");
                    reply(ex, 201, "text/plain", info);
                });
        server.createContext("/missing", ex -> reply(ex, 404, "text/plain", "nope"));
        server.createContext("/big", ex -> reply(ex, 200, "text/plain", "x".repeat(5000)));
        server.createContext(
                "/slow",
                ex -> {
                    slowStarts.add(System.nanoTime());
                    // Long enough that five requests from a cold guest all arrive within it.
                    sleep(1500);
                    slowEnds.add(System.nanoTime());
                    reply(ex, 200, "text/plain", "slow");
                });
        server.createContext(
                "/hang",
                ex -> {
                    hangStarted.countDown();
                    sleep(20_000);
                    reply(ex, 200, "text/plain", "late");
                });
        server.createContext(
                "/count",
                ex -> {
                    connections.incrementAndGet();
                    reply(ex, 200, "text/plain", "counted");
                });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
        fetch =
                Fetch.create(
                        FetchConfig.builder()
                                .exemptAddress(InetAddress.getByName("127.0.0.1"))
                                .withMaxBodyBytes(1024)
                                .build(),
                        8);
        sandbox = SANDBOX.sandbox();
    }

    @AfterAll
    static void stop() {
        fetch.close();
        server.stop(0);
        serverThreads.shutdownNow(); // ends /hang's wait too
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void reply(HttpExchange ex, int status, String type, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("content-type", type);
        ex.getResponseHeaders().add("x-multi", "a");
        ex.getResponseHeaders().add("x-multi", "b");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }

    private static RunResult run(String code) {
        return sandbox.run(
                RunRequest.builder(code).global("base", base).bridge(fetch.bridge()).build());
    }

    @Test
    void getParsesJsonAndShowsStatusAndHeaders() {
        RunResult r =
                run(
                        "const res = await fetch(base + '/json');\n"
                                + "return [res.ok, res.status, res.statusText,"
                                + " res.headers.get('Content-Type'), res.headers.get('x-multi'),"
                                + " res.url.endsWith('/json'), res.redirected, await res.json()];");
        assertEquals(
                List.of(
                        true,
                        200L,
                        "OK",
                        "application/json",
                        "a, b",
                        true,
                        false,
                        Map.of("a", List.of(1L, 2L), "s", "é")),
                r.valueOrThrow());
    }

    @Test
    void bodiesGoAsRawBytesTextOrJson() {
        RunResult r =
                run(
                        "const out = [];\n"
                            + "for (const body of [new Uint8Array([0, 255, 7]), 'héllo', {a: 1}])"
                            + " {\n"
                            + "  const res = await fetch(base + '/echo', {method: 'post', body,"
                            + " headers: {'X-Token': 't1'}});\n"
                            + "  out.push(res.status + ' ' + await res.text());\n"
                            + "}\n"
                            + "return out;");
        assertEquals(
                List.of(
                        "201 POST null 3 t1",
                        "201 POST null 6 t1",
                        "201 POST application/json 7 t1"),
                r.valueOrThrow());
    }

    @Test
    void aMissingPageIsNotAnErrorAndBodiesReadOnce() {
        RunResult r =
                run(
                        "const res = await fetch(base + '/missing');\n"
                            + "const bytes = await res.bytes();\n"
                            + "try { await res.text(); } catch (e) { return [res.ok, res.status,"
                            + " bytes.length, res.bodyUsed, e.message]; }");
        assertEquals(
                List.of(false, 404L, 4L, true, "fetch: the response body has already been read"),
                r.valueOrThrow());
    }

    @Test
    void aPrivateAddressIsRefusedBeforeAnyConnection() {
        int before = connections.get();
        String other = "http://127.0.0.2:" + server.getAddress().getPort() + "/count";
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "try { await fetch(url); return 'fetched'; } catch (e) {"
                                                + " return [e.name, e.code, e.message]; }")
                                .global("url", other)
                                .bridge(fetch.bridge())
                                .build());
        List<?> v = (List<?>) r.valueOrThrow();
        assertEquals("FetchError", v.get(0));
        assertEquals("BLOCKED_ADDRESS", v.get(1));
        assertTrue(((String) v.get(2)).contains("127.0.0.2"), (String) v.get(2));
        assertEquals(before, connections.get());
        RunResult scheme =
                run("try { await fetch('file:///etc/passwd'); } catch (e) { return e.code; }");
        assertEquals("BAD_URL", scheme.valueOrThrow());
    }

    @Test
    void theBodyCapFailsOrTruncatesWhenAsked() {
        RunResult r =
                run(
                        "let failed;\n"
                                + "try { await fetch(base + '/big'); } catch (e) { failed = e.code"
                                + " + ': ' + e.message; }\n"
                                + "const cut = await fetch(base + '/big', {truncate: true});\n"
                                + "return [failed, cut.truncated, (await cut.text()).length];");
        List<?> v = (List<?>) r.valueOrThrow();
        assertTrue(((String) v.get(0)).startsWith("BODY_TOO_LARGE"), (String) v.get(0));
        assertTrue(((String) v.get(0)).contains("1024"), (String) v.get(0));
        assertEquals(true, v.get(1));
        assertEquals(1024L, v.get(2));
    }

    @Test
    void requestsPerRunAreCountedWhenStarted() {
        RunResult r =
                run(
                        "const started = [];\n"
                                + "for (let i = 0; i < 9; i++) started.push(fetch(base +"
                                + " '/json').then(() => 'ok', (e) => e.code));\n"
                                + "return await Promise.all(started);");
        List<?> v = (List<?>) r.valueOrThrow();
        assertEquals(8, v.stream().filter("ok"::equals).count());
        assertEquals("LIMIT", v.get(8));
    }

    /** Guest code: {@code code(thunk)} is the fetch's status, or its error's code. */
    private static final String CODE =
            "async function code(f) { try { return (await f()).status; } catch (e) { return"
                    + " e.code; } }\n";

    @Test
    void refusedRequestsDoNotUseUpTheRunsRequests() {
        RunResult r =
                run(
                        CODE
                                + "const refused = [];\n"
                                + "for (let i = 0; i < 12; i++) refused.push(await code(() =>"
                                + " fetch('http://10.0.0.1/')));\n"
                                + "for (let i = 0; i < 3; i++) refused.push(await code(() =>"
                                + " fetch('ftp://example.com/')));\n"
                                + "const sent = [];\n"
                                + "for (let i = 0; i < 9; i++) sent.push(await code(() =>"
                                + " fetch(base + '/json')));\n"
                                + "return [refused, sent];");
        List<?> v = (List<?>) r.valueOrThrow();
        List<String> refused = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            refused.add("BLOCKED_ADDRESS");
        }
        refused.addAll(List.of("BAD_URL", "BAD_URL", "BAD_URL"));
        assertEquals(refused, v.get(0));
        assertEquals(List.of(200L, 200L, 200L, 200L, 200L, 200L, 200L, 200L, "LIMIT"), v.get(1));
    }

    @Test
    void refusalsHaveTheirOwnCapPerRun() {
        RunResult r =
                run(
                        CODE
                                + "const codes = [];\n"
                                + "for (let i = 0; i <= "
                                + Fetch.MAX_REFUSED
                                + "; i++) codes.push(await code(() =>"
                                + " fetch('http://10.0.0.1/')));\n"
                                + "let message;\n"
                                + "try { await fetch(base + '/json'); } catch (e) { message ="
                                + " e.code + ': ' + e.message; }\n"
                                + "return [codes, message];");
        List<?> v = (List<?>) r.valueOrThrow();
        List<?> codes = (List<?>) v.get(0);
        assertEquals(Fetch.MAX_REFUSED, codes.stream().filter("BLOCKED_ADDRESS"::equals).count());
        assertEquals("LIMIT", codes.get(Fetch.MAX_REFUSED));
        assertEquals(
                "LIMIT: fetch: this run had 50 requests refused before they were sent; the limit"
                        + " is 50 per run",
                v.get(1));
        // The cap is the run's: the next run fetches again.
        assertEquals(
                200L, run(CODE + "return await code(() => fetch(base + '/json'));").valueOrThrow());
    }

    @Test
    void fiveSlowRequestsOverlap() {
        slowStarts.clear();
        slowEnds.clear();
        RunResult r =
                run(
                        "const all = await Promise.all([1, 2, 3, 4, 5].map(() => fetch(base +"
                                + " '/slow').then((res) => res.text())));\nreturn all;");
        assertEquals(List.of("slow", "slow", "slow", "slow", "slow"), r.valueOrThrow());
        assertEquals(5, slowStarts.size());
        // The server saw all five requests arrive before it finished any: they ran at once.
        assertTrue(Collections.max(slowStarts) < Collections.min(slowEnds), "sequential");
    }

    @Test
    void cancellingTheRunAbortsARequestInFlight() throws Exception {
        SandboxRun run =
                sandbox.submit(
                        RunRequest.builder("await fetch(base + '/hang'); return 'late';")
                                .global("base", base)
                                .bridge(fetch.bridge())
                                .build());
        assertTrue(hangStarted.await(30, TimeUnit.SECONDS));
        run.cancel();
        RunResult r = run.result().get(10, TimeUnit.SECONDS);
        assertEquals(RunError.Kind.CANCELLED, r.error().kind());
    }
}
