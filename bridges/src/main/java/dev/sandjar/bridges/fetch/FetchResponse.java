package dev.sandjar.bridges.fetch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The final response of a fetch, after redirects.
 *
 * @param status the HTTP status code
 * @param statusText the standard reason phrase for the status ({@code java.net.http} does not
 *     expose the server's), or "" for a code without one
 * @param url the URL that produced this response (the last hop), normalised, without fragment
 * @param headers header values by lower-case name, names sorted, in the order received
 * @param body the body bytes, at most the configured cap; the array is the caller's (records
 *     compare it by identity)
 * @param truncated whether the body was cut at the cap (only when the request asked for it)
 * @param redirected whether at least one redirect was followed
 */
public record FetchResponse(
        int status,
        String statusText,
        String url,
        Map<String, List<String>> headers,
        byte[] body,
        boolean truncated,
        boolean redirected) {

    public FetchResponse {
        Objects.requireNonNull(statusText, "statusText");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(body, "body");
        TreeMap<String, List<String>> copy = new TreeMap<>();
        headers.forEach(
                (name, values) ->
                        copy.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new ArrayList<>())
                                .addAll(values));
        copy.replaceAll((name, values) -> List.copyOf(values));
        headers = Collections.unmodifiableMap(copy);
    }

    /** Whether the status is 2xx, as fetch's {@code ok}. */
    public boolean ok() {
        return status >= 200 && status < 300;
    }

    /** The first value of a header (any case), or null. */
    public String header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
