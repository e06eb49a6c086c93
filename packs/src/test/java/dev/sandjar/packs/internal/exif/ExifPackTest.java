package dev.sandjar.packs.internal.exif;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
