package dev.sandjar.host;

import dev.sandjar.quickjs.EngineImage;
import dev.sandjar.quickjs.QuickJsEngine;
import dev.sandjar.transport.codec.Transport;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.Inflater;

/**
 * The byte form of a saved session (docs/sessions.md, "Saved sessions").
 *
 * <pre>
 * "SJSESS" format(u16) build(UTF) bridges(UTF) digest(32 bytes, SHA-256 of the payload)
 * payload: deflate( names(u32 count, then kind and name UTF pairs) globals(u32 count, UTF)
 *                   image(u8 present, then EngineImage bytes) )
 * </pre>
 *
 * The engine build and the bridge set are outside the compressed part, so a restore names both
 * builds before it inflates anything; inflating counts what it writes and stops at {@link
 * #payloadBound}, which stays below what a Java array can hold.
 */
final class SessionImages {
    private static final byte[] MAGIC = "SJSESS".getBytes(StandardCharsets.US_ASCII);
    private static final int FORMAT = 1;

    /** The longest array a JVM allocates: no bound here may pass it. */
    static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

    /** Slack for what a payload holds beside its memory: counts, the image's header, globals. */
    private static final long PAYLOAD_SLACK = 8L << 20;

    private SessionImages() {}

    /** What a restore reads: the session's state and the bridges it was saved with. */
    record Saved(EngineImage image, Map<String, String> declared, Set<String> globals) {}

