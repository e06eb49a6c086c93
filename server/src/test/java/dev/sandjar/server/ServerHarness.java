package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sandjar.bridges.Capabilities;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@link SandjarServer} on a free loopback port and a JDK {@link HttpClient} that talks to
 * it. Closing it stops the server, which closes the sandbox it built.
 */
final class ServerHarness implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Every bounded wait in these tests: long enough for a loaded machine, short of the timeout.
     */
    static final Duration PATIENCE = Duration.ofSeconds(60);

    /** HTTP/1.1 only: an h2c upgrade attempt would change nothing but add a path to go wrong. */
    private static final HttpClient HTTP =
            HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();

    final SandjarServer server;
    final String base;

    private ServerHarness(SandjarServer server) {
        this.server = server;
        this.base = "http://127.0.0.1:" + server.port();
    }

    /** Builds and starts {@code b} on port 0, ready at once. */
    static ServerHarness start(SandjarServer.Builder b) {
        return new ServerHarness(b.port(0).warmUp(Duration.ZERO).build().start());
    }

    /** As {@link #start}, keeping the builder's warm-up. */
    static ServerHarness startWarming(SandjarServer.Builder b) {
        return new ServerHarness(b.port(0).build().start());
    }

    /** One token, named {@code ci}, under {@link #policy()}. */
    static Tokens ci(String token) {
        return Tokens.of(java.util.List.of(Tokens.token("ci", token, policy())));
    }

    /** {@link #ci} whose policy also lists {@code extra} capabilities. */
    static Tokens ci(String token, String... extra) {
        Policy p = policy();
        Set<String> caps = new java.util.HashSet<>(p.capabilities());
        caps.addAll(java.util.List.of(extra));
        return Tokens.of(
                java.util.List.of(
                        Tokens.token(
                                "ci",
                                token,
                                new Policy(
                                        caps,
                                        p.secrets(),
                                        p.maxTimeoutMs(),
                                        p.maxMemoryMb(),
                                        p.packs(),
                                        p.maxConcurrentRuns()))));
    }

    /** A policy with the default capabilities, no secrets, every pack and generous bounds. */
    static Policy policy() {
        return new Policy(
                Set.copyOf(Capabilities.DEFAULTS), Set.of(), 600_000, 256, Optional.empty(), 64);
    }

    static Policy withPacks(Set<String> packs) {
        Policy p = policy();
        return new Policy(
                p.capabilities(),
                p.secrets(),
                p.maxTimeoutMs(),
                p.maxMemoryMb(),
                Optional.of(packs),
                p.maxConcurrentRuns());
    }

    static Policy withQuotas(Quotas quotas) {
        Policy p = policy();
        return new Policy(
                p.capabilities(),
                p.secrets(),
                p.maxTimeoutMs(),
                p.maxMemoryMb(),
                p.packs(),
                p.maxConcurrentRuns(),
                quotas);
    }

    static Policy withMaxConcurrentRuns(int runs) {
        Policy p = policy();
        return new Policy(
                p.capabilities(), p.secrets(), p.maxTimeoutMs(), p.maxMemoryMb(), p.packs(), runs);
    }

    // ---- requests ----

    HttpRequest.Builder request(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(PATIENCE);
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    HttpResponse<String> get(String path, String token) {
        return send(request(path, token).GET().build());
    }

    HttpResponse<String> delete(String path, String token) {
        return send(request(path, token).DELETE().build());
    }

    /** {@code POST path} with a JSON body (may be empty). */
    HttpResponse<String> post(String path, String token, String body) {
        return send(
                request(path, token)
                        .header("Content-Type", "application/json")
                        .POST(BodyPublishers.ofString(body))
                        .build());
    }

    /** Opens a session ({@code POST /api/sessions} with {@code body}); returns its id. */
    String openSession(String token, String body) {
        HttpResponse<String> res = post("/api/sessions", token, body);
        assertEquals(200, res.statusCode(), res.body());
        return json(res).get("id").asText();
    }

    /** {@code POST /api/sessions/{id}/runs} with {@code code}, answered 200; the result body. */
    JsonNode sessionCall(String id, String token, String code) {
        HttpResponse<String> res = sessionCallResponse(id, token, code);
        assertEquals(200, res.statusCode(), res.body());
        return json(res);
    }

    HttpResponse<String> sessionCallResponse(String id, String token, String code) {
        return post(
                "/api/sessions/" + id + "/runs",
                token,
                JSON.createObjectNode().put("code", code).toString());
    }

    /** {@code POST /api/runs} with a JSON body, answered as JSON. */
    HttpResponse<String> postRun(String token, String body) {
        return send(runRequest(token, body).build());
    }

    CompletableFuture<HttpResponse<String>> postRunAsync(String token, String body) {
        return HTTP.sendAsync(runRequest(token, body).build(), BodyHandlers.ofString());
    }

    HttpRequest.Builder runRequest(String token, String body) {
        return request("/api/runs", token)
                .header("Content-Type", "application/json")
                .POST(BodyPublishers.ofString(body));
    }

    /** {@code POST /api/runs} asking for Server-Sent Events; the caller closes the stream. */
    SseStream stream(String token, String body) {
        return stream("/api/runs", token, body);
    }

    /** {@code POST path} asking for Server-Sent Events; the caller closes the stream. */
    SseStream stream(String path, String token, String body) {
        HttpRequest r =
                request(path, token)
                        .timeout(Duration.ofMinutes(10))
                        .header("Content-Type", "application/json")
                        .header("Accept", "text/event-stream")
                        .POST(BodyPublishers.ofString(body))
                        .build();
        HttpResponse<InputStream> res;
        try {
            res = HTTP.send(r, BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        assertEquals(200, res.statusCode(), "an SSE run's status");
        return new SseStream(res);
    }

    static HttpResponse<String> send(HttpRequest r) {
        try {
            return HTTP.send(r, BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // ---- bodies ----

    /** A run body: {@code {"code": code}} plus {@code limits.timeoutMs} when above 0. */
    static String run(String code, long timeoutMs) {
        ObjectNode body = JSON.createObjectNode().put("code", code);
        if (timeoutMs > 0) {
            body.putObject("limits").put("timeoutMs", timeoutMs);
        }
        return body.toString();
    }

    static String run(String code) {
        return run(code, 0);
    }

    static JsonNode json(HttpResponse<String> res) {
        return json(res.body());
    }

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    // ---- metrics and waiting ----

    /**
     * The value of one sample of {@code /metrics}, by its name and labels as the text shows them
     * (e.g. {@code sandjar_runs_total{outcome="ok"}}); 0 when absent.
     */
    double metric(String token, String sample) {
        HttpResponse<String> res = get("/metrics", token);
        assertEquals(200, res.statusCode(), res.body());
        Matcher m =
                Pattern.compile("(?m)^" + Pattern.quote(sample) + " (\\S+)$").matcher(res.body());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** Polls {@code condition} every 50 ms until it holds; fails after {@link #PATIENCE}. */
    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("gave up waiting after " + PATIENCE + ": " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
