package dev.sandjar.bridges.canvas;

import dev.sandjar.bridges.internal.ImageCodec;
import dev.sandjar.bridges.media.MediaData;
import dev.sandjar.bridges.media.MediaLimits;
import dev.sandjar.bridges.media.MediaType;
import dev.sandjar.host.HostCall;
import dev.sandjar.host.IsolatedTask;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A canvas recording replayed on Java2D as an {@link IsolatedTask} (docs/sandbox.md, "Host work"):
 * the guest's drawing runs in a worker process, where a stroke or clip that runs away in Java2D's
 * native loops ends that process at the run's bound instead of holding the engine or the sandbox's
 * heap. The input is what {@link Canvas} resolved ({@link #input}); the result is the encoded image
 * ({@code {bytes, mimeType}}) or, for {@code getImageData}, the rectangle's RGBA bytes. Public for
 * the worker; not API.
 */
public final class CanvasTask implements IsolatedTask {
    public CanvasTask() {}

    /** The task's input for a recording of {@code width} x {@code height}. */
    static Map<String, Object> input(
            String mode,
            int width,
            int height,
            List<Object> ops,
            List<Object> sources,
            List<byte[]> blobs,
            MediaLimits limits) {
        Map<String, Object> in = new LinkedHashMap<>();
        in.put("mode", mode);
        in.put("canvas", canvas(width, height, ops, sources, blobs));
        in.put(
                "limits",
                Map.of(
                        "maxInputBytes",
                        limits.maxInputBytes(),
                        "maxPixels",
                        limits.maxPixels(),
                        "maxEdge",
                        (long) limits.maxEdge(),
                        "maxCanvasOps",
                        (long) limits.maxCanvasOps()));
        return in;
    }

    private static Map<String, Object> canvas(
            int width, int height, List<Object> ops, List<Object> sources, List<byte[]> blobs) {
        List<Object> out = new ArrayList<>();
        for (Object s : sources) {
            if (s instanceof MediaData d) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", d.type().guestName());
                m.put("mimeType", d.mimeType());
                m.put("bytes", d.bytes());
                out.add(Map.of("media", m));
            } else {
                CanvasRenderer.Nested n = (CanvasRenderer.Nested) s;
                out.add(
                        Map.of(
                                "nested",
                                canvas(n.width(), n.height(), n.ops(), n.sources(), n.blobs())));
            }
        }
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("width", (long) width);
        c.put("height", (long) height);
        c.put("ops", ops);
        c.put("sources", out);
        c.put("blobs", new ArrayList<Object>(blobs));
        return c;
    }

    @Override
    public Object run(Object input, HostCall call) {
        Map<?, ?> in = (Map<?, ?>) input;
        Map<?, ?> l = (Map<?, ?>) in.get("limits");
        MediaLimits limits =
                MediaLimits.builder()
                        .withMaxInputBytes(num(l, "maxInputBytes"))
                        .withMaxPixels(num(l, "maxPixels"))
                        .withMaxEdge((int) num(l, "maxEdge"))
                        .withMaxCanvasOps((int) num(l, "maxCanvasOps"))
                        .build();
        Map<?, ?> c = (Map<?, ?>) in.get("canvas");
        String mode = (String) in.get("mode");
        String where = mode.equals("pixels") ? "canvas.getImageData" : "canvas.toBytes";
        BufferedImage img = renderer(where, c, limits, call).render(ops(c));
        if (mode.equals("pixels")) {
            List<?> r = (List<?>) in.get("rect");
            return Canvas.pixels(img, num(r, 0), num(r, 1), num(r, 2), num(r, 3));
        }
        MediaData d =
                ImageCodec.encode(
                        where,
                        img,
                        (String) in.get("format"),
                        ((Number) in.get("quality")).doubleValue(),
                        Color.BLACK);
        return Map.of("bytes", d.bytes(), "mimeType", d.mimeType());
    }

    private static CanvasRenderer renderer(
            String where, Map<?, ?> c, MediaLimits limits, HostCall call) {
        return new CanvasRenderer(
                where,
                (int) num(c, "width"),
                (int) num(c, "height"),
                sources(c),
                blobs(c),
                limits,
                call);
    }

    /** A canvas's drawImage sources: media to decode, or canvases to render first. */
    private static List<Object> sources(Map<?, ?> n) {
        List<Object> out = new ArrayList<>();
        for (Object s : (List<?>) n.get("sources")) {
            Map<?, ?> m = (Map<?, ?>) s;
            if (m.get("media") instanceof Map<?, ?> d) {
                out.add(
                        new MediaData(
                                MediaType.fromGuest((String) d.get("type")),
                                (String) d.get("mimeType"),
                                (byte[]) d.get("bytes")));
            } else {
                Map<?, ?> inner = (Map<?, ?>) m.get("nested");
                out.add(
                        new CanvasRenderer.Nested(
                                (int) num(inner, "width"),
                                (int) num(inner, "height"),
                                ops(inner),
                                sources(inner),
                                blobs(inner)));
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> ops(Map<?, ?> c) {
        return (List<Object>) c.get("ops");
    }

    private static List<byte[]> blobs(Map<?, ?> c) {
        List<byte[]> out = new ArrayList<>();
        for (Object b : (List<?>) c.get("blobs")) {
            out.add((byte[]) b);
        }
        return out;
    }

    private static long num(Map<?, ?> m, String key) {
        return ((Number) m.get(key)).longValue();
    }

    private static long num(List<?> l, int i) {
        return ((Number) l.get(i)).longValue();
    }
}
