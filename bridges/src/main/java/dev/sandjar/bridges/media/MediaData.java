package dev.sandjar.bridges.media;

import java.util.Objects;

/**
 * Encoded media held by the host: its type, MIME type, bytes and, when known, a file name. The
 * bytes are not copied: a holder must not change them.
 *
 * @param filename a name to give the media when it is written out, or null
 */
public record MediaData(MediaType type, String mimeType, byte[] bytes, String filename) {
    public MediaData {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(mimeType, "mimeType");
        Objects.requireNonNull(bytes, "bytes");
    }

    public MediaData(MediaType type, String mimeType, byte[] bytes) {
        this(type, mimeType, bytes, null);
    }

    public int size() {
        return bytes.length;
    }
}
