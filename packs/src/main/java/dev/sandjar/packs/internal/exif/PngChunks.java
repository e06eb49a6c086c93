package dev.sandjar.packs.internal.exif;

import dev.sandjar.packs.internal.HostWork;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Bounds what a PNG's compressed metadata chunks ({@code zTXt}, {@code iTXt}, {@code iCCP}) inflate
 * to before metadata-extractor reads them: it inflates each one whole, so a 2 MB chunk that
 * inflates to gigabytes would take that much heap. Each chunk is inflated here into a small buffer
 * that is thrown away, counting, and the image is refused once one chunk passes {@link
 * #MAX_CHUNK_INFLATED} or all of them {@link #MAX_TOTAL_INFLATED}. Other files pass untouched.
 */
final class PngChunks {
    static final long MAX_CHUNK_INFLATED = 4L << 20;
    static final long MAX_TOTAL_INFLATED = 16L << 20;

    private static final byte[] SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    private PngChunks() {}

    static void check(byte[] file, HostWork.Work w) {
        if (file.length < SIGNATURE.length
                || !java.util.Arrays.equals(
                        file, 0, SIGNATURE.length, SIGNATURE, 0, SIGNATURE.length)) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(file);
        b.position(SIGNATURE.length);
        long total = 0;
        while (b.remaining() >= 12) {
            long length = b.getInt() & 0xffffffffL;
            byte[] type = new byte[4];
            b.get(type);
            if (length > b.remaining() - 4) {
                return; // a truncated file: metadata-extractor reports it
            }
            int start = b.position();
            String name = new String(type, StandardCharsets.ISO_8859_1);
            int data = compressedData(name, file, start, (int) length);
            if (data >= 0) {
                long inflated = inflated(file, data, start + (int) length - data, w, name);
                total += inflated;
                if (total > MAX_TOTAL_INFLATED) {
                    throw HostWork.tooLarge(
                            w.where(),
                            "the PNG's compressed text and profile chunks inflate to more than "
                                    + MAX_TOTAL_INFLATED
                                    + " bytes together");
                }
            }
            b.position(start + (int) length + 4); // data and CRC
        }
    }

    /** Where a compressed chunk's deflate data starts, or -1 for a chunk that has none. */
    private static int compressedData(String type, byte[] f, int start, int length) {
        int end = start + length;
        int nul = indexOfNul(f, start, end); // keyword or profile name
        if (nul < 0) {
            return -1;
        }
        switch (type) {
            case "zTXt", "iCCP" -> {
                return nul + 2 <= end ? nul + 2 : -1; // compression method byte
            }
            case "iTXt" -> {
                if (nul + 3 > end || f[nul + 1] == 0) {
                    return -1; // not compressed
                }
                int lang = indexOfNul(f, nul + 3, end);
                int translated = lang < 0 ? -1 : indexOfNul(f, lang + 1, end);
                return translated < 0 ? -1 : translated + 1;
            }
            default -> {
                return -1;
            }
        }
    }

    private static int indexOfNul(byte[] f, int from, int end) {
        for (int i = from; i < end; i++) {
            if (f[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    private static long inflated(byte[] f, int off, int len, HostWork.Work w, String type) {
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(f, off, len);
            byte[] sink = new byte[64 << 10];
            long n = 0;
            while (!inflater.finished() && !inflater.needsInput()) {
                int got = inflater.inflate(sink);
                if (got == 0 && (inflater.needsDictionary() || inflater.needsInput())) {
                    break;
                }
                n += got;
                w.check();
                if (n > MAX_CHUNK_INFLATED) {
                    throw HostWork.tooLarge(
                            w.where(),
                            "the PNG's "
                                    + type
                                    + " chunk inflates to more than "
                                    + MAX_CHUNK_INFLATED
                                    + " bytes");
                }
            }
            return n;
        } catch (DataFormatException e) {
            return 0; // not valid deflate data: metadata-extractor reports what it makes of it
        } finally {
            inflater.end();
        }
    }
}
