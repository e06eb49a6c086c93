package dev.sandjar.bridges.fetch;

import dev.sandjar.bridges.fetch.FetchException.Code;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the guest asked for: method, URL, headers and body bytes. Everything is validated as it is
 * set, so a built request is well formed; whether its host may be reached is decided at fetch time.
 *
 * <p>The guest may not set {@code Host} (the executor sets it from the URL) nor the headers that
 * belong to the connection rather than the request: Connection, Keep-Alive, Proxy-*, TE, Trailer,
 * Transfer-Encoding, Upgrade, Content-Length (taken from the body) and Expect. Those are refused
 * with {@link Code#BAD_HEADER} rather than dropped, so the guest learns they had no effect.
 */
public final class FetchRequest {
    private static final Set<String> FORBIDDEN_HEADERS =
            Set.of(
                    "host",
                    "connection",
                    "keep-alive",
                    "te",
                    "trailer",
                    "transfer-encoding",
                    "upgrade",
                    "content-length",
                    "expect");
    private static final Set<String> NORMALISED_METHODS =
            Set.of("DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT");
    private static final Set<String> FORBIDDEN_METHODS = Set.of("CONNECT", "TRACE", "TRACK");

    private final ParsedUrl url;
    private final String method;
    private final List<Map.Entry<String, String>> headers;
    private final byte[] body;
    private final boolean truncateOversizedBody;

    private FetchRequest(Builder builder) {
        this.url = builder.url;
        this.method = builder.method;
        this.headers = List.copyOf(builder.headers);
        this.body = builder.body;
        this.truncateOversizedBody = builder.truncateOversizedBody;
    }

    /**
     * Starts a GET of {@code url}.
     *
     * @throws FetchException {@link Code#BAD_URL} if the URL is malformed, not http/https, carries
     *     credentials or uses a blocked port
     */
    public static Builder builder(String url) {
        return new Builder(UrlGuard.parse(url));
    }

    /** The URL as it will be requested: normalised, without fragment. */
    public String url() {
        return url.toString();
    }

    public String method() {
        return method;
    }

    /** Header name/value pairs in the order added; names as given. */
    public List<Map.Entry<String, String>> headers() {
        return headers;
    }

    /** The body bytes (not copied), or null for none. */
    public byte[] body() {
        return body;
    }

    /** Whether an oversized response body is cut at the cap and flagged, instead of failing. */
    public boolean truncateOversizedBody() {
        return truncateOversizedBody;
    }

    ParsedUrl parsedUrl() {
        return url;
    }

    public static final class Builder {
        private final ParsedUrl url;
        private String method = "GET";
        private final List<Map.Entry<String, String>> headers = new ArrayList<>();
        private byte[] body;
        private boolean truncateOversizedBody;

        private Builder(ParsedUrl url) {
            this.url = url;
        }

        /**
         * Sets the method; the standard ones are upper-cased as fetch does.
         *
         * @throws FetchException {@link Code#BAD_REQUEST} for a non-token or CONNECT, TRACE, TRACK
         */
        public Builder withMethod(String method) {
            Objects.requireNonNull(method, "method");
            if (!isToken(method)) {
                throw new FetchException(
                        Code.BAD_REQUEST, "\"" + method + "\" is not a valid method");
            }
            String upper = method.toUpperCase(Locale.ROOT);
            if (FORBIDDEN_METHODS.contains(upper)) {
                throw new FetchException(Code.BAD_REQUEST, "method " + upper + " is not allowed");
            }
            this.method = NORMALISED_METHODS.contains(upper) ? upper : method;
            return this;
        }

        /**
         * Adds a header; leading and trailing spaces and tabs of the value are dropped.
         *
         * @throws FetchException {@link Code#BAD_HEADER} for an invalid name or value, or a header
         *     the guest may not set
         */
        public Builder addHeader(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (!isToken(name)) {
                throw new FetchException(
                        Code.BAD_HEADER, "\"" + name + "\" is not a valid header name");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (FORBIDDEN_HEADERS.contains(lower) || lower.startsWith("proxy-")) {
                throw new FetchException(
                        Code.BAD_HEADER,
                        "header "
                                + name
                                + " cannot be set by the guest; the connection and Host are the"
                                + " host's");
            }
            String trimmed = value.replaceAll("^[ \\t]+|[ \\t]+$", "");
            for (int i = 0; i < trimmed.length(); i++) {
                char c = trimmed.charAt(i);
                boolean ok = c == '\t' || (c >= 0x20 && c != 0x7F && c <= 0xFF);
                if (!ok) {
                    throw new FetchException(
                            Code.BAD_HEADER,
                            "header "
                                    + name
                                    + " has an invalid character U+"
                                    + String.format("%04X", (int) c)
                                    + " in its value (no CR, LF or other controls; at most"
                                    + " U+00FF)");
                }
            }
            headers.add(Map.entry(name, trimmed));
            return this;
        }

        /** Sets the body bytes (not copied); null for none. */
        public Builder withBody(byte[] body) {
            this.body = body;
            return this;
        }

        public Builder withTruncateOversizedBody(boolean truncate) {
            this.truncateOversizedBody = truncate;
            return this;
        }

        /**
         * @throws FetchException {@link Code#BAD_REQUEST} for a body on GET or HEAD
         */
        public FetchRequest build() {
            if (body != null && (method.equals("GET") || method.equals("HEAD"))) {
                throw new FetchException(
                        Code.BAD_REQUEST, "a " + method + " request cannot have a body");
            }
            return new FetchRequest(this);
        }
    }

    /** RFC 9110 token: visible ASCII except delimiters. */
    static boolean isToken(String text) {
        if (text.isEmpty()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean ok =
                    (c >= 'a' && c <= 'z')
                            || (c >= 'A' && c <= 'Z')
                            || (c >= '0' && c <= '9')
                            || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
