package dev.sandjar.bridges.video;

import dev.sandjar.host.BridgeException;

/** The {@code VideoError}s the guest sees, by code. */
final class VideoErrors {
    private VideoErrors() {}

    /**
     * A {@code VideoError}: {@code UNAVAILABLE} (no ffmpeg on this host), {@code TOO_LARGE} (an
     * input or the output past its cap), {@code TIMEOUT}, {@code BUSY} (no process slot within the
     * call's time), {@code UNSUPPORTED_FORMAT} (ffprobe cannot read the input, or it has no video
     * stream) or {@code FAILED} (ffmpeg exited with an error).
     */
    static BridgeException error(String code, String message) {
        return new BridgeException("VideoError", code, message);
    }

    static BridgeException range(String message) {
        return new BridgeException("RangeError", BridgeException.INVALID_ARGUMENT, message);
    }
}
