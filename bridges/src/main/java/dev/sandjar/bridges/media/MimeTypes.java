package dev.sandjar.bridges.media;

/** The MIME type of encoded media, from its first bytes. */
public final class MimeTypes {
    public static final String OCTET_STREAM = "application/octet-stream";

    private MimeTypes() {}

    /**
     * The type the bytes' signature names (PNG, JPEG, GIF, BMP, WebP, WAV, MP3, Ogg, FLAC, MP4,
     * WebM, PDF), else {@link #OCTET_STREAM}.
     */
    public static String sniff(byte[] b) {
        if (starts(b, 0, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A)) {
            return "image/png";
        }
        if (starts(b, 0, 0xFF, 0xD8, 0xFF)) {
            return "image/jpeg";
        }
        if (starts(b, 0, 'G', 'I', 'F', '8')) {
            return "image/gif";
        }
        if (starts(b, 0, 'B', 'M') && b.length >= 26) {
            return "image/bmp";
        }
        if (starts(b, 0, 'R', 'I', 'F', 'F') && starts(b, 8, 'W', 'E', 'B', 'P')) {
            return "image/webp";
        }
        if (starts(b, 0, 'R', 'I', 'F', 'F') && starts(b, 8, 'W', 'A', 'V', 'E')) {
            return "audio/wav";
        }
        if (starts(b, 0, 'I', 'D', '3') || starts(b, 0, 0xFF, 0xFB) || starts(b, 0, 0xFF, 0xF3)) {
            return "audio/mpeg";
        }
        if (starts(b, 0, 'O', 'g', 'g', 'S')) {
            return "audio/ogg";
        }
        if (starts(b, 0, 'f', 'L', 'a', 'C')) {
            return "audio/flac";
        }
        if (starts(b, 4, 'f', 't', 'y', 'p')) {
            return "video/mp4";
        }
        if (starts(b, 0, 0x1A, 0x45, 0xDF, 0xA3)) {
            return "video/webm";
        }
        if (starts(b, 0, '%', 'P', 'D', 'F', '-')) {
            return "application/pdf";
        }
        return OCTET_STREAM;
    }

    /**
     * The media type a MIME type belongs to; {@code DOCUMENT} for anything not image/audio/video.
     */
    public static MediaType typeOf(String mimeType) {
        if (mimeType.startsWith("image/")) {
            return MediaType.IMAGE;
        }
        if (mimeType.startsWith("audio/")) {
            return MediaType.AUDIO;
        }
        if (mimeType.startsWith("video/")) {
            return MediaType.VIDEO;
        }
        return MediaType.DOCUMENT;
    }

    private static boolean starts(byte[] b, int at, int... sig) {
        if (b.length < at + sig.length) {
            return false;
        }
        for (int i = 0; i < sig.length; i++) {
            if ((b[at + i] & 0xFF) != sig[i]) {
                return false;
            }
        }
        return true;
    }
}
