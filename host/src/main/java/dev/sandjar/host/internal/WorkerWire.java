package dev.sandjar.host.internal;

import dev.sandjar.transport.codec.Transport;
import dev.sandjar.transport.codec.TransportException;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The frames a sandbox and its worker processes exchange over the worker's standard input and
 * output. A frame holds an envelope (what to do, or how it went) and optionally a value (a call's
 * input, or its result), each a transport value (docs/transport.md) as JSON text plus its sidecar.
 * The value stays in that encoded form until someone needs it as Java objects: a result goes from
 * the worker's frame into the guest without ever being Java objects in the sandbox's heap. Text
 * travels as UTF-16 code units, so every Java string (lone surrogates included) arrives as it left.
 *
 * <pre>
 * frame   = u32 MAGIC, u32 length, body   (length: bytes of body, at most the reader's cap)
 * body    = part, u8 hasValue, [part]       (the envelope, then the value when hasValue is 1)
 * part    = u32 n, n x u16 json, u32 count, count x entry
 * entry   = u8 0, u32 n, n bytes            (a byte[])
 *         | u8 1, u32 n, n x u16            (a long string)
 * </pre>
 *
 * A reader checks every length against the frame's cap and what is left of the frame before it
 * allocates, so a frame from a worker that went wrong costs at most its cap. A frame that does not
 * start with {@link #MAGIC} means something else wrote to the channel (a native library printing to
 * the process's standard output): the channel is then unusable. Public only for the sandbox's own
 * worker; not API.
 */
public final class WorkerWire {
    /** The first four bytes of every frame: "SJWF". */
    public static final int MAGIC = 0x534A5746;

    private WorkerWire() {}

    /** A frame as read: its envelope as Java values, its value (or null) still encoded. */
    public record Frame(Object envelope, Transport.Encoded value) {}

    /** The frame of {@code envelope} and {@code value} (null for none); encodes both. */
    public static byte[] encode(Object envelope, Object value) {
        return encode(
                Transport.encode(envelope, "envelope"),
                value == null ? null : Transport.encode(value, "value"));
    }

    /** The frame of two encoded parts (the value may be null). */
    public static byte[] encode(Transport.Encoded envelope, Transport.Encoded value) {
        long size = partSize(envelope) + 1 + (value == null ? 0 : partSize(value));
        if (size > Integer.MAX_VALUE - 8) {
            throw new TransportException(
                    "the value is too large to send to a worker (" + size + " bytes)");
        }
        ByteBuffer buf = ByteBuffer.allocate((int) size + 8);
        buf.putInt(MAGIC).putInt((int) size);
        putPart(buf, envelope);
        buf.put((byte) (value == null ? 0 : 1));
        if (value != null) {
            putPart(buf, value);
        }
        return buf.array();
    }

    /** The bytes {@code part} takes in a frame. */
    public static long partSize(Transport.Encoded part) {
        long size = 4 + 2L * part.json().length() + 4;
        for (Object s : part.sidecar()) {
            size += 5 + (s instanceof byte[] b ? b.length : 2L * ((String) s).length());
        }
        return size;
    }

    private static void putPart(ByteBuffer buf, Transport.Encoded part) {
        putChars(buf, part.json());
        buf.putInt(part.sidecar().size());
        for (Object s : part.sidecar()) {
            if (s instanceof byte[] b) {
                buf.put((byte) 0).putInt(b.length).put(b);
            } else {
                buf.put((byte) 1);
                putChars(buf, (String) s);
            }
        }
    }

    private static void putChars(ByteBuffer buf, String s) {
        buf.putInt(s.length());
        for (int i = 0; i < s.length(); i++) {
            buf.putChar(s.charAt(i));
        }
    }

    /**
     * The frame's length, read from its first eight bytes; {@link EOFException} at a clean end of
     * the stream, {@link CorruptChannelException} when the frame does not start with {@link
     * #MAGIC}.
     */
    public static int readLength(DataInputStream in) throws IOException {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new CorruptChannelException(magic);
        }
        return in.readInt();
    }

    /**
     * Reads the body of a frame of {@code length} bytes: its envelope decoded, its value encoded.
     *
     * @throws FrameTooLargeException when {@code length} is over {@code maxBytes}: nothing was read
     *     or allocated, and the stream is no longer usable
     * @throws IOException when the stream ends inside the frame, or the frame is malformed
     */
    public static Frame readBody(DataInputStream in, int length, long maxBytes) throws IOException {
        if (length < 9 || length > maxBytes) {
            throw new FrameTooLargeException(length, maxBytes);
        }
        byte[] body = new byte[length];
        in.readFully(body);
        ByteBuffer buf = ByteBuffer.wrap(body);
        try {
            Transport.Encoded envelope = getPart(buf);
            Transport.Encoded value = buf.get() == 1 ? getPart(buf) : null;
            if (buf.hasRemaining()) {
                throw new IOException("malformed worker frame: " + buf.remaining() + " bytes left");
            }
            return new Frame(Transport.decode(envelope.json(), envelope.sidecar()), value);
        } catch (BufferUnderflowException e) {
            throw new IOException("malformed worker frame: it ends inside a value");
        } catch (TransportException e) {
            throw new IOException("malformed worker frame: " + e.getMessage());
        }
    }

    private static Transport.Encoded getPart(ByteBuffer buf) throws IOException {
        String json = getChars(buf);
        int count = buf.getInt();
        if (count < 0 || count > buf.remaining() / 5) {
            throw new IOException("malformed worker frame: " + count + " sidecar entries");
        }
        List<Object> sidecar = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte kind = buf.get();
            if (kind == 0) {
                int n = buf.getInt();
                if (n < 0 || n > buf.remaining()) {
                    throw new IOException("malformed worker frame: bytes of length " + n);
                }
                byte[] b = new byte[n];
                buf.get(b);
                sidecar.add(b);
            } else if (kind == 1) {
                sidecar.add(getChars(buf));
            } else {
                throw new IOException("malformed worker frame: sidecar kind " + kind);
            }
        }
        return new Transport.Encoded(json, sidecar);
    }

    private static String getChars(ByteBuffer buf) throws IOException {
        int n = buf.getInt();
        if (n < 0 || n > buf.remaining() / 2) {
            throw new IOException("malformed worker frame: text of length " + n);
        }
        char[] c = new char[n];
        buf.asCharBuffer().get(c);
        buf.position(buf.position() + 2 * n);
        return new String(c);
    }

    /** Decodes an encoded value into Java values (an input, or a result someone needs as Java). */
    public static Object decode(Transport.Encoded value) {
        return Transport.decode(value.json(), value.sidecar());
    }

    /** Something other than a frame arrived on the channel. */
    public static final class CorruptChannelException extends IOException {
        private static final long serialVersionUID = 1L;

        CorruptChannelException(int start) {
            super(String.format("the channel holds something other than a frame (0x%08x)", start));
        }
    }

    /** A frame longer than the reader's cap. */
    public static final class FrameTooLargeException extends IOException {
        private static final long serialVersionUID = 1L;
        private final long length;

        public FrameTooLargeException(long length, long max) {
            super("a frame of " + length + " bytes; the cap is " + max);
            this.length = length;
        }

        public long length() {
            return length;
        }
    }
}
