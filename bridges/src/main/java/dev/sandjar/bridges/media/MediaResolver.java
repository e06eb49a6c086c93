package dev.sandjar.bridges.media;

import dev.sandjar.host.RunSession;
import java.util.concurrent.CompletionStage;

/**
 * Reads the bytes a media ref names: the SPI behind {@code media.bytes(ref)} and every {@code
 * image.*} (and audio, video) call that takes a ref. {@link Media.Builder#addResolver} adds one;
 * the built-in ones read {@code data:} URIs, workspace paths (with the workspace grant) and {@code
 * https:} URLs (with the fetch grant). The first resolver that {@link #accepts} a ref reads it.
 *
 * <p>A resolver is shared by every run and must be thread-safe. It must not read more than {@code
 * maxBytes}: past it, fail with {@link MediaException#tooLarge}. Failures are {@link
 * dev.sandjar.host.BridgeException}s the guest sees as they are; anything else reaches the guest as
 * a generic host error.
 */
public interface MediaResolver {
    /** Whether this resolver reads {@code ref} (by its scheme, usually). Quick, no I/O. */
    boolean accepts(MediaRef ref);

    /**
     * The bytes {@code ref} names, with their MIME type when the source says (else null). Called on
     * the engine thread: blocking work belongs on {@link RunSession#executor()}.
     */
    CompletionStage<Resolved> resolve(MediaRef ref, RunSession session, long maxBytes);

    /** What a resolver read: the bytes, and their MIME type when the source says, else null. */
    record Resolved(byte[] bytes, String mimeType) {}
}
