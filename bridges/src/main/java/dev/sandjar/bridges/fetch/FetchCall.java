package dev.sandjar.bridges.fetch;

import dev.sandjar.bridges.fetch.FetchException.Code;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;

/**
 * One fetch, from the first hop to the final response: pin, send, follow redirects, collect.
 *
 * <p>{@link #result} is completed exactly once, by success, a failure, the deadline, or the caller
 * (cancel or complete). Whichever wins, everything still running is stopped: the pending resolution
 * or exchange is cancelled and the body subscription cancelled, which closes the connection.
 */
final class FetchCall {
    private static final Set<String> REQUEST_BODY_HEADERS =
            Set.of("content-type", "content-encoding", "content-language", "content-location");
    private static final Set<String> CREDENTIAL_HEADERS = Set.of("authorization", "cookie");

    private record Hop(
            ParsedUrl url,
            String method,
            List<Map.Entry<String, String>> headers,
            byte[] body,
            int redirects) {}

    final CompletableFuture<FetchResponse> result = new CompletableFuture<>();

    private final FetchRequest request;
    private final FetchConfig config;
    private final UrlGuard guard;
    private final HttpClients clients;
    private final Executor resolverPool;
    private final Object lock = new Object();
    private volatile boolean sent;
    private Future<?> pending;
    private CappedBodySubscriber body;
    private Future<?> deadline;

    FetchCall(
            FetchRequest request,
            FetchConfig config,
            UrlGuard guard,
            HttpClients clients,
            Executor resolverPool) {
        this.request = request;
        this.config = config;
        this.guard = guard;
        this.clients = clients;
        this.resolverPool = resolverPool;
    }

