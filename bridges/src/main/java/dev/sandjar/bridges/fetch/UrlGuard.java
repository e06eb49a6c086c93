package dev.sandjar.bridges.fetch;

import dev.sandjar.bridges.fetch.FetchException.Code;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The SSRF guard: decides whether a URL may be fetched and which address the request connects to.
 *
 * <p>{@link #parse} checks syntax only: http or https, no userinfo, a host, a valid port that is
 * not on the fetch standard's bad-port list. IP literals are parsed here in every form {@link
 * IpLiterals} knows, so a numeric-looking host never reaches a resolver. {@link #pin} then either
 * takes the literal or resolves the name once through the {@link HostResolver}, classifies
 * <em>every</em> address, refuses the request if any is not public, and returns the first address
 * as the one to connect to. Redirects come back through both steps.
 *
 * <p>{@code allowPrivateNetwork} skips the classification only; scheme, credentials, ports and
 * resolution are checked the same way.
 */
final class UrlGuard {
    static final int MAX_URL_LENGTH = 16 * 1024;

    /** The fetch standard's "bad port" list: ports of protocols that must not see HTTP. */
    private static final Set<Integer> BAD_PORTS =
            Set.of(
                    0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79,
                    87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
                    139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540,
                    548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
                    3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679,
                    6697, 10080);

    private final HostResolver resolver;
    private final boolean allowPrivateNetwork;
    private final Set<InetAddress> exemptAddresses;

    UrlGuard(HostResolver resolver, boolean allowPrivateNetwork, Set<InetAddress> exemptAddresses) {
        this.resolver = resolver;
        this.allowPrivateNetwork = allowPrivateNetwork;
        this.exemptAddresses = Set.copyOf(exemptAddresses);
    }

    /** Checks a URL's syntax; throws {@link Code#BAD_URL} saying what is wrong. */
    static ParsedUrl parse(String url) {
        if (url == null || url.isBlank()) {
            throw badUrl("the URL is empty");
        }
        if (url.length() > MAX_URL_LENGTH) {
            throw badUrl(
                    "the URL is " + url.length() + " characters; the limit is " + MAX_URL_LENGTH);
        }
        URI uri;
        try {
            uri = new URI(escapeNonAscii(url.strip()));
        } catch (URISyntaxException e) {
            throw badUrl("\"" + url + "\" is not a valid URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw badUrl(
                    "only http and https URLs can be fetched, not "
                            + (scheme.isEmpty() ? "a URL without a scheme" : scheme + ":")
                            + " (\""
                            + url
                            + "\")");
        }
        String authority = uri.isOpaque() ? null : uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            throw badUrl("\"" + url + "\" has no host");
        }
        if (authority.indexOf('@') >= 0) {
            throw badUrl(
                    "\"" + url + "\" carries credentials (user:password@); send them in a header");
        }

        String hostText;
        String portText;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw badUrl("\"" + url + "\" has an unclosed IPv6 bracket");
            }
            hostText = authority.substring(0, close + 1);
            String rest = authority.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw badUrl("\"" + url + "\" has text after the IPv6 address: " + rest);
            }
            portText = rest.isEmpty() ? "" : rest.substring(1);
        } else {
            int colon = authority.lastIndexOf(':');
            hostText = colon < 0 ? authority : authority.substring(0, colon);
            portText = colon < 0 ? "" : authority.substring(colon + 1);
        }
        if (hostText.isEmpty()) {
            throw badUrl("\"" + url + "\" has no host");
        }
        int port = parsePort(url, portText, scheme.equals("https") ? 443 : 80);

        String path =
                uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        String pathAndQuery = uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();

        if (hostText.startsWith("[")) {
            return parseIpv6Host(
                    url, scheme, hostText.substring(1, hostText.length() - 1), port, pathAndQuery);
        }
        String host = hostText.toLowerCase(Locale.ROOT);
        if (IpLiterals.endsInNumber(host)) {
            byte[] v4;
            try {
                v4 = IpLiterals.parseIpv4(host);
            } catch (IllegalArgumentException e) {
                throw badUrl(
                        "\""
                                + hostText
                                + "\" looks like an IPv4 address but is not one: "
                                + e.getMessage());
            }
            return new ParsedUrl(scheme, IpLiterals.format(v4), v4, null, port, pathAndQuery);
        }
        return new ParsedUrl(scheme, checkHostName(url, host), null, null, port, pathAndQuery);
    }

    /** Resolves a redirect's Location against the URL that answered with it, then parses it. */
    static ParsedUrl resolveRedirect(ParsedUrl base, String location) {
        URI target;
        try {
            target = base.toUri().resolve(new URI(escapeNonAscii(location.strip())));
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw badUrl("redirect from " + base + " to an invalid Location \"" + location + "\"");
        }
        return parse(target.toString());
    }

    /**
     * Finds the one address to connect to: the literal, or the first address the name resolves to
     * (resolved exactly once). Throws {@link Code#BLOCKED_ADDRESS} if the literal or <em>any</em>
     * resolved address is not public, {@link Code#NETWORK} if the name does not resolve.
     */
    PinnedUrl pin(ParsedUrl url) {
        if (url.isLiteral()) {
            InetAddress address = literalAddress(url);
            // Classify the parsed bytes: an IPv4-mapped literal must count as IPv6 here, even
            // though InetAddress.getByAddress has turned it into an Inet4Address.
            Optional<SpecialRange> range = AddressClassifier.classify(url.literal());
            if (range.isPresent() && !allowed(address)) {
                throw new FetchException(
                        Code.BLOCKED_ADDRESS,
                        "fetch of "
                                + url
                                + " refused: "
                                + url.host()
                                + " is in "
                                + range.get()
                                + "; only public addresses can be fetched");
            }
            return new PinnedUrl(url, address);
        }
        List<InetAddress> addresses;
        try {
            addresses = resolver.resolve(url.host());
        } catch (UnknownHostException e) {
            throw new FetchException(Code.NETWORK, "cannot resolve host \"" + url.host() + "\"", e);
        } catch (RuntimeException e) {
            throw new FetchException(
                    Code.NETWORK, "resolving host \"" + url.host() + "\" failed: " + e, e);
        }
        if (addresses == null || addresses.isEmpty()) {
            throw new FetchException(
                    Code.NETWORK, "host \"" + url.host() + "\" resolved to no addresses");
        }
        for (InetAddress address : addresses) {
            Optional<SpecialRange> range = AddressClassifier.classify(address);
            if (range.isPresent() && !allowed(address)) {
                throw new FetchException(
                        Code.BLOCKED_ADDRESS,
                        "fetch of "
                                + url
                                + " refused: host \""
                                + url.host()
                                + "\" resolves to "
                                + IpLiterals.format(address.getAddress())
                                + ", which is in "
                                + range.get()
                                + "; only public addresses can be fetched");
            }
        }
        return new PinnedUrl(url, addresses.get(0));
    }

    private boolean allowed(InetAddress address) {
        return allowPrivateNetwork || exemptAddresses.contains(address);
    }

    private static InetAddress literalAddress(ParsedUrl url) {
        try {
            if (url.zone() != null) {
                // A literal with a zone: InetAddress parses it without a lookup, and needs the
                // zone to name an interface of this machine.
                return InetAddress.getByName("[" + url.host() + "%" + url.zone() + "]");
            }
            return InetAddress.getByAddress(url.literal());
        } catch (UnknownHostException e) {
            throw new FetchException(
                    Code.BAD_URL,
                    "\"" + url + "\": " + e.getMessage() + " (zone " + url.zone() + ")");
        }
    }

    private static ParsedUrl parseIpv6Host(
            String url, String scheme, String inner, int port, String pathAndQuery) {
        String zone = null;
        int percent = inner.indexOf('%');
        if (percent >= 0) {
            zone = inner.substring(percent + 1);
            inner = inner.substring(0, percent);
            // RFC 6874 writes the zone separator as "%25"; plain "%" is also seen in the wild.
            if (zone.startsWith("25") && zone.length() > 2) {
                zone = zone.substring(2);
            }
            if (!zone.matches("[A-Za-z0-9._~-]+")) {
                throw badUrl("\"" + url + "\" has an invalid IPv6 zone id");
            }
        }
        byte[] v6;
        try {
            v6 = IpLiterals.parseIpv6(inner);
        } catch (IllegalArgumentException e) {
            throw badUrl("\"[" + inner + "]\" is not an IPv6 address: " + e.getMessage());
        }
        return new ParsedUrl(scheme, IpLiterals.format(v6), v6, zone, port, pathAndQuery);
    }

    private static int parsePort(String url, String text, int defaultPort) {
        if (text.isEmpty()) {
            return defaultPort;
        }
        if (text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw badUrl("\"" + url + "\" has an invalid port \"" + text + "\"");
        }
        int port = Integer.parseInt(text);
        if (port < 1 || port > 65535) {
            throw badUrl("\"" + url + "\" has port " + port + "; ports are 1 to 65535");
        }
        if (BAD_PORTS.contains(port)) {
            throw badUrl(
                    "\""
                            + url
                            + "\" uses port "
                            + port
                            + ", which fetch blocks because another protocol lives there");
        }
        return port;
    }

    private static String checkHostName(String url, String host) {
        String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        if (name.isEmpty() || name.length() > 253) {
            throw badUrl("\"" + url + "\" has a host name longer than 253 characters or empty");
        }
        for (String label : name.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63) {
                throw badUrl("\"" + url + "\" has an empty or over-long (63) label in its host");
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                boolean ok =
                        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
                if (!ok) {
                    throw badUrl(
                            "\""
                                    + url
                                    + "\" has a host with character '"
                                    + c
                                    + "'; hosts are ASCII letters, digits, '-' and '_' (use the"
                                    + " xn-- form for international names)");
                }
            }
        }
        return name;
    }

    /**
     * Percent-encodes non-ASCII characters as UTF-8, as a browser does before sending. Only the
     * path, query and fragment can hold them afterwards: a non-ASCII host is then refused.
     */
    private static String escapeNonAscii(String text) {
        boolean ascii = text.chars().allMatch(c -> c < 0x80);
        if (ascii) {
            return text;
        }
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            if (b >= 0) {
                out.append((char) b);
            } else {
                out.append('%').append(String.format("%02X", b & 0xFF));
            }
        }
        return out.toString();
    }

    private static FetchException badUrl(String message) {
        return new FetchException(Code.BAD_URL, message);
    }
}
