package dev.sandjar.bridges.canvas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.image.Images;
import dev.sandjar.bridges.media.Media;
import dev.sandjar.bridges.media.MediaLimits;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.Limits;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.LinearGradientPaint;
import java.awt.RenderingHints;
import java.awt.font.FontRenderContext;
import java.awt.geom.AffineTransform;
import java.awt.geom.Arc2D;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Path2D;
import java.awt.geom.Point2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * createCanvas: drawings compared pixel by pixel with the same drawing made here directly on
 * Java2D, measureText, image data, handles, and the caps.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CanvasTest {
    // Java2D starts one process-wide daemon (its reference disposer) on first use, on purpose.
    @RegisterExtension
    static final SandboxExtension SANDBOX =
            SandboxExtension.poolSize(1).ignoringThreads("Java2D Disposer");

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    static final String PRELUDE =
            "const attempt = async (f) => { try { await f(); return 'no error'; } catch (e) {"
                    + " return `${e.name} ${e.code}: ${e.message}`; } };\n";

    static Object run(Media media, String code) {
        return sandbox.run(
                        RunRequest.builder(PRELUDE + code)
                                .bridge(media.bridge())
                                .bridge(Images.bridge(media))
                                .bridge(Canvas.bridge(media))
                                .build())
                .valueOrThrow();
    }

    static Object run(String code) {
        return run(Media.create(), code);
    }

    static BufferedImage decode(Object pngBytes) throws IOException {
        return ImageIO.read(new ByteArrayInputStream((byte[]) pngBytes));
    }

    /** The reference: the same drawing made directly on Java2D, with the canvas's hints. */
    static BufferedImage reference(int w, int h, Consumer<Graphics2D> draw) {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(
                RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setRenderingHint(
                RenderingHints.KEY_FRACTIONALMETRICS, RenderingHints.VALUE_FRACTIONALMETRICS_ON);
        g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
        draw.accept(g);
        g.dispose();
        return img;
    }

    /** Every channel of every pixel within {@code tolerance}; the count of differing pixels. */
    static void assertSimilar(BufferedImage expected, BufferedImage actual, int tolerance) {
        assertEquals(expected.getWidth(), actual.getWidth());
        assertEquals(expected.getHeight(), actual.getHeight());
        int worst = 0;
        String at = "";
        for (int y = 0; y < expected.getHeight(); y++) {
            for (int x = 0; x < expected.getWidth(); x++) {
                int a = expected.getRGB(x, y);
                int b = actual.getRGB(x, y);
                for (int shift = 0; shift < 32; shift += 8) {
                    int d = Math.abs(((a >>> shift) & 255) - ((b >>> shift) & 255));
                    if (d > worst) {
                        worst = d;
                        at =
                                x
                                        + ","
                                        + y
                                        + ": expected "
                                        + Integer.toHexString(a)
                                        + ", got "
                                        + Integer.toHexString(b);
                    }
                }
            }
        }
        assertTrue(worst <= tolerance, "largest channel difference " + worst + " at " + at);
    }

    @Test
    void shapesPathsAndStrokesMatchJava2d() throws IOException {
        Object png =
                run(
                        "const c = createCanvas(64, 48); const ctx = c.getContext('2d');\n"
                                + "ctx.fillStyle = '#336699'; ctx.fillRect(4, 4, 30, 20);\n"
                                + "ctx.beginPath(); ctx.moveTo(10, 40); ctx.lineTo(60, 30);"
                                + " ctx.lineTo(40, 8); ctx.closePath();\n"
                                + "ctx.strokeStyle = 'rgba(255, 0, 0, 0.75)'; ctx.lineWidth = 3;"
                                + " ctx.stroke();\n"
                                + "ctx.beginPath(); ctx.arc(48, 36, 8, 0, Math.PI * 2);"
                                + " ctx.fillStyle = 'green'; ctx.fill();\n"
                                + "ctx.clearRect(6, 6, 4, 4);\n"
                                + "return c.toBytes();");
        BufferedImage expected =
                reference(
                        64,
                        48,
                        g -> {
                            g.setColor(new Color(0x336699));
                            g.fill(new Rectangle2D.Double(4, 4, 30, 20));
                            Path2D.Double p = new Path2D.Double();
                            p.moveTo(10, 40);
                            p.lineTo(60, 30);
                            p.lineTo(40, 8);
                            p.closePath();
                            g.setColor(new Color(255, 0, 0, 191));
                            g.fill(
                                    new BasicStroke(
                                                    3,
                                                    BasicStroke.CAP_BUTT,
                                                    BasicStroke.JOIN_MITER,
                                                    10)
                                            .createStrokedShape(p));
                            g.setColor(new Color(0x008000));
                            g.fill(new Ellipse2D.Double(40, 28, 16, 16));
                            g.setComposite(java.awt.AlphaComposite.Clear);
                            g.fill(new Rectangle2D.Double(6, 6, 4, 4));
                        });
        BufferedImage actual = decode(png);
        assertSimilar(expected, actual, 24);
        // Known answers inside the shapes, away from antialiased edges.
        assertEquals(0xFF336699, actual.getRGB(20, 20));
        assertEquals(0, actual.getRGB(7, 7));
        assertEquals(0xFF008000, actual.getRGB(48, 36));
    }

    @Test
    void transformsSaveRestoreAndGradientsMatchJava2d() throws IOException {
        Object png =
                run(
                        "const c = createCanvas(40, 40); const ctx = c.getContext('2d');\n"
                                + "ctx.save(); ctx.translate(20, 20); ctx.rotate(Math.PI / 4);"
                                + " ctx.fillStyle = '#ff8800'; ctx.fillRect(-5, -5, 10, 10);"
                                + " ctx.restore();\n"
                                + "const g = ctx.createLinearGradient(0, 0, 40, 0);"
                                + " g.addColorStop(0, '#000000'); g.addColorStop(1, '#ffffff');\n"
                                + "ctx.fillStyle = g; ctx.fillRect(0, 32, 40, 8);\n"
                                + "ctx.fillRect(0, 0, 4, 4);\n"
                                + "return c.toBytes('image/png');");
        BufferedImage expected =
                reference(
                        40,
                        40,
                        g -> {
                            AffineTransform saved = g.getTransform();
                            g.translate(20, 20);
                            g.rotate(Math.PI / 4);
                            g.setColor(new Color(0xFF8800));
                            g.fill(new Rectangle2D.Double(-5, -5, 10, 10));
                            g.setTransform(saved);
                            g.setPaint(
                                    new LinearGradientPaint(
                                            new Point2D.Double(0, 0),
                                            new Point2D.Double(40, 0),
                                            new float[] {0, 1},
                                            new Color[] {Color.BLACK, Color.WHITE}));
                            g.fill(new Rectangle2D.Double(0, 32, 40, 8));
                            g.fill(new Rectangle2D.Double(0, 0, 4, 4));
                        });
        BufferedImage actual = decode(png);
        assertSimilar(expected, actual, 24);
        assertEquals(0xFFFF8800, actual.getRGB(20, 20));
        // The gradient runs black to white left to right; restore undid the rotation.
        for (int x : new int[] {1, 20, 38}) {
            // Java2D's gradient lookup table rounds to within a few levels.
            assertEquals(255 * (x + 0.5) / 40, actual.getRGB(x, 36) & 0xFF, 6, "blue at x " + x);
        }
    }

    @Test
    void textMatchesJava2dAndMeasureTextIsTheFontsWidth() throws IOException {
        List<?> out =
                (List<?>)
                        run(
                                "const c = createCanvas(80, 30); const ctx = c.getContext('2d');\n"
                                    + "ctx.font = 'bold 20px sans-serif'; ctx.fillStyle = '#000';\n"
                                    + "ctx.fillText('Hi!', 5, 22);\n"
                                    + "const m = ctx.measureText('Hi!');\n"
                                    + "return [await c.toBytes(), m.width,"
                                    + " canvas.measureText('Hi!', 'bold 20px sans-serif').width,"
                                    + " canvas.measureText('Hi!').width];");
        Font font = new Font(Font.SANS_SERIF, Font.BOLD, 20);
        FontRenderContext frc = new FontRenderContext(null, true, true);
        double width = font.createGlyphVector(frc, "Hi!").getLogicalBounds().getWidth();
        assertEquals(width, ((Number) out.get(1)).doubleValue(), 1e-9);
        assertEquals(width, ((Number) out.get(2)).doubleValue(), 1e-9);
        double small =
                new Font(Font.SANS_SERIF, Font.PLAIN, 10)
                        .createGlyphVector(frc, "Hi!")
                        .getLogicalBounds()
                        .getWidth();
        assertEquals(small, ((Number) out.get(3)).doubleValue(), 1e-9);
        BufferedImage expected =
                reference(
                        80,
                        30,
                        g -> {
                            g.setColor(Color.BLACK);
                            g.fill(
                                    AffineTransform.getTranslateInstance(5, 22)
                                            .createTransformedShape(
                                                    font.createGlyphVector(frc, "Hi!")
                                                            .getOutline()));
                        });
        assertSimilar(expected, decode(out.get(0)), 8);
    }

    @Test
    void imageDataImagesAndHandles() throws IOException {
        List<?> out =
                (List<?>)
                        run(
                                "const c = createCanvas(10, 10); const ctx = c.getContext('2d');\n"
                                        + "ctx.fillStyle = '#102030'; ctx.fillRect(0, 0, 5, 10);\n"
                                        + "const before = Array.from(ctx.getImageData(4, 0, 2,"
                                        + " 1).data);\n"
                                        + "const d = ctx.createImageData(2, 2); d.data.fill(200);"
                                        + " ctx.putImageData(d, 8, 8);\n"
                                        + "const red = await image.blank(3, 3, { color: 'red' });\n"
                                        + "ctx.drawImage(red, 6, 0);\n"
                                        + "const inner = createCanvas(2, 2);"
                                        + " inner.getContext('2d').fillStyle = 'blue';"
                                        + " inner.getContext('2d').fillRect(0, 0, 2, 2);\n"
                                        + "ctx.drawImage(inner, 0, 8, 4, 2);\n"
                                        + "const h = await c.toImage();\n"
                                        + "const info = await image.info(h);\n"
                                        + "const px = (await image.decode(h)).data;\n"
                                        + "const at = (x, y) => Array.from(px.subarray(4 * (10 * y"
                                        + " + x), 4 * (10 * y + x) + 4));\n"
                                        + "const jpeg = await c.toBytes('image/jpeg', 0.8);\n"
                                        + "return [before, at(9, 9), at(7, 1), at(1, 9), h.type,"
                                        + " info.width, info.height, Array.from(jpeg.subarray(0,"
                                        + " 2)), c.operations];");
        // Five operations of its own and the inner canvas's two.
        assertEquals(List.of(16L, 32L, 48L, 255L, 0L, 0L, 0L, 0L), out.get(0));
        assertEquals(List.of(200L, 200L, 200L, 200L), out.get(1));
        assertEquals(List.of(255L, 0L, 0L, 255L), out.get(2));
        assertEquals(List.of(0L, 0L, 255L, 255L), out.get(3));
        assertEquals(List.of("image", 10L, 10L, List.of(255L, 216L), 7L), out.subList(4, 9));
    }

    @Test
    void theOperationCapAndTheSizeCapsNameTheirBounds() {
        Object out =
                run(
                        "const c = createCanvas(4, 4); const ctx = c.getContext('2d');\n"
                                + "for (let i = 0; i < 10000; i++) ctx.fillRect(0, 0, 1, 1);\n"
                                + "const over = await attempt(() => ctx.fillRect(0, 0, 1, 1));\n"
                                + "const bytes = await c.toBytes();\n"
                                + "return [c.operations, over, bytes[1], await attempt(() =>"
                                + " createCanvas(16385, 1)), await attempt(() =>"
                                + " c.toBytes('image/tiff'))];");
        assertEquals(
                List.of(
                        10_000L,
                        "MediaError LIMIT: canvas: this canvas has recorded 10000 operations; the"
                                + " limit is 10000 per canvas",
                        (long) 'P',
                        "MediaError TOO_LARGE: createCanvas: the image is 16385 x 1; the limit is"
                                + " 16384 pixels per edge",
                        "MediaError INVALID_ARGUMENT: canvas.toBytes: cannot encode 'image/tiff';"
                                + " the types are image/png, image/jpeg, image/gif, image/bmp"),
                out);
        Media small =
                Media.builder()
                        .withLimits(MediaLimits.builder().withMaxCanvasOps(3).build())
                        .build();
        Object capped =
                run(
                        small,
                        "const a = createCanvas(2, 2); const b = createCanvas(2, 2);\n"
                                + "a.getContext('2d').fillRect(0, 0, 1, 1);"
                                + " a.getContext('2d').fillRect(0, 0, 1, 1);\n"
                                + "b.getContext('2d').fillRect(0, 0, 1, 1);\n"
                                + "return attempt(() => b.getContext('2d').drawImage(a, 0, 0));");
        assertEquals(
                "MediaError LIMIT: canvas: drawing this canvas would make 4 operations; the limit"
                        + " is 3 per canvas",
                capped);
    }

    @Test
    void arcsTurnClockwiseAsInABrowser() {
        // A quarter arc from 0 to PI/2 passes below the
        // centre (y grows downwards), as in a browser.
        Object png =
                run(
                        "const c = createCanvas(20, 20); const ctx = c.getContext('2d');\n"
                                + "ctx.beginPath(); ctx.moveTo(10, 10); ctx.arc(10, 10, 9, 0,"
                                + " Math.PI / 2); ctx.closePath(); ctx.fill();\n"
                                + "return c.toBytes();");
        BufferedImage expected =
                reference(
                        20,
                        20,
                        g -> {
                            g.setColor(Color.BLACK);
                            g.fill(new Arc2D.Double(1, 1, 18, 18, 0, -90, Arc2D.PIE));
                        });
        try {
            BufferedImage actual = decode(png);
            assertSimilar(expected, actual, 24);
            assertEquals(0xFF000000, actual.getRGB(14, 14));
            assertEquals(0, actual.getRGB(14, 6));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The review's dashed stroke ({@code setLineDash([0.001, 0.001])} on a large arc, out of heap
     * in 9-16 s) is refused by name before Java2D builds a dash, and a sensible dash still draws.
     */
    @Test
    void aDashPatternTooFineForItsPathIsRefusedBeforeDrawing() {
        Object out =
                run(
                        "const c = createCanvas(400, 400); const ctx = c.getContext('2d');\n"
                                + "ctx.setLineDash([0.001, 0.001]);\n"
                                + "ctx.beginPath(); ctx.arc(200, 200, 100000, 0, 2 * Math.PI);"
                                + " ctx.stroke();\n"
                                + "const bomb = await attempt(() => c.toBytes());\n"
                                + "const fine = createCanvas(40, 40); const f ="
                                + " fine.getContext('2d');\n"
                                + "f.setLineDash([4, 2]); f.strokeRect(5, 5, 30, 30);\n"
                                + "return [bomb, (await fine.toBytes()).length > 0];");
        // 2 pi x 100000 / 0.002 x 2: about 628 million (the flattened circle is a little longer).
        String bomb = (String) ((List<?>) out).get(0);
        assertTrue(
                bomb.matches(
                        "MediaError LIMIT: canvas.toBytes: a dashed stroke would draw 628\\d{6}"
                                + " dashes; the limit is 1000000 per stroke"),
                bomb);
        assertEquals(true, ((List<?>) out).get(1));
    }

    /**
     * The review's synchronous getImageData after heavy drawing held its engine for 121 s under a
     * 1.5 s CPU budget and a 3 s wall bound. The replay now runs in a worker process while the
     * engine thread waits: the run ends TIMEOUT at its bound, the drawing is stopped there (the CPU
     * charged to the run stays within the budget and the grace), and the engine serves the next
     * run.
     */
    @Test
    void aSynchronousGetImageDataEndsAtTheRunsBound() {
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const c = createCanvas(2000, 2000); const ctx ="
                                            + " c.getContext('2d');\n"
                                            + "ctx.beginPath();\n"
                                            + "for (let i = 0; i < 3000; i++) ctx.lineTo((i * 7919)"
                                            + " % 2000, (i * 104729) % 2000);\n"
                                            + "ctx.clip();\n"
                                            + "for (let k = 0; k < 40; k++) { ctx.lineWidth = 50;"
                                            + " ctx.stroke(); }\n"
                                            + "return ctx.getImageData(0, 0, 10, 10).data.length;")
                                .bridges(canvasBridges(Media.create()))
                                .limits(
                                        Limits.builder()
                                                .timeout(Duration.ofMillis(1500))
                                                .wallTimeout(Duration.ofSeconds(3))
                                                .build())
                                .build());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind(), r.toString());
        // The drawing needs about ten seconds of CPU; it was stopped at the budget (its check
        // between operations, or its worker's end), not drawn to the end.
        long budgetAndGrace = Duration.ofMillis(1500 + 1000).toNanos();
        assertTrue(
                r.stats().guestCpuNanos() + r.stats().hostCpuNanos() < budgetAndGrace,
                r.stats().summary());
        assertEquals(2L, run("return 1 + 1"));
    }

    static List<Bridge> canvasBridges(Media media) {
        return List.of(media.bridge(), Images.bridge(media), Canvas.bridge(media));
    }
}
