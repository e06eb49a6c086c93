package dev.sandjar.bridges.fetch;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;

/** A parsed URL together with the one validated address the request will connect to. */
record PinnedUrl(ParsedUrl url, InetAddress address) {

    /**
     * The URI handed to the HTTP client: the validated address as an IP literal in place of the
     * host, so the client has nothing to resolve.
     */
    URI connectUri() {
        String literal =
                address instanceof Inet6Address
                        ? "[" + address.getHostAddress() + "]"
                        : address.getHostAddress();
        return URI.create(url.scheme() + "://" + literal + ":" + url.port() + url.pathAndQuery());
    }
}
