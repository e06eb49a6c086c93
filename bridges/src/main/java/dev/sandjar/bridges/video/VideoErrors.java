package dev.sandjar.bridges.video;

import dev.sandjar.bridges.media.MediaException;
import dev.sandjar.host.BridgeException;

/**
 * The errors of video calls. What every media capability shares is a {@code MediaError} ({@code
 * INVALID_ARGUMENT}, {@code TOO_LARGE}, {@code UNSUPPORTED}); what only the host binary does is a
 * {@code VideoError}: {@code UNAVAILABLE} (no ffmpeg on this host), {@code TIMEOUT}, {@code BUSY}
 * (no process slot within the call's time) or {@code FAILED} (ffmpeg exited with an error).
 */
final class VideoErrors {
    private VideoErrors() {}

    static BridgeException error(String code, String message) {
        return new BridgeException("VideoError", code, message);
    }

    static MediaException range(String message) {
        return new MediaException(MediaException.Code.INVALID_ARGUMENT, message);
    }

    static MediaException tooLarge(String message) {
        return new MediaException(MediaException.Code.TOO_LARGE, message);
    }

    static MediaException unsupported(String message) {
        return new MediaException(MediaException.Code.UNSUPPORTED, message);
    }
}
