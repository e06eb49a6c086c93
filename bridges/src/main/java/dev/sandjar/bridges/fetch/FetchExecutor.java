package dev.sandjar.bridges.fetch;

import dev.sandjar.bridges.fetch.FetchException.Code;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * Performs guest fetches over {@code java.net.http}, connecting only to addresses the SSRF guard
 * validated.
 *
 * <h2>Pinning</h2>
 *
 * JDK 17's {@code HttpClient} resolves the URI host itself and has no pluggable resolver, so
 * handing it a host name would mean a second lookup after ours, and a DNS-rebinding server could
 * answer it with a private address. Instead each hop is resolved once by {@link UrlGuard}, every
 * address is classified, and the request URI the client sees carries the chosen address as an IP
 * literal, which it connects to without any lookup. What the name still has to do is done by hand:
 *
 * <ul>
 *   <li><b>Host header.</b> Set explicitly to the URL's authority. {@code java.net.http} restricts
 *       Host; {@link HostHeader} lifts that through {@code jdk.httpclient.allowRestrictedHeaders},
 *       which the JDK reads once, when {@code java.net.http} is first used. {@link #create} fails
 *       with instructions if that moment has already passed.
 *   <li><b>TLS.</b> Each HTTPS host name gets its own client whose engines are created for the
 *       name, send it as SNI and verify the certificate against it ({@link HostBoundSslContext}).
 *   <li><b>Redirects.</b> The client never follows them; each Location goes back through the whole
 *       guard (scheme, credentials, port, resolution, classification) as a new hop.
 * </ul>
 *
 * Alternatives rejected: a proxy selector that names the validated address as an HTTP proxy keeps
 * the name in the URI without the restricted header, but sends absolute-form request targets that
 * some origin servers mishandle and cannot do HTTPS at all (the client would send CONNECT); JDK
 * 18's {@code InetAddressResolverProvider} is JVM-wide and not in 17.
 *
 * <h2>Limits and behaviour</h2>
 *
 * Requests are HTTP/1.1, with no proxy, no cookie store and no authenticator. One deadline covers a
 * whole fetch including every redirect, body included; when it passes, or the returned future is
 * cancelled or the executor closed, the in-flight exchange is aborted and its connection closed. No
 * Accept-Encoding is sent, so servers answer with identity bodies and the bytes counted against the
 * cap are the bytes the guest gets; a server that compresses anyway is not decoded: the guest gets
 * the compressed bytes with their Content-Encoding header, and the cap counts them.
 *
 * <p>Known limits of the approach: of the addresses a name resolves to, the first is used, with no
 * fallback to the others; an egress proxy is not supported (the guard would validate the proxy, not
 * the target); the Host property is JVM-wide; and JDK 17's {@code HttpClient} cannot be closed, so
 * after {@link #close} the clients' selector threads end only once the clients are garbage
 * collected (their idle pooled connections with them).
 */
public final class FetchExecutor implements AutoCloseable {
    private final FetchConfig config;
    private final UrlGuard guard;
    private final HttpClients clients;
    private final ExecutorService resolverPool;
    private final ScheduledThreadPoolExecutor timer;
    private final Set<FetchCall> inFlight = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private FetchExecutor(FetchConfig config, SSLContext tls) {
        this.config = config;
        this.guard =
                new UrlGuard(
                        config.resolver(), config.allowPrivateNetwork(), config.exemptAddresses());
        this.clients = new HttpClients(tls, config.timeout(), config.maxTlsClients());
        this.resolverPool = Executors.newCachedThreadPool(daemon("sandjar-fetch-resolve-"));
        this.timer = new ScheduledThreadPoolExecutor(1, daemon("sandjar-fetch-timer-"));
        this.timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * Creates an executor. Clients and threads are made lazily and released by {@link #close}.
     *
     * @throws IllegalStateException if {@code java.net.http} in this JVM will not send a Host
     *     header of our choosing (see {@link HostHeader}), or there is no default TLS context
     */
    public static FetchExecutor create(FetchConfig config) {
        HostHeader.requireAllowed();
        SSLContext tls = config.sslContext();
        if (tls == null) {
            try {
                tls = SSLContext.getDefault();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("no default TLS context", e);
            }
        }
        return new FetchExecutor(config, tls);
    }

    /**
     * Starts a fetch. Never throws: every failure, including a refused address, completes the
     * future exceptionally with a {@link FetchException}. Cancelling the future aborts the request.
     */
    public CompletableFuture<FetchResponse> fetch(FetchRequest request) {
        return start(request).result;
    }

    /** As {@link #fetch}, giving the call itself: whether it was sent is known from it. */
    FetchCall start(FetchRequest request) {
        FetchCall call = new FetchCall(request, config, guard, clients, resolverPool);
        inFlight.add(call);
        call.result.whenComplete((response, error) -> inFlight.remove(call));
        if (closed) {
            call.fail(new FetchException(Code.ABORTED, "the fetch executor is closed"));
            return call;
        }
        call.start(timer);
        // Closed while starting: the close may have missed this call.
        if (closed) {
            call.fail(new FetchException(Code.ABORTED, "the fetch executor is closed"));
        }
        return call;
    }

    /** Fetches still running. */
    int inFlightCount() {
        return inFlight.size();
    }

    HttpClients clients() {
        return clients;
    }

    /**
     * Aborts every pending fetch with {@link Code#ABORTED}, refuses new ones, and releases threads
     * and HTTP clients. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        for (FetchCall call : List.copyOf(inFlight)) {
            call.fail(new FetchException(Code.ABORTED, "the fetch executor was closed"));
        }
        clients.clear();
        resolverPool.shutdownNow();
        timer.shutdownNow();
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
