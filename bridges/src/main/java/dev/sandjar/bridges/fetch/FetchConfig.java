package dev.sandjar.bridges.fetch;

import dev.sandjar.host.InvalidRequestException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import javax.net.ssl.SSLContext;

/**
 * Host-set configuration of a {@link FetchExecutor}: limits, the network policy, the resolver and
 * the TLS trust. Immutable; every value is checked where it is set, and the message names the value
 * and the bound. Guest code never sees or changes it.
 */
public final class FetchConfig {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(15);
    public static final Duration MAX_TIMEOUT = Duration.ofSeconds(120);
    public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
    public static final int MAX_BODY_BYTES = 50 * 1024 * 1024;
    public static final int DEFAULT_MAX_REDIRECTS = 5;
    public static final int MAX_REDIRECTS = 20;
    public static final int DEFAULT_MAX_TLS_CLIENTS = 8;
    public static final int MAX_TLS_CLIENTS = 64;

    private final Duration timeout;
    private final int maxBodyBytes;
    private final int maxRedirects;
    private final boolean allowPrivateNetwork;
    private final HostResolver resolver;
    private final SSLContext sslContext;
    private final int maxTlsClients;
    private final Set<InetAddress> exemptAddresses;

    private FetchConfig(Builder builder) {
        this.timeout = builder.timeout;
        this.maxBodyBytes = builder.maxBodyBytes;
        this.maxRedirects = builder.maxRedirects;
        this.allowPrivateNetwork = builder.allowPrivateNetwork;
        this.resolver = builder.resolver;
        this.sslContext = builder.sslContext;
        this.maxTlsClients = builder.maxTlsClients;
        this.exemptAddresses = Set.copyOf(builder.exemptAddresses);
    }

    public static FetchConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Deadline for one fetch, redirects included: resolution, connect, headers and the body. */
    public Duration timeout() {
        return timeout;
    }

    /** Most response body bytes a fetch keeps; past it the fetch fails or truncates. */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** Most redirects one fetch follows. */
    public int maxRedirects() {
        return maxRedirects;
    }

    /** Whether non-public addresses (loopback, private, link-local, ...) may be fetched. */
    public boolean allowPrivateNetwork() {
        return allowPrivateNetwork;
    }

    public HostResolver resolver() {
        return resolver;
    }

    /** The TLS context whose trust decides which servers are accepted; null for the JVM default. */
    public SSLContext sslContext() {
        return sslContext;
    }

    /** Most HTTPS clients (one per host name) kept for reuse. */
    public int maxTlsClients() {
        return maxTlsClients;
    }

    Set<InetAddress> exemptAddresses() {
        return exemptAddresses;
    }

    public static final class Builder {
        private Duration timeout = DEFAULT_TIMEOUT;
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private int maxRedirects = DEFAULT_MAX_REDIRECTS;
        private boolean allowPrivateNetwork;
        private HostResolver resolver = HostResolver.system();
        private SSLContext sslContext;
        private int maxTlsClients = DEFAULT_MAX_TLS_CLIENTS;
        private final Set<InetAddress> exemptAddresses = new HashSet<>();

        private Builder() {}

        public Builder withTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.toMillis() < 1 || timeout.compareTo(MAX_TIMEOUT) > 0) {
                throw new InvalidRequestException(
                        "timeout ("
                                + timeout.toMillis()
                                + " ms) must be between 1 ms and "
                                + MAX_TIMEOUT.toMillis()
                                + " ms");
            }
            this.timeout = timeout;
            return this;
        }

        public Builder withMaxBodyBytes(long maxBodyBytes) {
            if (maxBodyBytes < 1 || maxBodyBytes > MAX_BODY_BYTES) {
                throw new InvalidRequestException(
                        "maxBodyBytes ("
                                + maxBodyBytes
                                + ") must be between 1 and "
                                + MAX_BODY_BYTES);
            }
            this.maxBodyBytes = (int) maxBodyBytes;
            return this;
        }

        public Builder withMaxRedirects(int maxRedirects) {
            if (maxRedirects < 0 || maxRedirects > MAX_REDIRECTS) {
                throw new InvalidRequestException(
                        "maxRedirects ("
                                + maxRedirects
                                + ") must be between 0 and "
                                + MAX_REDIRECTS);
            }
            this.maxRedirects = maxRedirects;
            return this;
        }

        /** Lifts the address check; schemes, credentials and ports are still checked. */
        public Builder withAllowPrivateNetwork(boolean allowPrivateNetwork) {
            this.allowPrivateNetwork = allowPrivateNetwork;
            return this;
        }

        public Builder withResolver(HostResolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /** Trust (and any client keys) for HTTPS; the JVM default context if never set. */
        public Builder withSslContext(SSLContext sslContext) {
            this.sslContext = Objects.requireNonNull(sslContext, "sslContext");
            return this;
        }

        public Builder withMaxTlsClients(int maxTlsClients) {
            if (maxTlsClients < 1 || maxTlsClients > MAX_TLS_CLIENTS) {
                throw new InvalidRequestException(
                        "maxTlsClients ("
                                + maxTlsClients
                                + ") must be between 1 and "
                                + MAX_TLS_CLIENTS);
            }
            this.maxTlsClients = maxTlsClients;
            return this;
        }

        /**
         * Lets exactly this address through the address check, whatever range it is in. For tests,
         * which talk to loopback servers and must still see every other address refused.
         */
        Builder exemptAddress(InetAddress address) {
            exemptAddresses.add(Objects.requireNonNull(address, "address"));
            return this;
        }

        public FetchConfig build() {
            return new FetchConfig(this);
        }
    }
}