    static byte[] write(
            SessionOptions options,
            EngineImage image,
            Map<String, String> names,
            Set<String> globals) {
        try {
            ByteArrayOutputStream payload = new ByteArrayOutputStream();
            Deflater deflater = new Deflater(Deflater.BEST_SPEED);
            try (DataOutputStream d =
                    new DataOutputStream(new DeflaterOutputStream(payload, deflater, 1 << 16))) {
                d.writeInt(names.size());
                for (Map.Entry<String, String> e : names.entrySet()) {
                    d.writeUTF(e.getValue());
                    d.writeUTF(e.getKey());
                }
                d.writeInt(globals.size());
                for (String g : globals) {
                    d.writeUTF(g);
                }
                d.writeBoolean(image != null);
                if (image != null) {
                    image.write(d);
                }
            } finally {
                deflater.end();
            }
            byte[] body = payload.toByteArray();
            ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 256);
            DataOutputStream d = new DataOutputStream(out);
            d.write(MAGIC);
            d.writeShort(FORMAT);
            d.writeUTF(QuickJsEngine.buildId());
            d.writeUTF(bridgeSet(options.bridges()));
            d.write(sha256(body));
            d.write(body);
            d.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Payload bytes a restore inflates at most for a session whose engine has at most {@code pages}
     * of memory: the image (at most the memory, plus four bytes per 4 KiB block), the declared
     * names (atoms in that memory, so at most 1.5 times its size in modified UTF-8) and {@link
     * #PAYLOAD_SLACK}; three times the memory covers both with room. Never more than {@link
     * #MAX_ARRAY}, so a hostile body fails with a message instead of an {@code OutOfMemoryError}.
     */
    static long payloadBound(int pages) {
        return Math.min(MAX_ARRAY, 3L * pages * 65536 + PAYLOAD_SLACK);
    }

    /**
     * The most bytes {@link #write} returns for a payload of at most {@code payloadBound} bytes:
     * deflate's worst case (stored blocks, five bytes per 16 KiB and its trailer) and the header's
     * two strings of at most 64 KiB each.
     */
    static long savedBound(long payloadBound) {
        return Math.min(MAX_ARRAY, payloadBound + payloadBound / 1024 + (256 << 10));
    }

    /**
     * Reads saved bytes, inflating at most {@code maxPayload} bytes ({@link #payloadBound} of the
     * restoring session's memory).
     */
    static Saved read(byte[] bytes, SessionOptions options, long maxPayload) {
        try {
            DataInputStream d = new DataInputStream(new ByteArrayInputStream(bytes));
            byte[] magic = new byte[MAGIC.length];
            d.readFully(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw image("these bytes are not a saved Sandjar session");
            }
            int format = d.readUnsignedShort();
            if (format != FORMAT) {
                throw image(
                        "the saved session has format "
                                + format
                                + "; this sandbox reads format "
                                + FORMAT);
            }
            String build = d.readUTF();
            if (!build.equals(QuickJsEngine.buildId())) {
                throw image(
                        "the session was saved by engine build "
                                + build
                                + "; this sandbox runs "
                                + QuickJsEngine.buildId());
            }
            String bridges = d.readUTF();
            String ours = bridgeSet(options.bridges());
            if (!bridges.equals(ours)) {
                throw image(
                        "the session was saved with bridges "
                                + bridges
                                + "; it is being restored with "
                                + ours);
            }
            byte[] digest = new byte[32];
            d.readFully(digest);
            byte[] body = d.readAllBytes();
            if (!MessageDigest.isEqual(digest, sha256(body))) {
                throw image("the saved session is damaged: its digest does not match its content");
            }
            return readPayload(inflate(body, maxPayload));
        } catch (EOFException e) {
            throw image("the saved session is truncated");
        } catch (IOException e) {
            throw image("the saved session cannot be read: " + e.getMessage());
        }
    }

    private static Saved readPayload(byte[] payload) throws IOException {
        DataInputStream d = new DataInputStream(new ByteArrayInputStream(payload));
        int n = d.readInt();
        if (n < 0 || n > 1_000_000) {
            throw new IOException("it declares " + n + " names");
        }
        Map<String, String> names = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            String kind = d.readUTF();
            String name = d.readUTF();
            if (!kind.equals("let") && !kind.equals("var") || !RunRequest.isIdentifier(name)) {
                throw new IOException("a declared name is malformed");
            }
            names.put(name, kind);
        }
        int g = d.readInt();
        if (g < 0 || g > 100_000) {
            throw new IOException("it declares " + g + " globals");
        }
        Set<String> globals = new LinkedHashSet<>();
        for (int i = 0; i < g; i++) {
            String name = d.readUTF();
            if (!RunRequest.isIdentifier(name)) {
                throw new IOException("a global name is malformed");
            }
            globals.add(name);
        }
        EngineImage image = d.readBoolean() ? EngineImage.read(d) : null;
        if (d.read() != -1) {
            throw new IOException("bytes follow the image");
        }
        return new Saved(image, names, globals);
    }

    /**
     * Inflates {@code body}, counting as it goes: past {@code max} bytes it stops with an {@link
     * IOException}. The buffer grows to at most {@code max + 1} bytes, so a body that inflates
     * without end costs no more than that.
     */
    private static byte[] inflate(byte[] body, long max) throws IOException {
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(body);
            byte[] out = new byte[(int) Math.min(max + 1, Math.max(1 << 16, body.length * 4L))];
            int n = 0;
            while (!inflater.finished()) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, (int) Math.min(max + 1, 2L * n));
                }
                int k = inflater.inflate(out, n, out.length - n);
                if (k == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw new EOFException();
                }
                n += k;
                if (n > max) {
                    throw new IOException(
                            "it inflates past "
                                    + max
                                    + " bytes, more than a session of this memory can hold");
                }
            }
            return n == out.length ? out : Arrays.copyOf(out, n);
        } catch (DataFormatException e) {
            throw new IOException("its compressed part is damaged (" + e.getMessage() + ")");
        } finally {
            inflater.end();
        }
    }

    /**
     * The bridges a session's state was made with, as the names and a digest of everything its
     * template is built from (their guest sources, the codec and the prelude).
     */
    static String bridgeSet(List<Bridge> bridges) {
        StringBuilder all = new StringBuilder(Transport.guestSource());
        all.append('\0').append(Template.PRELUDE);
        for (String part : Template.key(bridges)) {
            all.append('\0').append(part);
        }
        String digest =
                HexFormat.of().formatHex(sha256(all.toString().getBytes(StandardCharsets.UTF_8)));
        return bridges.stream().map(Bridge::name).toList() + " (" + digest.substring(0, 12) + ")";
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static SessionException image(String message) {
        return new SessionException(SessionException.Reason.IMAGE, message);
    }
}
