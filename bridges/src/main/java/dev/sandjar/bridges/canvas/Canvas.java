package dev.sandjar.bridges.canvas;

import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.bridges.internal.ImageCodec;
import dev.sandjar.bridges.media.Media;
import dev.sandjar.bridges.media.MediaData;
import dev.sandjar.bridges.media.MediaException;
import dev.sandjar.bridges.media.MediaLimits;
import dev.sandjar.bridges.media.MediaRun;
import dev.sandjar.bridges.media.MediaType;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunSession;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code createCanvas(width, height)} and {@code canvas.measureText(text, font)}: a Canvas 2D
 * context recorded in the guest and replayed on a Java2D {@code Graphics2D} by {@code await
 * surface.toBytes(mimeType?, quality?)} (encoded bytes) or {@code await surface.toImage()} (a
 * {@code sandbox://media/} handle). Paths, fills, strokes, text with {@code measureText}, images
 * ({@code drawImage} of refs, handles, bytes or other canvases), transforms, linear and radial
 * gradients, {@code save/restore}, clipping, line dashes, {@code globalAlpha}, the Porter-Duff
 * composite operations, and {@code getImageData/putImageData}. At most {@code maxCanvasOps}
 * recorded operations per canvas (10,000 by default), counted in the guest and checked again here.
 * Fonts are the JVM's: see {@link Fonts} and {@code docs/media.md}.
 */
public final class Canvas {
    // Wrapped once: the template cache keys on the guest source, so every run must hand it the same
    // String (its hash kept, equal by identity), not a new concatenation of a few KiB.
    private static final String GUEST =
            Media.guestSource(GuestScripts.load(Canvas.class, "canvas.js"));

    private final Media media;
    private final MediaLimits limits;
    private final Bridge bridge;

    private Canvas(Media media) {
        this.media = media;
        this.limits = media.limits();
        int maxOps = limits.maxCanvasOps();
        // The recording as JSON text in pieces of 8,192 characters (see canvas.js).
        Param ops = Param.array("ops").maxLength(4096);
        Param sources = Param.array("sources").maxLength(maxOps);
        Param blobs = Param.array("blobs").maxLength(maxOps);
        this.bridge =
                Bridge.builder("canvas")
                        .guest(GUEST)
                        .operation(Operation.builder("maxOps").handler(c -> (long) maxOps).build())
                        .operation(
                                Operation.builder("check")
                                        .param(Param.number("width"))
                                        .param(Param.number("height"))
                                        .handler(this::check)
                                        .build())
                        .operation(
                                Operation.builder("measure")
                                        .param(Param.string("font").maxLength(512))
                                        .param(Param.string("text").maxLength(65_536))
                                        .handler(
                                                c ->
                                                        CanvasRenderer.measure(
                                                                c.string(0), c.string(1)))
                                        .build())
                        .operation(
                                Operation.builder("pixels")
                                        .param(Param.integer("width"))
                                        .param(Param.integer("height"))
                                        .param(ops)
                                        .param(sources)
                                        .param(blobs)
                                        .param(Param.integer("sx"))
                                        .param(Param.integer("sy"))
                                        .param(Param.integer("sw"))
                                        .param(Param.integer("sh"))
                                        .handler(this::pixels)
                                        .build())
                        .operation(
                                Operation.builder("render")
                                        .param(Param.integer("width"))
                                        .param(Param.integer("height"))
                                        .param(ops)
                                        .param(sources)
                                        .param(blobs)
                                        .param(Param.string("mimeType").maxLength(64))
                                        .param(Param.number("quality"))
                                        .param(Param.bool("handle"))
                                        .handler(this::render)
                                        .build())
                        .build();
    }

    /** The canvas bridge over {@code media}'s limits, resolvers and per-run handles. */
    public static Bridge bridge(Media media) {
        return new Canvas(media).bridge;
    }

    private Object check(OperationCall call) {
        double w = call.number(0, 0);
        double h = call.number(1, 0);
        if (w != Math.rint(w) || h != Math.rint(h)) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    "createCanvas: width and height must be whole numbers, got " + w + " x " + h);
        }
        ImageCodec.checkSize("createCanvas", (long) w, (long) h, limits);
        return null;
    }

    /**
     * getImageData: replays the recording so far in a worker process ({@link CanvasTask}) while the
     * engine thread waits; the wait and the replay end with the run's bounds.
     */
    private Object pixels(OperationCall call) {
        int w = (int) call.integer(0, 0);
        int h = (int) call.integer(1, 0);
        long sx = call.integer(5, 0);
        long sy = call.integer(6, 0);
        long sw = call.integer(7, 0);
        long sh = call.integer(8, 0);
        if (sw <= 0 || sh <= 0 || 4 * sw * sh > limits.maxInputBytes()) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    "getImageData: the rectangle must be at least 1 x 1 and at most "
                            + limits.maxInputBytes() / 4
                            + " pixels, got "
                            + sw
                            + " x "
                            + sh);
        }
        ImageCodec.checkSize("canvas.getImageData", w, h, limits);
        List<Object> resolved = new ArrayList<>();
        for (CompletableFuture<Object> f : sources(call, call.array(3), 0)) {
            if (!f.isDone()) {
                throw new MediaException(
                        MediaException.Code.INVALID_ARGUMENT,
                        "getImageData: a drawn image is a workspace or https ref, which is read"
                                + " asynchronously; read it into a handle (media.toImage or an"
                                + " image call) first");
            }
            resolved.add(f.join());
        }
        Map<String, Object> input =
                CanvasTask.input(
                        "pixels", w, h, ops(call.array(2)), resolved, blobs(call.array(4)), limits);
        input.put("rect", List.of(sx, sy, sw, sh));
        RunSession session = call.session();
        return session.await(session.isolated("canvas.getImageData", CanvasTask.class, input));
    }

    /** Non-premultiplied RGBA bytes of a rectangle of {@code img}; transparent outside it. */
    static byte[] pixels(BufferedImage img, long sx, long sy, long sw, long sh) {
        byte[] data = new byte[(int) (4 * sw * sh)];
        int i = 0;
        for (long y = sy; y < sy + sh; y++) {
            for (long x = sx; x < sx + sw; x++) {
                int p =
                        x >= 0 && y >= 0 && x < img.getWidth() && y < img.getHeight()
                                ? img.getRGB((int) x, (int) y)
                                : 0;
                data[i++] = (byte) (p >> 16);
                data[i++] = (byte) (p >> 8);
                data[i++] = (byte) p;
                data[i++] = (byte) (p >>> 24);
            }
        }
        return data;
    }

    private Object render(OperationCall call) {
        int w = (int) call.integer(0, 0);
        int h = (int) call.integer(1, 0);
        List<Object> ops = ops(call.array(2));
        List<byte[]> blobs = blobs(call.array(4));
        String format = ImageCodec.writableFormat(call.string(5));
        if (format == null) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    "canvas.toBytes: cannot encode '"
                            + call.string(5)
                            + "'; the types are image/png, image/jpeg, image/gif, image/bmp");
        }
        ImageCodec.checkSize("canvas.toBytes", w, h, limits);
        double quality = call.number(6, -1);
        boolean handle = call.bool(7, false);
        List<CompletableFuture<Object>> pending = sources(call, call.array(3), 0);
        MediaRun run = media.run(call.session());
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .thenCompose(
                        ignored -> {
                            List<Object> resolved = new ArrayList<>();
                            for (CompletableFuture<Object> f : pending) {
                                resolved.add(f.join());
                            }
                            Map<String, Object> input =
                                    CanvasTask.input("render", w, h, ops, resolved, blobs, limits);
                            input.put("format", format);
                            input.put("quality", quality > 1 ? -1.0 : quality);
                            return call.session().isolated(call.where(), CanvasTask.class, input);
                        })
                .thenApply(
                        out -> {
                            Map<?, ?> m = (Map<?, ?>) out;
                            MediaData d =
                                    new MediaData(
                                            MediaType.IMAGE,
                                            (String) m.get("mimeType"),
                                            (byte[]) m.get("bytes"));
                            if (handle) {
                                return run.store("canvas.toImage", d);
                            }
                            if (d.size() > limits.maxInputBytes()) {
                                throw MediaException.tooLarge(
                                        "canvas.toBytes", d.size(), limits.maxInputBytes());
                            }
                            return d.bytes();
                        });
    }

    /**
     * Each drawImage source, resolving: media (a ref, handle or bytes) becomes {@link MediaData}; a
     * nested canvas ({@code {canvas: [w, h, ops, sources]}}) a {@link CanvasRenderer.Nested} whose
     * own sources resolve the same way.
     */
    private List<CompletableFuture<Object>> sources(
            OperationCall call, List<Object> given, int depth) {
        if (depth > 16) {
            throw new MediaException(
                    MediaException.Code.LIMIT,
                    "canvas: canvases are drawn into each other more than 16 deep");
        }
        List<CompletableFuture<Object>> out = new ArrayList<>();
        for (Object s : given) {
            if (s instanceof Map<?, ?> m
                    && m.get("canvas") instanceof List<?> spec
                    && spec.size() == 5
                    && spec.get(2) instanceof List<?> pieces
                    && spec.get(3) instanceof List<?> innerSources
                    && spec.get(4) instanceof List<?> innerBlobs) {
                int w = ((Number) spec.get(0)).intValue();
                int h = ((Number) spec.get(1)).intValue();
                List<Object> ops = ops(pieces);
                List<byte[]> blobs = blobs(innerBlobs);
                @SuppressWarnings("unchecked")
                List<Object> inner = (List<Object>) innerSources;
                List<CompletableFuture<Object>> nested = sources(call, inner, depth + 1);
                out.add(
                        CompletableFuture.allOf(nested.toArray(CompletableFuture[]::new))
                                .thenApply(
                                        ignored -> {
                                            List<Object> r = new ArrayList<>();
                                            for (CompletableFuture<Object> f : nested) {
                                                r.add(f.join());
                                            }
                                            return new CanvasRenderer.Nested(w, h, ops, r, blobs);
                                        }));
            } else {
                out.add(media.resolve(call, s, MediaType.IMAGE).thenApply(d -> (Object) d));
            }
        }
        return out;
    }

    /** The recording from its JSON pieces, refused past the operation cap. */
    private List<Object> ops(List<?> pieces) {
        StringBuilder json = new StringBuilder();
        for (Object p : pieces) {
            if (!(p instanceof String piece)) {
                throw new MediaException(
                        MediaException.Code.INVALID_ARGUMENT,
                        "canvas: the recording is not well-formed");
            }
            json.append(piece);
        }
        List<Object> ops = OpsJson.parse(json.toString());
        if (ops.size() > limits.maxCanvasOps()) {
            throw opsLimit(ops.size());
        }
        return ops;
    }

    private static List<byte[]> blobs(List<?> given) {
        List<byte[]> out = new ArrayList<>();
        for (Object b : given) {
            if (!(b instanceof byte[] bytes)) {
                throw new MediaException(
                        MediaException.Code.INVALID_ARGUMENT,
                        "canvas: putImageData data must be bytes");
            }
            out.add(bytes);
        }
        return out;
    }

    private BridgeException opsLimit(int n) {
        return new MediaException(
                MediaException.Code.LIMIT,
                "canvas: "
                        + n
                        + " operations recorded; the limit is "
                        + limits.maxCanvasOps()
                        + " per canvas");
    }
}
