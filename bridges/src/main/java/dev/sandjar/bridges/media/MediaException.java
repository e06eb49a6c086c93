package dev.sandjar.bridges.media;

import dev.sandjar.host.BridgeException;

/**
 * A media call refused or failed; the guest sees a {@code MediaError} whose {@code code} is a
 * {@link Code} name and whose message says what was wrong and, for a limit, the limit.
 */
public final class MediaException extends BridgeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong; the guest's {@code e.code}. */
    public enum Code {
        /** Not a ref, handle or bytes; an unknown scheme; a malformed {@code data:} URI. */
        INVALID_REF,
        /** A handle that this run did not make (or that another run made). */
        NOT_FOUND,
        /** A ref of one type where another is needed (an audio handle to {@code image.resize}). */
        WRONG_TYPE,
        /** A ref that needs a capability the run was not granted (workspace, fetch). */
        NOT_GRANTED,
        /** One input past its size cap, or an image past its pixel or edge caps. */
        TOO_LARGE,
        /** A per-run cap: total handle bytes, media CPU time. */
        LIMIT,
        /** Bytes that do not decode as the format they claim, or a format not supported. */
        UNSUPPORTED,
        /** An argument outside its range (a crop outside the image, an unknown option value). */
        INVALID_ARGUMENT
    }

    private final Code mediaCode;

    public MediaException(Code code, String message) {
        super("MediaError", code.name(), message);
        this.mediaCode = code;
    }

    public MediaException(Code code, String message, Throwable cause) {
        super("MediaError", code.name(), message, cause);
        this.mediaCode = code;
    }

    public Code mediaCode() {
        return mediaCode;
    }

    /** An input of {@code size} bytes past {@code max}, read by {@code where}. */
    public static MediaException tooLarge(String where, long size, long max) {
        return new MediaException(
                Code.TOO_LARGE,
                where
                        + ": the input is "
                        + (size < 0 ? "more than " + max : String.valueOf(size))
                        + " bytes; the limit is "
                        + max
                        + " bytes per input");
    }
}