    void start(ScheduledExecutorService timer) {
        result.whenComplete((response, error) -> stopEverything());
        Future<?> scheduled;
        try {
            scheduled =
                    timer.schedule(
                            () -> fail(timeout(null)),
                            config.timeout().toMillis(),
                            TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            fail(new FetchException(Code.ABORTED, "the fetch executor is closed"));
            return;
        }
        synchronized (lock) {
            deadline = scheduled;
        }
        if (result.isDone()) {
            scheduled.cancel(false);
        }
        hop(new Hop(request.parsedUrl(), request.method(), request.headers(), request.body(), 0));
    }

    /**
     * Whether a request went to the network: false while the call failed before its first hop was
     * handed to the HTTP client (a refused address, a name that did not resolve, a timeout during
     * resolution).
     */
    boolean wasSent() {
        return sent;
    }

    /** Fails the call unless it already finished; stops whatever is running. */
    void fail(Throwable error) {
        result.completeExceptionally(toFetchException(error));
    }

    private void hop(Hop hop) {
        CompletableFuture<PinnedUrl> pin;
        try {
            pin = CompletableFuture.supplyAsync(() -> guard.pin(hop.url()), resolverPool);
        } catch (RejectedExecutionException e) {
            fail(new FetchException(Code.ABORTED, "the fetch executor is closed"));
            return;
        }
        if (!track(pin)) {
            return;
        }
        pin.whenComplete(
                (pinned, error) -> {
                    if (error != null) {
                        fail(error);
                    } else {
                        send(pinned, hop);
                    }
                });
    }

    private void send(PinnedUrl pinned, Hop hop) {
        if (result.isDone()) {
            return;
        }
        HttpRequest httpRequest;
        try {
            HttpRequest.Builder builder =
                    HttpRequest.newBuilder(pinned.connectUri())
                            .method(
                                    hop.method(),
                                    hop.body() == null
                                            ? HttpRequest.BodyPublishers.noBody()
                                            : HttpRequest.BodyPublishers.ofByteArray(hop.body()))
                            .header("Host", hop.url().authority());
            hop.headers().forEach(h -> builder.header(h.getKey(), h.getValue()));
            httpRequest = builder.build();
        } catch (IllegalArgumentException e) {
            // FetchRequest validated all of this; java.net.http disagreeing is still the request's
            // fault, not the network's.
            fail(
                    new FetchException(
                            Code.BAD_REQUEST,
                            "java.net.http refused the request: " + e.getMessage()));
            return;
        }
        HttpClient client = clients.forUrl(hop.url());
        CompletableFuture<HttpResponse<byte[]>> exchange;
        sent = true;
        try {
            exchange = client.sendAsync(httpRequest, info -> bodySubscriber(info, hop));
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        if (!track(exchange)) {
            return;
        }
        exchange.whenComplete(
                (response, error) -> {
                    if (error != null) {
                        fail(error);
                    } else {
                        onResponse(response, hop);
                    }
                });
    }

    private HttpResponse.BodySubscriber<byte[]> bodySubscriber(
            HttpResponse.ResponseInfo info, Hop hop) {
        int status = info.statusCode();
        boolean noBody =
                hop.method().equals("HEAD") || status == 204 || status == 304 || status / 100 == 1;
        // Content-Length of a response that has no body describes something else; ignore it.
        long length = noBody ? -1 : contentLength(info);
        // A redirect we will follow keeps no body: an empty one leaves the connection reusable,
        // anything else is cut off at once.
        CappedBodySubscriber subscriber =
                isFollowedRedirect(
                                info.statusCode(),
                                info.headers().firstValue("location").isPresent())
                        ? new CappedBodySubscriber(0, true, length)
                        : new CappedBodySubscriber(
                                config.maxBodyBytes(), request.truncateOversizedBody(), length);
        synchronized (lock) {
            body = subscriber;
        }
        if (result.isDone()) {
            subscriber.abort();
        }
        return subscriber;
    }

    private void onResponse(HttpResponse<byte[]> response, Hop hop) {
        int status = response.statusCode();
        String location = response.headers().firstValue("location").orElse(null);
        if (!isFollowedRedirect(status, location != null)) {
            CappedBodySubscriber subscriber;
            synchronized (lock) {
                subscriber = body;
            }
            result.complete(
                    new FetchResponse(
                            status,
                            StatusText.of(status),
                            hop.url().toString(),
                            response.headers().map(),
                            response.body(),
                            subscriber != null && subscriber.truncated(),
                            hop.redirects() > 0));
            return;
        }
        if (hop.redirects() >= config.maxRedirects()) {
            fail(
                    new FetchException(
                            Code.TOO_MANY_REDIRECTS,
                            "fetch of "
                                    + request.url()
                                    + " was redirected more than maxRedirects ("
                                    + config.maxRedirects()
                                    + ") times; the last hop, "
                                    + hop.url()
                                    + ", redirected to "
                                    + location));
            return;
        }
        ParsedUrl next;
        try {
            next = UrlGuard.resolveRedirect(hop.url(), location);
        } catch (FetchException e) {
            fail(e);
            return;
        }
        String method = hop.method();
        byte[] nextBody = hop.body();
        List<Map.Entry<String, String>> headers = hop.headers();
        boolean toGet =
                ((status == 301 || status == 302) && method.equals("POST"))
                        || (status == 303 && !method.equals("GET") && !method.equals("HEAD"));
        if (toGet) {
            method = "GET";
            nextBody = null;
            headers = without(headers, REQUEST_BODY_HEADERS);
        }
        if (!next.origin().equals(hop.url().origin())) {
            headers = without(headers, CREDENTIAL_HEADERS);
        }
        hop(new Hop(next, method, headers, nextBody, hop.redirects() + 1));
    }

    private static long contentLength(HttpResponse.ResponseInfo info) {
        try {
            return info.headers().firstValueAsLong("content-length").orElse(-1);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean isFollowedRedirect(int status, boolean hasLocation) {
        return hasLocation
                && (status == 301
                        || status == 302
                        || status == 303
                        || status == 307
                        || status == 308);
    }

    private static List<Map.Entry<String, String>> without(
            List<Map.Entry<String, String>> headers, Set<String> names) {
        return headers.stream()
                .filter(h -> !names.contains(h.getKey().toLowerCase(Locale.ROOT)))
                .collect(Collectors.toUnmodifiableList());
    }

    /** Records the running stage; false (and cancels it) if the call already finished. */
    private boolean track(Future<?> stage) {
        synchronized (lock) {
            pending = stage;
        }
        if (result.isDone()) {
            stage.cancel(true);
            return false;
        }
        return true;
    }

    private void stopEverything() {
        Future<?> stage;
        CappedBodySubscriber subscriber;
        Future<?> timer;
        synchronized (lock) {
            stage = pending;
            subscriber = body;
            timer = deadline;
        }
        if (timer != null) {
            timer.cancel(false);
        }
        if (subscriber != null) {
            subscriber.abort();
        }
        if (stage != null) {
            // cancel(true): java.net.http aborts the exchange, and closes its connection, only
            // when told it may interrupt.
            stage.cancel(true);
        }
    }

    private FetchException timeout(Throwable cause) {
        return new FetchException(
                Code.TIMEOUT,
                "fetch of "
                        + request.url()
                        + " did not finish within the timeout ("
                        + config.timeout().toMillis()
                        + " ms)",
                cause);
    }

    private FetchException toFetchException(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof FetchException) {
                return (FetchException) t;
            }
        }
        String target = "fetch of " + request.url();
        if (cause instanceof HttpConnectTimeoutException || cause instanceof HttpTimeoutException) {
            return timeout(cause);
        }
        if (cause instanceof CancellationException) {
            return new FetchException(Code.ABORTED, target + " was cancelled", cause);
        }
        String detail = cause.getMessage() != null ? cause.getMessage() : cause.toString();
        if (cause instanceof SSLException) {
            return new FetchException(Code.NETWORK, target + " failed in TLS: " + detail, cause);
        }
        if (cause instanceof ConnectException) {
            return new FetchException(
                    Code.NETWORK, target + " could not connect: " + detail, cause);
        }
        if (cause instanceof IOException) {
            return new FetchException(Code.NETWORK, target + " failed: " + cause, cause);
        }
        return new FetchException(Code.NETWORK, target + " failed unexpectedly: " + cause, cause);
    }
}
