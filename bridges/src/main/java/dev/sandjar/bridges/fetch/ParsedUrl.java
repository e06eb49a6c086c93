package dev.sandjar.bridges.fetch;

import java.net.URI;

/**
 * A URL the guard accepted on syntax alone: http or https, no credentials, a valid host and port.
 * Nothing has been resolved or classified yet.
 *
 * @param scheme {@code http} or {@code https}
 * @param host a lower-case ASCII name without trailing dot, a dotted-quad IPv4 address, or IPv6
 *     text without brackets or zone
 * @param literal the address bytes when the host is an IP literal, else null
 * @param zone the IPv6 zone id of a literal, else null
 * @param port the port, with the scheme's default filled in
 * @param pathAndQuery the request target: raw path (at least "/") and query, ASCII only
 */
record ParsedUrl(
        String scheme, String host, byte[] literal, String zone, int port, String pathAndQuery) {

    boolean secure() {
        return scheme.equals("https");
    }

    boolean isLiteral() {
        return literal != null;
    }

    int defaultPort() {
        return secure() ? 443 : 80;
    }

    /** The authority as it appears in the URL and the Host header; the port only if not default. */
    String authority() {
        String name = literal != null && literal.length == 16 ? "[" + host + "]" : host;
        return port == defaultPort() ? name : name + ":" + port;
    }

    /** Scheme, host and port; two URLs with equal origins may share credentials. */
    String origin() {
        return scheme + "://" + host + ":" + port;
    }

    /**
     * The URL the guest sees: what it asked for, normalised, without the fragment. An IPv6 zone is
     * kept (RFC 6874's {@code %25}), so the URL parses back to itself and a relative redirect keeps
     * it; the Host header ({@link #authority()}) never carries one.
     */
    @Override
    public String toString() {
        if (zone != null) {
            String name = "[" + host + "%25" + zone + "]";
            return scheme
                    + "://"
                    + (port == defaultPort() ? name : name + ":" + port)
                    + pathAndQuery;
        }
        return scheme + "://" + authority() + pathAndQuery;
    }

    URI toUri() {
        return URI.create(toString());
    }
}
