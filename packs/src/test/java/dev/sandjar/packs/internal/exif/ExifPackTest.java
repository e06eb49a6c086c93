package dev.sandjar.packs.internal.exif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.internal.HostPackRuns;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code @sandjar/exif} through {@code Sandbox.run}, on a JPEG made byte by byte. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExifPackTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static HostPackRuns packs;

    @BeforeAll
    static void start(Sandbox shared) {
        packs = new HostPackRuns(shared);
    }

    /**
     * A JPEG holding only an Exif segment: IFD0 with Make ("Sandjar") and a GPS IFD at 51°30'N
     * 0°7'W.
     */
    static byte[] jpeg() {
        ByteBuffer t = ByteBuffer.allocate(200).order(ByteOrder.LITTLE_ENDIAN);
        t.put(new byte[] {'I', 'I', 42, 0}).putInt(8);
        // IFD0 at 8: two entries, then next-IFD 0.
        t.putShort((short) 2);
        t.putShort((short) 0x010F).putShort((short) 2).putInt(8).putInt(38); // Make -> 38
        t.putShort((short) 0x8825).putShort((short) 4).putInt(1).putInt(46); // GPS IFD -> 46
        t.putInt(0);
        t.position(38);
        t.put("Sandjar\0".getBytes(StandardCharsets.US_ASCII));
        // GPS IFD at 46: four entries, then next-IFD 0; rationals from 100.
        t.putShort((short) 4);
        t.putShort((short) 1).putShort((short) 2).putInt(2).put(new byte[] {'N', 0, 0, 0});
        t.putShort((short) 2).putShort((short) 5).putInt(3).putInt(100);
        t.putShort((short) 3).putShort((short) 2).putInt(2).put(new byte[] {'W', 0, 0, 0});
        t.putShort((short) 4).putShort((short) 5).putInt(3).putInt(124);
        t.putInt(0);
        t.position(100);
        t.putInt(51).putInt(1).putInt(30).putInt(1).putInt(0).putInt(1);
        t.putInt(0).putInt(1).putInt(7).putInt(1).putInt(0).putInt(1);
        byte[] tiff = java.util.Arrays.copyOf(t.array(), 148);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0xFF);
        out.write(0xD8);
        out.write(0xFF);
        out.write(0xE1);
        int len = 2 + 6 + tiff.length;
        out.write(len >> 8);
        out.write(len & 0xFF);
        out.writeBytes("Exif\0\0".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(tiff);
        out.write(0xFF);
        out.write(0xD9);
        return out.toByteArray();
    }

    @Test
    void readsExifAndGps() {
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import exif, { read } from '@sandjar/exif';\n"
                                + "const m = await read(inputs.jpeg);\n"
                                + "return [m.directories['Exif IFD0'], m.gps.latitude,"
                                + " Math.round(m.gps.longitude * 1e6) / 1e6,"
                                + " m.directories['GPS']['GPS Latitude'],\n"
                                + "  (await failure(exif.read(new Uint8Array([1, 2, 3,"
                                + " 4])))).slice(0, 2)];",
                        Map.of("inputs", Map.of("jpeg", jpeg())));
        assertEquals(
                List.of(
                        Map.of("Make", "Sandjar"),
                        51.5,
                        -0.116667,
                        "51° 30' 0\"",
                        List.of("ExifError", "EXIF_UNREADABLE")),
                v);
    }

    /** A PNG: the signature, a 1 x 1 IHDR, the given chunk, an empty IDAT and IEND. */
    static byte[] pngWith(String type, byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
        chunk(
                out,
                "IHDR",
                ByteBuffer.allocate(13).putInt(1).putInt(1).put((byte) 8).put((byte) 0).array());
        chunk(out, type, data);
        chunk(out, "IEND", new byte[0]);
        return out.toByteArray();
    }

    private static void chunk(ByteArrayOutputStream out, String type, byte[] data) {
        byte[] t = type.getBytes(StandardCharsets.ISO_8859_1);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(t);
        crc.update(data);
        out.writeBytes(ByteBuffer.allocate(4).putInt(data.length).array());
        out.writeBytes(t);
        out.writeBytes(data);
        out.writeBytes(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }

    /** A zTXt chunk whose text inflates to {@code inflated} bytes of 'a'. */
    static byte[] zTxt(int inflated) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes("Comment\0\0".getBytes(StandardCharsets.ISO_8859_1));
        java.util.zip.Deflater d = new java.util.zip.Deflater(9);
        byte[] text = new byte[inflated];
        java.util.Arrays.fill(text, (byte) 'a');
        d.setInput(text);
        d.finish();
        byte[] buf = new byte[64 << 10];
        while (!d.finished()) {
            body.write(buf, 0, d.deflate(buf));
        }
        d.end();
        return body.toByteArray();
    }

    /**
     * The review's 2.4 MB PNG whose zTXt chunk inflates to 2.5 GB, at small size: a chunk over the
     * inflation cap is refused by name before metadata-extractor inflates it whole, and one under
     * it is read.
     */
    @Test
    void aCompressedTextChunkIsBoundedBeforeItInflates() {
        byte[] bomb = pngWith("zTXt", zTxt((int) PngChunks.MAX_CHUNK_INFLATED + 1));
        assertTrue(bomb.length < 20_000, "the bomb is " + bomb.length + " bytes");
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import { read } from '@sandjar/exif';\n"
                                + "const fine = await read(inputs.fine);\n"
                                + "return [await failure(read(inputs.bomb)),"
                                + " fine.directories['PNG-zTXt'] !== undefined];",
                        Map.of(
                                "inputs",
                                Map.of("bomb", bomb, "fine", pngWith("zTXt", zTxt(1000)))));
        assertEquals(
                List.of(
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                "packs.host.exif.read: the PNG's zTXt chunk inflates to more than"
                                        + " 4194304 bytes"),
                        true),
                v);
    }
}
