package dev.sandjar.host;

import dev.sandjar.transport.codec.Transport;
import dev.sandjar.transport.codec.TransportException;
import java.util.Objects;

/**
 * Guest values as one JSON text, the form a command line or an HTTP body carries: plain JSON, plus
 * the transport's markers for what JSON cannot hold ({@code {"$sj":"undef"}}, {@code
 * {"$sj":"bytes","type":"Uint8Array","base64":"..."}}, ...: docs/transport.md), exactly as {@link
 * RunResult#valueJson()} writes them. For bridges and callers that move values the way a run's
 * result and globals move. Thread-safe.
 */
public final class ValueJson {
    private ValueJson() {}

    /**
     * The value {@code json} describes, as the transport's Java types.
     *
     * @param what names the value in the error, and starts the path of a malformed marker in it
     *     ({@code inputs}: {@code inputs.rows[2]: a "date" marker's "v" must be ...})
     * @throws InvalidRequestException naming {@code what} when the text is not valid JSON, or the
     *     marker's path and what is wrong with it when a marker is malformed
     */
    public static Object read(String json, String what) {
        Objects.requireNonNull(json, what);
        try {
            return Transport.fromJson(json, what);
        } catch (TransportException e) {
            throw new InvalidRequestException(e.getMessage(), e);
        }
    }

    /**
     * {@code value} (of the transport's Java types) as JSON text.
     *
     * @param what names the value's root in the error (the path of a value that cannot be written)
     * @throws InvalidRequestException naming the path when part of the value cannot be written
     */
    public static String write(Object value, String what) {
        try {
            return Transport.toJson(value, what);
        } catch (TransportException e) {
            throw new InvalidRequestException(e.getMessage(), e);
        }
    }
}
