package dev.sandjar.bridges.image;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sandjar.bridges.helpers.GuestHelpers;
import dev.sandjar.bridges.media.Media;
import dev.sandjar.bridges.media.MediaLimits;
import dev.sandjar.host.Limits;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** image.*: known answers on a small fixture drawn here, the caps, and the header bomb check. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ImageTest {
    // Java2D starts one process-wide daemon (its reference disposer) on first use, on purpose.
    @RegisterExtension
    static final SandboxExtension SANDBOX =
            SandboxExtension.poolSize(1).ignoringThreads("Java2D Disposer");

    static Sandbox sandbox;
    static byte[] fixture;

    @BeforeAll
    static void start(Sandbox shared) throws IOException {
        sandbox = shared;
        fixture = png(fixtureImage());
    }

    /** 4 x 3; the pixel at (x, y) is rgb(60x, 100y, 50), opaque. */
    static BufferedImage fixtureImage() {
        BufferedImage img = new BufferedImage(4, 3, BufferedImage.TYPE_INT_ARGB);
        for (int y = 0; y < 3; y++) {
            for (int x = 0; x < 4; x++) {
                img.setRGB(x, y, 0xFF000000 | (60 * x) << 16 | (100 * y) << 8 | 50);
            }
        }
        return img;
    }

    static byte[] png(BufferedImage img) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(img, "png", out);
        return out.toByteArray();
    }

    static final String PRELUDE =
            "const attempt = async (f) => { try { await f(); return 'no error'; } catch (e) {"
                    + " return `${e.name} ${e.code}: ${e.message}`; } };\n"
                    + "const px = async (img, x, y) => { const d = await image.decode(img); const"
                    + " i = 4 * (y * d.width + x); return Array.from(d.data.subarray(i, i + 4));"
                    + " };\n"
                    + "const dims = async (img) => { const i = await image.info(img); return"
                    + " [i.width, i.height]; };\n";

    static Object run(Media media, String code) {
        return sandbox.run(
                        RunRequest.builder(PRELUDE + code)
                                .global("fixture", fixture)
                                .bridge(GuestHelpers.bridge())
                                .bridge(media.bridge())
                                .bridge(Images.bridge(media))
                                .build())
                .valueOrThrow();
    }

    static Object run(String code) {
        return run(Media.create(), code);
    }

    @Test
    void readsInfoStatsAndPixels() {
        Object out =
                run(
                        "const info = await image.info(fixture);\n"
                                + "const s = await image.stats(fixture);\n"
                                + "return [info.width, info.height, info.format, info.mimeType,"
                                + " await px(fixture, 0, 0), await px(fixture, 3, 2),"
                                + " s.channels.r.mean, s.channels.r.max, s.channels.g.min,"
                                + " s.channels.b.stdev, s.opaque];");
        assertEquals(
                List.of(
                        4L,
                        3L,
                        "png",
                        "image/png",
                        List.of(0L, 0L, 50L, 255L),
                        List.of(180L, 200L, 50L, 255L),
                        90L,
                        180L,
                        0L,
                        0L,
                        true),
                out);
    }

    @Test
    void transformsReturnHandlesThatChain() {
        Object out =
                run(
                        "const r = await image.resize(fixture, { width: 8 });\n"
                                + "const c = await image.crop(fixture, { x: 1, y: 1, width: 2,"
                                + " height: 2 });\n"
                                + "const rot = await image.rotate(fixture, 90);\n"
                                + "const f = await image.flip(fixture, 'horizontal');\n"
                                + "const v = await image.flip(fixture, 'vertical');\n"
                                + "const chained = await image.crop(r, { x: 0, y: 0, width: 2,"
                                + " height: 2 });\n"
                                + "return [r.type, r.uri.startsWith('sandbox://media/'),"
                                + " r.mimeType, await dims(r), await dims(c), await px(c, 0,"
                                + " 0), await px(c, 1, 1), await dims(rot), await px(rot, 2, 0),"
                                + " await px(rot, 0, 3), await px(f, 0, 0), await px(v, 0, 0),"
                                + " await dims(chained), Array.from((await"
                                + " image.bytes(c)).subarray(1, 4))];");
        assertEquals(
                List.of(
                        "image",
                        true,
                        "image/png",
                        List.of(8L, 6L),
                        List.of(2L, 2L),
                        List.of(60L, 100L, 50L, 255L),
                        List.of(120L, 200L, 50L, 255L),
                        List.of(3L, 4L),
                        // Clockwise: the top-left pixel goes to the top-right.
                        List.of(0L, 0L, 50L, 255L),
                        List.of(180L, 200L, 50L, 255L),
                        List.of(180L, 0L, 50L, 255L),
                        List.of(0L, 200L, 50L, 255L),
                        List.of(2L, 2L),
                        List.of((long) 'P', (long) 'N', (long) 'G')),
                out);
    }

    @Test
    void blankPadAdjustCompositeGridAndConvert() {
        Object out =
                run(
                        "const red = await image.blank(10, 5, { color: '#ff0000' });\n"
                            + "const padded = await image.pad(fixture, { top: 1, left: 2, color:"
                            + " 'rgba(0, 0, 255, 1)' });\n"
                            + "const inverted = await image.adjust(fixture, { invert: true });\n"
                            + "const gray = await image.adjust(fixture, { grayscale: true });\n"
                            + "const over = await image.composite(red, fixture, { x: 3, y: 1 });\n"
                            + "const half = await image.composite(red, await image.blank(1, 1, {"
                            + " color: 'white' }), { opacity: 0.5 });\n"
                            + "const grid = await image.grid([fixture, fixture, red], { columns: 2,"
                            + " gap: 1 });\n"
                            + "const jpeg = await image.convert(fixture, { format: 'jpeg', quality:"
                            + " 0.9 });\n"
                            + "return [await px(red, 9, 4), await dims(padded), await px(padded, 0,"
                            + " 0), await px(padded, 2, 1), await px(inverted, 3, 2), (await"
                            + " px(gray, 3, 2)).every((v, i, a) => i === 3 || v === a[0]), await"
                            + " px(over, 3, 1), await px(over, 2, 1), await px(half, 0, 0), await"
                            + " dims(grid), jpeg.mimeType, Array.from((await"
                            + " image.bytes(jpeg)).subarray(0, 2)), await dims(jpeg)];");
        assertEquals(
                List.of(
                        List.of(255L, 0L, 0L, 255L),
                        List.of(6L, 4L),
                        List.of(0L, 0L, 255L, 255L),
                        List.of(0L, 0L, 50L, 255L),
                        List.of(75L, 55L, 205L, 255L),
                        true,
                        List.of(0L, 0L, 50L, 255L),
                        List.of(255L, 0L, 0L, 255L),
                        List.of(255L, 128L, 128L, 255L),
                        // Cells are 10 x 5 (the largest input), two columns, two rows, gap 1.
                        List.of(21L, 11L),
                        "image/jpeg",
                        List.of(255L, 216L),
                        List.of(4L, 3L)),
                out);
    }

    /** A PNG of the signature, an IHDR declaring width x height, and IEND: no pixel data at all. */
    static byte[] headerOnlyPng(int width, int height) {
        ByteBuffer b = ByteBuffer.allocate(8 + 25 + 12);
        b.put(new byte[] {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A});
        chunk(
                b,
                "IHDR",
                ByteBuffer.allocate(13)
                        .putInt(width)
                        .putInt(height)
                        .put(new byte[] {8, 6, 0, 0, 0})
                        .array());
        chunk(b, "IEND", new byte[0]);
        return b.array();
    }

    private static void chunk(ByteBuffer b, String type, byte[] data) {
        b.putInt(data.length);
        byte[] t = type.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        b.put(t).put(data);
        CRC32 crc = new CRC32();
        crc.update(t);
        crc.update(data);
        b.putInt((int) crc.getValue());
    }

    @Test
    void aHeaderBombIsRefusedBeforeDecodingAndEveryCapNamesItsBound() {
        Object out =
                sandbox.run(
                                RunRequest.builder(
                                                PRELUDE
                                                        + "return [await attempt(() =>"
                                                        + " image.resize(bomb, { width: 10 })),"
                                                        + " await attempt(() =>"
                                                        + " image.decode(wide)), await"
                                                        + " attempt(() => image.blank(16385, 1)),"
                                                        + " await attempt(() => image.blank(8000,"
                                                        + " 8000)), (await image.info(bomb)).width,"
                                                        + " await attempt(() => image.decode(new"
                                                        + " Uint8Array([1, 2, 3]))), await"
                                                        + " attempt(() => image.crop(fixture, {"
                                                        + " x: 3, y: 0, width: 2, height: 1 })),"
                                                        + " await attempt(() =>"
                                                        + " image.resize(fixture, { widht: 3"
                                                        + " }))];")
                                        .global("fixture", fixture)
                                        .global("bomb", headerOnlyPng(100_000, 100_000))
                                        .global("wide", headerOnlyPng(10_000, 4_000))
                                        .bridge(Media.create().bridge())
                                        .bridge(Images.bridge(Media.create()))
                                        .build())
                        .valueOrThrow();
        assertEquals(
                List.of(
                        "MediaError TOO_LARGE: image.resize: the image is 100000 x 100000; the"
                                + " limit is 16384 pixels per edge",
                        "MediaError TOO_LARGE: image.decode: the image is 10000 x 4000 = 40000000"
                                + " pixels; the limit is 33554432 pixels",
                        "MediaError TOO_LARGE: image.blank: the image is 16385 x 1; the limit is"
                                + " 16384 pixels per edge",
                        "MediaError TOO_LARGE: image.blank: the image is 8000 x 8000 = 64000000"
                                + " pixels; the limit is 33554432 pixels",
                        // info reads the header only, so it can describe a bomb harmlessly.
                        100_000L,
                        "MediaError UNSUPPORTED: image.decode: the bytes are not an image this"
                                + " host reads (PNG, JPEG, GIF, BMP, WebP)",
                        "MediaError INVALID_ARGUMENT: image.crop: the rectangle 3,0 2 x 1 is"
                                + " outside the 4 x 3 image",
                        "MediaError INVALID_ARGUMENT: image.resize: unknown option 'widht'; the"
                                + " options are [background, color, fit, format, height, quality,"
                                + " width]"),
                out);
    }

    @Test
    void configuredCapsApply() {
        Media small =
                Media.builder()
                        .withLimits(MediaLimits.builder().withMaxEdge(3).withMaxPixels(6).build())
                        .build();
        Object out =
                run(
                        small,
                        "return [await attempt(() => image.info(fixture).then(() =>"
                                + " image.decode(fixture))), await attempt(() =>"
                                + " image.blank(3, 2)), await attempt(() => image.blank(3, 3))];");
        assertEquals(
                List.of(
                        "MediaError TOO_LARGE: image.decode: the image is 4 x 3; the limit is 3"
                                + " pixels per edge",
                        "no error",
                        "MediaError TOO_LARGE: image.blank: the image is 3 x 3 = 9 pixels; the"
                                + " limit is 6 pixels"),
                out);
    }

    @Test
    void readsWebPThroughThePlugin() {
        // The 1 x 1 lossless and lossy WebP images browsers' feature tests use.
        Object out =
                run(
                        "const lossless ="
                            + " 'data:image/webp;base64,UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==';\n"
                            + "const lossy ="
                            + " 'data:image/webp;base64,UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA';\n"
                            + "const i = await image.info(lossless);\n"
                            + "return [i.width, i.height, i.format, await dims(lossy), (await"
                            + " image.info(await image.convert(lossless, 'png'))).mimeType];");
        assertEquals(List.of(1L, 1L, "webp", List.of(1L, 1L), "image/png"), out);
    }

    /**
     * The review's grid of 64 blank 4000 x 4000 images decoded every input before refusing the
     * 32000 x 32000 output (out of heap after 24.7 s). At small size: the output and the inputs'
     * decoded size are read from the headers and bounded (edge caps, then the run's hostBytes)
     * before one input is decoded.
     */
    @Test
    void aGridIsBoundedFromItsInputsHeadersBeforeDecodingAny() {
        Media media = Media.create();
        Object out =
                sandbox.run(
                                RunRequest.builder(
                                                PRELUDE
                                                        + "const b = await image.blank(2000,"
                                                        + " 2000);\n"
                                                        + "return [await attempt(() =>"
                                                        + " image.grid(Array(16).fill(b))),\n"
                                                        + "  await attempt(() =>"
                                                        + " image.grid(Array(4).fill(b), { columns:"
                                                        + " 4 })),\n"
                                                        + "  await dims(await image.grid([b, b], {"
                                                        + " cellWidth: 10, cellHeight: 10 }))];")
                                        .bridge(media.bridge())
                                        .bridge(Images.bridge(media))
                                        .limits(Limits.builder().hostBytes(100L << 20).build())
                                        .build())
                        .valueOrThrow();
        assertEquals(
                List.of(
                        "MediaError TOO_LARGE: image.grid: the image is 8000 x 8000 = 64000000"
                                + " pixels; the limit is 33554432 pixels",
                        "MediaError TOO_LARGE: image.grid: the images take 128000000 bytes"
                                + " decoded; a host call may take at most 104857600 bytes"
                                + " (hostBytes)",
                        List.of(20L, 10L)),
                out);
    }
}
