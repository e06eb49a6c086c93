package dev.sandjar.bridges.image;

import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.bridges.internal.ImageCodec;
import dev.sandjar.bridges.media.Media;
import dev.sandjar.bridges.media.MediaData;
import dev.sandjar.bridges.media.MediaException;
import dev.sandjar.bridges.media.MediaLimits;
import dev.sandjar.bridges.media.MediaRun;
import dev.sandjar.bridges.media.MediaType;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import java.awt.AlphaComposite;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The guest's {@code image} object over ImageIO and Java2D: {@code info}, {@code stats}, {@code
 * decode}, {@code blank}, {@code pad}, {@code grid}, {@code resize}, {@code crop}, {@code rotate},
 * {@code flip}, {@code adjust}, {@code composite}, {@code convert} and {@code bytes}. Inputs are
 * refs, handles or bytes (read through {@link Media#resolve}); transforms return {@code
 * sandbox://media/} handles of the run's {@link MediaRun}. Reads PNG, JPEG, GIF (first frame), BMP
 * and WebP; writes PNG, JPEG, GIF and BMP. Every decode passes the header check of {@link
 * ImageCodec}; every result passes the same size caps. See {@code docs/media.md}.
 */
public final class Images {
    // Wrapped once: the template cache keys on the guest source, so every run must hand it the same
    // String (its hash kept, equal by identity), not a new concatenation of a few KiB.
    private static final String GUEST =
            Media.guestSource(GuestScripts.load(Images.class, "image.js"));

    private static final Set<String> OUTPUT = Set.of("format", "quality", "background");
    private static final Color WHITE = Color.WHITE;
    private static final Color CLEAR = new Color(0, 0, 0, 0);

    private final Media media;
    private final MediaLimits limits;
    private final Bridge bridge;

    private Images(Media media) {
        this.media = media;
        this.limits = media.limits();
        Param input = Param.any("input");
        Param options = Param.object("options").maxLength(32).optional();
        this.bridge =
                Bridge.builder("image")
                        .guest(GUEST)
                        .operation(op("info", this::info, input))
                        .operation(op("stats", this::stats, input))
                        .operation(op("decode", this::decode, input))
                        .operation(op("bytes", this::bytes, input))
                        .operation(
                                op(
                                        "blank",
                                        this::blank,
                                        Param.integer("width"),
                                        Param.integer("height"),
                                        options))
                        .operation(op("pad", this::pad, input, options))
                        .operation(
                                op(
                                        "grid",
                                        this::grid,
                                        Param.array("inputs").maxLength(1024),
                                        options))
                        .operation(op("resize", this::resize, input, options))
                        .operation(op("crop", this::crop, input, options))
                        .operation(
                                op("rotate", this::rotate, input, Param.number("degrees"), options))
                        .operation(
                                op(
                                        "flip",
                                        this::flip,
                                        input,
                                        Param.string("direction").maxLength(16),
                                        options))
                        .operation(op("adjust", this::adjust, input, options))
                        .operation(
                                op(
                                        "composite",
                                        this::composite,
                                        input,
                                        Param.any("overlay"),
                                        options))
                        .operation(op("convert", this::convert, input, options))
                        .build();
    }

    /** The image bridge over {@code media}'s limits, resolvers and per-run handles. */
    public static Bridge bridge(Media media) {
        return new Images(media).bridge;
    }

    private static Operation op(String name, Operation.Handler handler, Param... params) {
        Operation.Builder b = Operation.builder(name);
        for (Param p : params) {
            b.param(p);
        }
        return b.handler(handler).build();
    }

    // ---- reading ----

    private Object info(OperationCall call) {
        return media.resolve(call, call.arg(0), MediaType.IMAGE)
                .thenCompose(
                        d ->
                                media.run(call.session())
                                        .work(
                                                call.where(),
                                                () -> {
                                                    ImageCodec.Header h =
                                                            ImageCodec.header(call.where(), d);
                                                    Map<String, Object> out = new LinkedHashMap<>();
                                                    out.put("width", (long) h.width());
                                                    out.put("height", (long) h.height());
                                                    out.put("format", h.format());
                                                    out.put("mimeType", d.mimeType());
                                                    out.put("size", (long) d.size());
                                                    return out;
                                                }));
    }

    private Object stats(OperationCall call) {
        return decoded(
                call,
                call.arg(0),
                img -> {
                    int w = img.getWidth();
                    int h = img.getHeight();
                    long n = (long) w * h;
                    long[] sum = new long[4];
                    double[] sq = new double[4];
                    int[] min = {255, 255, 255, 255};
                    int[] max = new int[4];
                    int[] row = new int[w];
                    for (int y = 0; y < h; y++) {
                        img.getRGB(0, y, w, 1, row, 0, w);
                        for (int p : row) {
                            int[] c = {(p >> 16) & 255, (p >> 8) & 255, p & 255, (p >>> 24)};
                            for (int i = 0; i < 4; i++) {
                                sum[i] += c[i];
                                sq[i] += (double) c[i] * c[i];
                                min[i] = Math.min(min[i], c[i]);
                                max[i] = Math.max(max[i], c[i]);
                            }
                        }
                    }
                    Map<String, Object> channels = new LinkedHashMap<>();
                    String[] names = {"r", "g", "b", "a"};
                    for (int i = 0; i < 4; i++) {
                        double mean = (double) sum[i] / n;
                        Map<String, Object> c = new LinkedHashMap<>();
                        c.put("mean", mean);
                        c.put("min", (long) min[i]);
                        c.put("max", (long) max[i]);
                        c.put("stdev", Math.sqrt(Math.max(0, sq[i] / n - mean * mean)));
                        channels.put(names[i], c);
                    }
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("width", (long) w);
                    out.put("height", (long) h);
                    out.put("channels", channels);
                    out.put("opaque", min[3] == 255);
                    return out;
                });
    }

    private Object decode(OperationCall call) {
        return decoded(
                call,
                call.arg(0),
                img -> {
                    int w = img.getWidth();
                    int h = img.getHeight();
                    long size = 4L * w * h;
                    if (size > limits.maxInputBytes()) {
                        throw new MediaException(
                                MediaException.Code.TOO_LARGE,
                                call.where()
                                        + ": "
                                        + w
                                        + " x "
                                        + h
                                        + " RGBA is "
                                        + size
                                        + " bytes; the limit is "
                                        + limits.maxInputBytes()
                                        + " bytes per result");
                    }
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("width", (long) w);
                    out.put("height", (long) h);
                    out.put("data", rgba(img, 0, 0, w, h));
                    return out;
                });
    }

    /** Non-premultiplied RGBA bytes of a rectangle, as ImageData holds them. */
    static byte[] rgba(BufferedImage img, int x0, int y0, int w, int h) {
        byte[] data = new byte[4 * w * h];
        int[] row = new int[w];
        int i = 0;
        for (int y = 0; y < h; y++) {
            img.getRGB(x0, y0 + y, w, 1, row, 0, w);
            for (int p : row) {
                data[i++] = (byte) (p >> 16);
                data[i++] = (byte) (p >> 8);
                data[i++] = (byte) p;
                data[i++] = (byte) (p >>> 24);
            }
        }
        return data;
    }

    private Object bytes(OperationCall call) {
        return media.resolve(call, call.arg(0), MediaType.IMAGE).thenApply(MediaData::bytes);
    }

    // ---- transforms ----

    private Object blank(OperationCall call) {
        ImageOptions o = options(call, 2, "color");
        Color color = o.color("color", CLEAR);
        long w = call.integer(0, 0);
        long h = call.integer(1, 0);
        return media.run(call.session())
                .work(
                        call.where(),
                        () -> {
                            BufferedImage img = ImageCodec.blank(call.where(), w, h, limits);
                            fill(img, color);
                            return encode(call, o, img, "png");
                        })
                .thenApply(d -> media.run(call.session()).store(call.where(), d));
    }

    private Object pad(OperationCall call) {
        ImageOptions o = options(call, 1, "top", "right", "bottom", "left", "color");
        long max = limits.maxEdge();
        long top = o.integer("top", 0, 0, max);
        long right = o.integer("right", 0, 0, max);
        long bottom = o.integer("bottom", 0, 0, max);
        long left = o.integer("left", 0, 0, max);
        Color color = o.color("color", CLEAR);
        return transform(
                call,
                o,
                img -> {
                    BufferedImage out =
                            ImageCodec.blank(
                                    call.where(),
                                    img.getWidth() + left + right,
                                    img.getHeight() + top + bottom,
                                    limits);
                    fill(out, color);
                    draw(out, img, (int) left, (int) top);
                    return out;
                });
    }

    private Object grid(OperationCall call) {
        ImageOptions o =
                options(call, 1, "columns", "gap", "background", "cellWidth", "cellHeight");
        List<Object> inputs = call.array(0);
        if (inputs.isEmpty()) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT, call.where() + ": inputs is empty");
        }
        int n = inputs.size();
        long columns = o.integer("columns", (long) Math.ceil(Math.sqrt(n)), 1, n);
        long gap = o.integer("gap", 0, 0, limits.maxEdge());
        Color background = o.color("background", CLEAR);
        List<CompletableFuture<MediaData>> all = new ArrayList<>();
        for (Object in : inputs) {
            all.add(media.resolve(call, in, MediaType.IMAGE));
        }
        MediaRun run = media.run(call.session());
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                .thenCompose(
                        ignored ->
                                run.work(
                                        call.where(),
                                        hc -> {
                                            // Sizes from the headers first: the output and every
                                            // decoded input are bounded before a pixel is decoded.
                                            int cw = 0;
                                            int ch = 0;
                                            long decodedBytes = 0;
                                            for (CompletableFuture<MediaData> f : all) {
                                                ImageCodec.Header head =
                                                        ImageCodec.header(call.where(), f.join());
                                                ImageCodec.checkSize(
                                                        call.where(),
                                                        head.width(),
                                                        head.height(),
                                                        limits);
                                                cw = Math.max(cw, head.width());
                                                ch = Math.max(ch, head.height());
                                                decodedBytes += 4L * head.width() * head.height();
                                            }
                                            long cellW =
                                                    o.integer("cellWidth", cw, 1, limits.maxEdge());
                                            long cellH =
                                                    o.integer(
                                                            "cellHeight", ch, 1, limits.maxEdge());
                                            long rows = (n + columns - 1) / columns;
                                            long outW = columns * cellW + (columns - 1) * gap;
                                            long outH = rows * cellH + (rows - 1) * gap;
                                            ImageCodec.checkSize(call.where(), outW, outH, limits);
                                            hostMemory(call, decodedBytes + 4L * outW * outH);
                                            List<BufferedImage> images = new ArrayList<>();
                                            for (CompletableFuture<MediaData> f : all) {
                                                hc.check();
                                                images.add(
                                                        ImageCodec.decode(
                                                                call.where(), f.join(), limits));
                                            }
                                            BufferedImage out =
                                                    ImageCodec.blank(
                                                            call.where(), outW, outH, limits);
                                            fill(out, background);
                                            for (int i = 0; i < n; i++) {
                                                BufferedImage img = images.get(i);
                                                long cx = (i % columns) * (cellW + gap);
                                                long cy = (i / columns) * (cellH + gap);
                                                // Each image centred in its cell, scaled down to
                                                // fit.
                                                double scale =
                                                        Math.min(
                                                                1,
                                                                Math.min(
                                                                        (double) cellW
                                                                                / img.getWidth(),
                                                                        (double) cellH
                                                                                / img.getHeight()));
                                                int w =
                                                        (int)
                                                                Math.max(
                                                                        1,
                                                                        Math.round(
                                                                                img.getWidth()
                                                                                        * scale));
                                                int h =
                                                        (int)
                                                                Math.max(
                                                                        1,
                                                                        Math.round(
                                                                                img.getHeight()
                                                                                        * scale));
                                                Graphics2D g = out.createGraphics();
                                                try {
                                                    quality(g);
                                                    g.drawImage(
                                                            img,
                                                            (int) (cx + (cellW - w) / 2),
                                                            (int) (cy + (cellH - h) / 2),
                                                            w,
                                                            h,
                                                            null);
                                                } finally {
                                                    g.dispose();
                                                }
                                            }
                                            return encode(call, o, out, "png");
                                        }))
                .thenApply(d -> run.store(call.where(), d));
    }

    private Object resize(OperationCall call) {
        ImageOptions o = options(call, 1, "width", "height", "fit", "color");
        long max = limits.maxEdge();
        if (!o.has("width") && !o.has("height")) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    call.where() + ": give width, height or both");
        }
        long width = o.integer("width", 0, 1, max);
        long height = o.integer("height", 0, 1, max);
        String fit = o.choice("fit", List.of("fill", "contain", "cover", "inside"), "fill");
        Color color = o.color("color", CLEAR);
        return transform(
                call,
                o,
                img -> {
                    int iw = img.getWidth();
                    int ih = img.getHeight();
                    long w = width;
                    long h = height;
                    if (w == 0) {
                        w = Math.max(1, Math.round((double) iw * h / ih));
                    } else if (h == 0) {
                        h = Math.max(1, Math.round((double) ih * w / iw));
                    }
                    ImageCodec.checkSize(call.where(), w, h, limits);
                    double sx = (double) w / iw;
                    double sy = (double) h / ih;
                    if (fit.equals("fill")) {
                        return scaled(img, (int) w, (int) h, 0, 0, (int) w, (int) h, CLEAR);
                    }
                    // inside and contain fit the whole image in; cover fills the box and crops.
                    double s = fit.equals("cover") ? Math.max(sx, sy) : Math.min(sx, sy);
                    int dw = (int) Math.max(1, Math.round(iw * s));
                    int dh = (int) Math.max(1, Math.round(ih * s));
                    if (fit.equals("inside")) {
                        return scaled(img, dw, dh, 0, 0, dw, dh, CLEAR);
                    }
                    Color pad = fit.equals("contain") ? color : CLEAR;
                    return scaled(
                            img,
                            (int) w,
                            (int) h,
                            (int) (w - dw) / 2,
                            (int) (h - dh) / 2,
                            dw,
                            dh,
                            pad);
                });
    }

    private static BufferedImage scaled(
            BufferedImage img, int w, int h, int x, int y, int dw, int dh, Color background) {
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        fill(out, background);
        Graphics2D g = out.createGraphics();
        try {
            quality(g);
            g.drawImage(img, x, y, dw, dh, null);
        } finally {
            g.dispose();
        }
        return out;
    }

    private Object crop(OperationCall call) {
        ImageOptions o = options(call, 1, "x", "y", "width", "height");
        long max = limits.maxEdge();
        long x = o.integer("x", 0, 0, max);
        long y = o.integer("y", 0, 0, max);
        if (!o.has("width") || !o.has("height")) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    call.where() + ": crop needs width and height");
        }
        long w = o.integer("width", 1, 1, max);
        long h = o.integer("height", 1, 1, max);
        return transform(
                call,
                o,
                img -> {
                    if (x + w > img.getWidth() || y + h > img.getHeight()) {
                        throw new MediaException(
                                MediaException.Code.INVALID_ARGUMENT,
                                call.where()
                                        + ": the rectangle "
                                        + x
                                        + ","
                                        + y
                                        + " "
                                        + w
                                        + " x "
                                        + h
                                        + " is outside the "
                                        + img.getWidth()
                                        + " x "
                                        + img.getHeight()
                                        + " image");
                    }
                    BufferedImage out =
                            new BufferedImage((int) w, (int) h, BufferedImage.TYPE_INT_ARGB);
                    draw(out, img.getSubimage((int) x, (int) y, (int) w, (int) h), 0, 0);
                    return out;
                });
    }

    private Object rotate(OperationCall call) {
        ImageOptions o = options(call, 2, "background");
        double degrees = call.number(1, 0);
        Color background = o.color("background", CLEAR);
        double turn = ((degrees % 360) + 360) % 360;
        return transform(
                call,
                o,
                img -> {
                    int w = img.getWidth();
                    int h = img.getHeight();
                    if (turn % 90 == 0) {
                        int quarter = (int) (turn / 90);
                        int ow = quarter % 2 == 0 ? w : h;
                        int oh = quarter % 2 == 0 ? h : w;
                        BufferedImage out = new BufferedImage(ow, oh, BufferedImage.TYPE_INT_ARGB);
                        for (int y = 0; y < h; y++) {
                            for (int x = 0; x < w; x++) {
                                int p = img.getRGB(x, y);
                                switch (quarter) {
                                    case 0 -> out.setRGB(x, y, p);
                                    case 1 -> out.setRGB(h - 1 - y, x, p);
                                    case 2 -> out.setRGB(w - 1 - x, h - 1 - y, p);
                                    default -> out.setRGB(y, w - 1 - x, p);
                                }
                            }
                        }
                        return out;
                    }
                    double r = Math.toRadians(turn);
                    double cos = Math.abs(Math.cos(r));
                    double sin = Math.abs(Math.sin(r));
                    long ow = (long) Math.ceil(w * cos + h * sin);
                    long oh = (long) Math.ceil(w * sin + h * cos);
                    BufferedImage out = ImageCodec.blank(call.where(), ow, oh, limits);
                    fill(out, background);
                    Graphics2D g = out.createGraphics();
                    try {
                        quality(g);
                        AffineTransform t = new AffineTransform();
                        t.translate(ow / 2.0, oh / 2.0);
                        t.rotate(r);
                        t.translate(-w / 2.0, -h / 2.0);
                        g.drawImage(img, t, null);
                    } finally {
                        g.dispose();
                    }
                    return out;
                });
    }

    private Object flip(OperationCall call) {
        ImageOptions o = options(call, 2);
        String direction = call.string(1);
        if (!List.of("horizontal", "vertical", "both").contains(direction)) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    call.where()
                            + ": direction must be 'horizontal', 'vertical' or 'both', got '"
                            + direction
                            + "'");
        }
        boolean hz = !direction.equals("vertical");
        boolean vt = !direction.equals("horizontal");
        return transform(
                call,
                o,
                img -> {
                    int w = img.getWidth();
                    int h = img.getHeight();
                    BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
                    for (int y = 0; y < h; y++) {
                        for (int x = 0; x < w; x++) {
                            out.setRGB(hz ? w - 1 - x : x, vt ? h - 1 - y : y, img.getRGB(x, y));
                        }
                    }
                    return out;
                });
    }

    private Object adjust(OperationCall call) {
        ImageOptions o =
                options(call, 1, "brightness", "contrast", "saturation", "grayscale", "invert");
        double brightness = o.number("brightness", 1, 0, 10);
        double contrast = o.number("contrast", 1, 0, 10);
        double saturation = o.number("saturation", 1, 0, 10);
        boolean gray = o.bool("grayscale");
        boolean invert = o.bool("invert");
        return transform(
                call,
                o,
                img -> {
                    int w = img.getWidth();
                    int h = img.getHeight();
                    BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
                    int[] row = new int[w];
                    for (int y = 0; y < h; y++) {
                        img.getRGB(0, y, w, 1, row, 0, w);
                        for (int x = 0; x < w; x++) {
                            int p = row[x];
                            double r = (p >> 16) & 255;
                            double g = (p >> 8) & 255;
                            double b = p & 255;
                            r = ((r * brightness) - 128) * contrast + 128;
                            g = ((g * brightness) - 128) * contrast + 128;
                            b = ((b * brightness) - 128) * contrast + 128;
                            double s = gray ? 0 : saturation;
                            double luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
                            r = luma + (r - luma) * s;
                            g = luma + (g - luma) * s;
                            b = luma + (b - luma) * s;
                            int ir = clamp(r);
                            int ig = clamp(g);
                            int ib = clamp(b);
                            if (invert) {
                                ir = 255 - ir;
                                ig = 255 - ig;
                                ib = 255 - ib;
                            }
                            row[x] = (p & 0xFF000000) | (ir << 16) | (ig << 8) | ib;
                        }
                        out.setRGB(0, y, w, 1, row, 0, w);
                    }
                    return out;
                });
    }

    private static int clamp(double v) {
        return (int) Math.round(Math.max(0, Math.min(255, v)));
    }

    private Object composite(OperationCall call) {
        ImageOptions o = options(call, 2, "x", "y", "opacity");
        long max = limits.maxEdge();
        long x = o.integer("x", 0, -max, max);
        long y = o.integer("y", 0, -max, max);
        double opacity = o.number("opacity", 1, 0, 1);
        CompletableFuture<MediaData> base = media.resolve(call, call.arg(0), MediaType.IMAGE);
        CompletableFuture<MediaData> over = media.resolve(call, call.arg(1), MediaType.IMAGE);
        MediaRun run = media.run(call.session());
        return base.thenCombine(over, (a, b) -> new MediaData[] {a, b})
                .thenCompose(
                        pair ->
                                run.work(
                                        call.where(),
                                        () -> {
                                            ImageCodec.Header a =
                                                    ImageCodec.header(call.where(), pair[0]);
                                            ImageCodec.Header b =
                                                    ImageCodec.header(call.where(), pair[1]);
                                            ImageCodec.checkSize(
                                                    call.where(), a.width(), a.height(), limits);
                                            ImageCodec.checkSize(
                                                    call.where(), b.width(), b.height(), limits);
                                            hostMemory(
                                                    call,
                                                    4L * a.width() * a.height()
                                                            + 4L * b.width() * b.height());
                                            BufferedImage img =
                                                    ImageCodec.decode(
                                                            call.where(), pair[0], limits);
                                            BufferedImage top =
                                                    ImageCodec.decode(
                                                            call.where(), pair[1], limits);
                                            Graphics2D g = img.createGraphics();
                                            try {
                                                g.setComposite(
                                                        AlphaComposite.getInstance(
                                                                AlphaComposite.SRC_OVER,
                                                                (float) opacity));
                                                g.drawImage(top, (int) x, (int) y, null);
                                            } finally {
                                                g.dispose();
                                            }
                                            return encode(call, o, img, format(pair[0]));
                                        }))
                .thenApply(d -> run.store(call.where(), d));
    }

    private Object convert(OperationCall call) {
        ImageOptions o = options(call, 1);
        if (!o.has("format")) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    call.where() + ": convert needs a format: png, jpeg, gif or bmp");
        }
        return transform(call, o, img -> img);
    }

    // ---- plumbing ----

    /** The options at {@code index}, with the output options every transform takes. */
    private static ImageOptions options(OperationCall call, int index, String... keys) {
        Set<String> known = new java.util.HashSet<>(OUTPUT);
        known.addAll(List.of(keys));
        return ImageOptions.of(call.where(), call.object(index), known);
    }

    /** Decodes the input and computes a value from its pixels, off the engine thread. */
    private Object decoded(OperationCall call, Object input, Function<BufferedImage, Object> f) {
        MediaRun run = media.run(call.session());
        return media.resolve(call, input, MediaType.IMAGE)
                .thenCompose(d -> run.work(call.where(), () -> f.apply(decode(call, d))));
    }

    /** Decodes {@code d} once its header says it fits the run's {@code hostBytes}. */
    private BufferedImage decode(OperationCall call, MediaData d) {
        ImageCodec.Header head = ImageCodec.header(call.where(), d);
        ImageCodec.checkSize(call.where(), head.width(), head.height(), limits);
        hostMemory(call, 4L * head.width() * head.height());
        return ImageCodec.decode(call.where(), d, limits);
    }

    /** Decode, transform, encode (in the input's format unless {@code format} says), store. */
    private Object transform(
            OperationCall call, ImageOptions o, Function<BufferedImage, BufferedImage> f) {
        MediaRun run = media.run(call.session());
        return media.resolve(call, call.arg(0), MediaType.IMAGE)
                .thenCompose(
                        d ->
                                run.work(
                                        call.where(),
                                        () -> {
                                            BufferedImage out = f.apply(decode(call, d));
                                            return encode(call, o, out, format(d));
                                        }))
                .thenApply(d -> run.store(call.where(), d));
    }

    /**
     * Refuses work whose images would take more than the run's {@code hostBytes} of host memory
     * together ({@code TOO_LARGE}), before any of it is allocated.
     */
    private static void hostMemory(OperationCall call, long bytes) {
        long max = call.session().limits().hostBytes();
        if (bytes > max) {
            throw new MediaException(
                    MediaException.Code.TOO_LARGE,
                    call.where()
                            + ": the images take "
                            + bytes
                            + " bytes decoded; a host call may take at most "
                            + max
                            + " bytes (hostBytes)");
        }
    }

    /** The input's format when this host writes it, else png. */
    private static String format(MediaData d) {
        String f = ImageCodec.writableFormat(d.mimeType());
        return f == null ? "png" : f;
    }

    private static MediaData encode(
            OperationCall call, ImageOptions o, BufferedImage img, String fallback) {
        String given = o.string("format");
        String format = given == null ? fallback : ImageCodec.writableFormat(given);
        if (format == null) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    call.where()
                            + ": cannot write '"
                            + given
                            + "'; the formats are png, jpeg, gif, bmp");
        }
        double quality = o.number("quality", -1, 0, 1);
        return ImageCodec.encode(call.where(), img, format, quality, o.color("background", WHITE));
    }

    private static void fill(BufferedImage img, Color color) {
        if (color.getAlpha() == 0) {
            return;
        }
        Graphics2D g = img.createGraphics();
        try {
            g.setComposite(AlphaComposite.Src);
            g.setColor(color);
            g.fillRect(0, 0, img.getWidth(), img.getHeight());
        } finally {
            g.dispose();
        }
    }

    private static void draw(BufferedImage onto, BufferedImage img, int x, int y) {
        Graphics2D g = onto.createGraphics();
        try {
            g.drawImage(img, x, y, null);
        } finally {
            g.dispose();
        }
    }

    private static void quality(Graphics2D g) {
        g.setRenderingHint(
                RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        g.setRenderingHint(RenderingHints.KEY_RENDERING, RenderingHints.VALUE_RENDER_QUALITY);
    }
}
