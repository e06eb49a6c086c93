package dev.sandjar.bridges.canvas;

import dev.sandjar.bridges.internal.CssColor;
import dev.sandjar.bridges.internal.ImageCodec;
import dev.sandjar.bridges.media.MediaData;
import dev.sandjar.bridges.media.MediaException;
import dev.sandjar.bridges.media.MediaLimits;
import dev.sandjar.host.HostCall;
import java.awt.AlphaComposite;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Composite;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.LinearGradientPaint;
import java.awt.MultipleGradientPaint;
import java.awt.Paint;
import java.awt.RadialGradientPaint;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.font.FontRenderContext;
import java.awt.font.GlyphVector;
import java.awt.geom.AffineTransform;
import java.awt.geom.Arc2D;
import java.awt.geom.Area;
import java.awt.geom.NoninvertibleTransformException;
import java.awt.geom.Path2D;
import java.awt.geom.Point2D;
import java.awt.geom.Rectangle2D;
import java.awt.geom.RoundRectangle2D;
import java.awt.image.BufferedImage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * Replays a canvas recording (see canvas.js) on a Java2D {@link Graphics2D} over a {@code
 * TYPE_INT_ARGB} image, antialiased. Paths are kept in device space, each point transformed by the
 * transform in force when it was added, as the Canvas 2D model has it; fills and strokes draw them
 * back in user space so line widths and gradients follow the current transform. Unknown operations
 * and invalid values are ignored, as a browser ignores them.
 */
final class CanvasRenderer {
    /** A nested canvas drawn with drawImage: its size, recording and sources. */
    record Nested(
            int width, int height, List<Object> ops, List<Object> sources, List<byte[]> blobs) {}

    private static final Map<String, Integer> COMPOSITES =
            Map.of(
                    "source-over", AlphaComposite.SRC_OVER,
                    "copy", AlphaComposite.SRC,
                    "destination-over", AlphaComposite.DST_OVER,
                    "source-in", AlphaComposite.SRC_IN,
                    "source-out", AlphaComposite.SRC_OUT,
                    "source-atop", AlphaComposite.SRC_ATOP,
                    "destination-in", AlphaComposite.DST_IN,
                    "destination-out", AlphaComposite.DST_OUT,
                    "destination-atop", AlphaComposite.DST_ATOP,
                    "xor", AlphaComposite.XOR);

    /** Dashes one stroke may draw. */
    static final long MAX_DASH_SEGMENTS = 1_000_000;

    private final String where;
    private final MediaLimits limits;
    private final BufferedImage image;
    private final Graphics2D g;
    private final List<Object> sources;
    private final List<byte[]> blobs;
    private final List<BufferedImage> decoded = new ArrayList<>();
    private final HostCall call;

    private State state = new State();
    private final Deque<State> stack = new ArrayDeque<>();
    private Path2D.Double path = new Path2D.Double();

    /** Everything save() keeps. */
    private static final class State implements Cloneable {
        AffineTransform transform = new AffineTransform();
        Paint fill = Color.BLACK;
        Paint stroke = Color.BLACK;
        float lineWidth = 1;
        int cap = BasicStroke.CAP_BUTT;
        int join = BasicStroke.JOIN_MITER;
        float miter = 10;
        float[] dash;
        float dashOffset;
        Font font = Fonts.DEFAULT;
        String align = "start";
        String baseline = "alphabetic";
        float alpha = 1;
        int composite = AlphaComposite.SRC_OVER;
        Shape clip;
        boolean smoothing = true;

        State copy() {
            try {
                State s = (State) clone();
                s.transform = new AffineTransform(transform);
                return s;
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /**
     * @param sources per drawImage source index: a {@link MediaData} or a {@link Nested} canvas
     * @param blobs per putImageData index: its RGBA bytes
     */
    CanvasRenderer(
            String where,
            int width,
            int height,
            List<Object> sources,
            List<byte[]> blobs,
            MediaLimits limits,
            HostCall call) {
        this.where = where;
        this.limits = limits;
        this.call = call;
        ImageCodec.checkSize(where, width, height, limits);
        this.image = new BufferedImage(width, height, BufferedImage.TYPE_INT_ARGB);
        this.g = image.createGraphics();
        this.sources = sources;
        this.blobs = blobs;
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(
                RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setRenderingHint(
                RenderingHints.KEY_FRACTIONALMETRICS, RenderingHints.VALUE_FRACTIONALMETRICS_ON);
        g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
        for (int i = 0; i < sources.size(); i++) {
            decoded.add(null);
        }
    }

    /** Replays {@code ops} and returns the image (the renderer is used up). */
    BufferedImage render(List<Object> ops) {
        try {
            for (Object o : ops) {
                call.check(); // between operations: one that runs away ends with its worker
                if (o instanceof List<?> op
                        && !op.isEmpty()
                        && op.get(0) instanceof String name
                        && (name.equals("set") || finite(op))) {
                    apply(name, op);
                }
            }
            return image;
        } finally {
            g.dispose();
        }
    }

    private void apply(String name, List<?> op) {
        switch (name) {
            case "save" -> stack.push(state.copy());
            case "restore" -> {
                if (!stack.isEmpty()) {
                    state = stack.pop();
                }
            }
            case "translate" -> state.transform.translate(d(op, 1), d(op, 2));
            case "rotate" -> state.transform.rotate(d(op, 1));
            case "scale" -> state.transform.scale(d(op, 1), d(op, 2));
            case "transform" ->
                    state.transform.concatenate(
                            new AffineTransform(
                                    d(op, 1), d(op, 2), d(op, 3), d(op, 4), d(op, 5), d(op, 6)));
            case "setTransform" ->
                    state.transform =
                            new AffineTransform(
                                    d(op, 1), d(op, 2), d(op, 3), d(op, 4), d(op, 5), d(op, 6));
            case "beginPath" -> path = new Path2D.Double();
            case "closePath" -> {
                if (path.getCurrentPoint() != null) {
                    path.closePath();
                }
            }
            case "moveTo" -> {
                Point2D p = point(d(op, 1), d(op, 2));
                path.moveTo(p.getX(), p.getY());
            }
            case "lineTo" -> {
                Point2D p = point(d(op, 1), d(op, 2));
                if (path.getCurrentPoint() == null) {
                    path.moveTo(p.getX(), p.getY());
                } else {
                    path.lineTo(p.getX(), p.getY());
                }
            }
            case "quadraticCurveTo" -> {
                Point2D c = point(d(op, 1), d(op, 2));
                Point2D p = point(d(op, 3), d(op, 4));
                ensureStart(c);
                path.quadTo(c.getX(), c.getY(), p.getX(), p.getY());
            }
            case "bezierCurveTo" -> {
                Point2D c1 = point(d(op, 1), d(op, 2));
                Point2D c2 = point(d(op, 3), d(op, 4));
                Point2D p = point(d(op, 5), d(op, 6));
                ensureStart(c1);
                path.curveTo(c1.getX(), c1.getY(), c2.getX(), c2.getY(), p.getX(), p.getY());
            }
            case "arc" ->
                    ellipse(
                            d(op, 1), d(op, 2), d(op, 3), d(op, 3), 0, d(op, 4), d(op, 5),
                            b(op, 6));
            case "ellipse" ->
                    ellipse(
                            d(op, 1), d(op, 2), d(op, 3), d(op, 4), d(op, 5), d(op, 6), d(op, 7),
                            b(op, 8));
            case "arcTo" -> arcTo(d(op, 1), d(op, 2), d(op, 3), d(op, 4), d(op, 5));
            case "rect" -> {
                double x = d(op, 1);
                double y = d(op, 2);
                double w = d(op, 3);
                double h = d(op, 4);
                Point2D a = point(x, y);
                path.moveTo(a.getX(), a.getY());
                Point2D p = point(x + w, y);
                path.lineTo(p.getX(), p.getY());
                p = point(x + w, y + h);
                path.lineTo(p.getX(), p.getY());
                p = point(x, y + h);
                path.lineTo(p.getX(), p.getY());
                path.closePath();
                path.moveTo(a.getX(), a.getY());
            }
            case "roundRect" -> {
                double r = Math.max(0, d(op, 5));
                Shape s =
                        new RoundRectangle2D.Double(
                                d(op, 1), d(op, 2), d(op, 3), d(op, 4), 2 * r, 2 * r);
                path.append(state.transform.createTransformedShape(s), false);
            }
            case "fill" -> {
                path.setWindingRule(
                        "evenodd".equals(op.get(1)) ? Path2D.WIND_EVEN_ODD : Path2D.WIND_NON_ZERO);
                fillDevice(path, state.fill);
            }
            case "stroke" -> strokeDevice(path);
            case "clip" -> {
                Path2D.Double p = new Path2D.Double(path);
                p.setWindingRule(
                        "evenodd".equals(op.get(1)) ? Path2D.WIND_EVEN_ODD : Path2D.WIND_NON_ZERO);
                Area a = new Area(p);
                if (state.clip != null) {
                    a.intersect(new Area(state.clip));
                }
                state.clip = a;
            }
            case "fillRect" ->
                    fillDevice(state.transform.createTransformedShape(rect(op)), state.fill);
            case "strokeRect" -> strokeDevice(state.transform.createTransformedShape(rect(op)));
            case "clearRect" -> {
                prepare(AffineTransform.getTranslateInstance(0, 0));
                g.setComposite(AlphaComposite.Clear);
                g.fill(state.transform.createTransformedShape(rect(op)));
            }
            case "fillText" -> text(op, true);
            case "strokeText" -> text(op, false);
            case "set" -> set(String.valueOf(op.get(1)), op.get(2));
            case "setLineDash" -> {
                List<?> segs = (List<?>) op.get(1);
                float[] dash = new float[segs.size()];
                boolean any = false;
                for (int i = 0; i < dash.length; i++) {
                    dash[i] = (float) ((Number) segs.get(i)).doubleValue();
                    any |= dash[i] > 0;
                }
                state.dash = dash.length == 0 || !any ? null : dash;
            }
            case "drawImage" -> drawImage(op);
            case "putImageData" -> putImageData(op);
            default -> {
                // An operation this host does not know: ignored, as a browser ignores one.
            }
        }
    }

    private void set(String key, Object v) {
        switch (key) {
            case "fillStyle" -> state.fill = paint(v, state.fill);
            case "strokeStyle" -> state.stroke = paint(v, state.stroke);
            case "lineWidth" -> {
                double w = num(v);
                if (w > 0 && Double.isFinite(w)) {
                    state.lineWidth = (float) w;
                }
            }
            case "lineCap" ->
                    state.cap =
                            switch (String.valueOf(v)) {
                                case "round" -> BasicStroke.CAP_ROUND;
                                case "square" -> BasicStroke.CAP_SQUARE;
                                case "butt" -> BasicStroke.CAP_BUTT;
                                default -> state.cap;
                            };
            case "lineJoin" ->
                    state.join =
                            switch (String.valueOf(v)) {
                                case "round" -> BasicStroke.JOIN_ROUND;
                                case "bevel" -> BasicStroke.JOIN_BEVEL;
                                case "miter" -> BasicStroke.JOIN_MITER;
                                default -> state.join;
                            };
            case "miterLimit" -> {
                double m = num(v);
                if (m >= 1 && Double.isFinite(m)) {
                    state.miter = (float) m;
                }
            }
            case "lineDashOffset" -> state.dashOffset = (float) num(v);
            case "font" -> {
                Font f = Fonts.parse(String.valueOf(v));
                if (f != null) {
                    state.font = f;
                }
            }
            case "textAlign" -> state.align = String.valueOf(v);
            case "textBaseline" -> state.baseline = String.valueOf(v);
            case "globalAlpha" -> {
                double a = num(v);
                if (a >= 0 && a <= 1) {
                    state.alpha = (float) a;
                }
            }
            case "globalCompositeOperation" -> {
                Integer rule = COMPOSITES.get(String.valueOf(v));
                if (rule != null) {
                    state.composite = rule;
                }
            }
            case "imageSmoothingEnabled" -> state.smoothing = Boolean.TRUE.equals(v);
            default -> {
                // not a state this host keeps
            }
        }
    }

    /** A color string or a gradient spec [kind, ...coords, [[offset, color], ...]]. */
    private static Paint paint(Object v, Paint previous) {
        if (v instanceof String s) {
            Color c = CssColor.parse(s);
            return c == null ? previous : c;
        }
        if (v instanceof List<?> spec && !spec.isEmpty()) {
            String kind = String.valueOf(spec.get(0));
            List<?> stops = (List<?>) spec.get(spec.size() - 1);
            return new Gradient(kind, spec.subList(1, spec.size() - 1), stops);
        }
        return previous;
    }

    /** A gradient in user space, made into a Java2D paint when used (under that transform). */
    private record Gradient(String kind, List<?> coords, List<?> stops) implements Paint {
        Paint toPaint(AffineTransform t) {
            int n = stops.size();
            if (n == 0) {
                return new Color(0, 0, 0, 0);
            }
            // Java2D wants strictly increasing fractions from 0 to 1: nudge equal ones apart.
            float[] fractions = new float[n];
            Color[] colors = new Color[n];
            List<Object[]> sorted = new ArrayList<>();
            for (Object s : stops) {
                List<?> p = (List<?>) s;
                Color c = CssColor.parse(String.valueOf(p.get(1)));
                sorted.add(
                        new Object[] {
                            ((Number) p.get(0)).floatValue(), c == null ? new Color(0, 0, 0, 0) : c
                        });
            }
            sorted.sort((a, b) -> Float.compare((Float) a[0], (Float) b[0]));
            float last = -1;
            for (int i = 0; i < n; i++) {
                float f = Math.max((Float) sorted.get(i)[0], last + 1e-6f);
                fractions[i] = Math.min(1, f);
                colors[i] = (Color) sorted.get(i)[1];
                last = fractions[i];
            }
            if (n == 1 || fractions[n - 1] <= fractions[n - 2]) {
                return colors[n - 1];
            }
            double[] c = new double[coords.size()];
            for (int i = 0; i < c.length; i++) {
                c[i] = ((Number) coords.get(i)).doubleValue();
            }
            if (kind.equals("linear")) {
                if (c[0] == c[2] && c[1] == c[3]) {
                    return new Color(0, 0, 0, 0);
                }
                return new LinearGradientPaint(
                        new Point2D.Double(c[0], c[1]),
                        new Point2D.Double(c[2], c[3]),
                        fractions,
                        colors,
                        MultipleGradientPaint.CycleMethod.NO_CYCLE,
                        MultipleGradientPaint.ColorSpaceType.SRGB,
                        t);
            }
            // Radial: Java2D's focus form; the inner circle's radius is not modelled.
            if (c[5] <= 0) {
                return new Color(0, 0, 0, 0);
            }
            return new RadialGradientPaint(
                    new Point2D.Double(c[3], c[4]),
                    (float) c[5],
                    new Point2D.Double(c[0], c[1]),
                    fractions,
                    colors,
                    MultipleGradientPaint.CycleMethod.NO_CYCLE,
                    MultipleGradientPaint.ColorSpaceType.SRGB,
                    t);
        }

        @Override
        public java.awt.PaintContext createContext(
                java.awt.image.ColorModel cm,
                java.awt.Rectangle deviceBounds,
                Rectangle2D userBounds,
                AffineTransform xform,
                RenderingHints hints) {
            throw new UnsupportedOperationException("resolved by toPaint before drawing");
        }

        @Override
        public int getTransparency() {
            return TRANSLUCENT;
        }
    }

    /** Sets up g for drawing with identity transform (device space), clip, composite. */
    private void prepare(AffineTransform t) {
        g.setTransform(new AffineTransform());
        g.setClip(state.clip);
        g.setTransform(t);
        g.setComposite(composite());
    }

    private Composite composite() {
        return AlphaComposite.getInstance(state.composite, state.alpha);
    }

    private Paint devicePaint(Paint p) {
        return p instanceof Gradient gr ? gr.toPaint(state.transform) : p;
    }

    private void fillDevice(Shape deviceShape, Paint paint) {
        prepare(new AffineTransform());
        g.setPaint(devicePaint(paint));
        g.fill(deviceShape);
    }

    private void strokeDevice(Shape deviceShape) {
        AffineTransform inverse;
        try {
            inverse = state.transform.createInverse();
        } catch (NoninvertibleTransformException e) {
            return;
        }
        Shape user = inverse.createTransformedShape(deviceShape);
        if (state.dash != null) {
            checkDashes(user);
        }
        BasicStroke stroke =
                new BasicStroke(
                        state.lineWidth,
                        state.cap,
                        state.join,
                        state.miter,
                        state.dash,
                        state.dashOffset);
        prepare(new AffineTransform());
        g.setPaint(devicePaint(state.stroke));
        g.fill(state.transform.createTransformedShape(stroke.createStrokedShape(user)));
    }

    /**
     * Refuses a dashed stroke that would draw more than {@link #MAX_DASH_SEGMENTS} dashes: Java2D
     * builds every dash of the path as a shape before it fills any, so {@code setLineDash([0.001,
     * 0.001])} on a long arc would take gigabytes. The count is the path's length over the
     * pattern's, from a flattened copy of the path, before anything is drawn.
     */
    private void checkDashes(Shape user) {
        double pattern = 0;
        for (float f : state.dash) {
            pattern += f;
        }
        double length = 0;
        double[] c = new double[6];
        double x = 0;
        double y = 0;
        double sx = 0;
        double sy = 0;
        int steps = 0;
        for (java.awt.geom.PathIterator it = user.getPathIterator(null, 0.5);
                !it.isDone();
                it.next()) {
            if ((++steps & 4095) == 0) {
                call.check();
            }
            switch (it.currentSegment(c)) {
                case java.awt.geom.PathIterator.SEG_MOVETO -> {
                    x = sx = c[0];
                    y = sy = c[1];
                }
                case java.awt.geom.PathIterator.SEG_LINETO -> {
                    length += Math.hypot(c[0] - x, c[1] - y);
                    x = c[0];
                    y = c[1];
                }
                case java.awt.geom.PathIterator.SEG_CLOSE -> {
                    length += Math.hypot(sx - x, sy - y);
                    x = sx;
                    y = sy;
                }
                default -> {}
            }
        }
        double dashes = pattern > 0 ? length / pattern * state.dash.length : 0;
        if (!(dashes <= MAX_DASH_SEGMENTS)) {
            throw new MediaException(
                    MediaException.Code.LIMIT,
                    where
                            + ": a dashed stroke would draw "
                            + (Double.isFinite(dashes) ? String.format("%.0f", dashes) : "endless")
                            + " dashes; the limit is "
                            + MAX_DASH_SEGMENTS
                            + " per stroke");
        }
    }

    private void text(List<?> op, boolean fill) {
        String text = String.valueOf(op.get(1));
        double x = d(op, 2);
        double y = d(op, 3);
        double maxWidth = d(op, 4);
        FontRenderContext frc = new FontRenderContext(null, true, true);
        GlyphVector glyphs = state.font.createGlyphVector(frc, text);
        double width = glyphs.getLogicalBounds().getWidth();
        double squeeze = maxWidth >= 0 && width > maxWidth && width > 0 ? maxWidth / width : 1;
        java.awt.font.LineMetrics lm = state.font.getLineMetrics(text, frc);
        double dx =
                switch (state.align) {
                    case "center" -> -width * squeeze / 2;
                    case "right", "end" -> -width * squeeze;
                    default -> 0;
                };
        double dy =
                switch (state.baseline) {
                    case "top", "hanging" -> lm.getAscent();
                    case "middle" -> (lm.getAscent() - lm.getDescent()) / 2;
                    case "bottom", "ideographic" -> -lm.getDescent();
                    default -> 0;
                };
        AffineTransform at = new AffineTransform();
        at.translate(x + dx, y + dy);
        at.scale(squeeze, 1);
        Shape outline = at.createTransformedShape(glyphs.getOutline());
        Shape device = state.transform.createTransformedShape(outline);
        if (fill) {
            fillDevice(device, state.fill);
        } else {
            strokeDevice(device);
        }
    }

    /** {@code measureText}'s answer for {@code text} in {@code css}'s font. */
    static Map<String, Object> measure(String css, String text) {
        Font f = Fonts.parse(css);
        Font font = f == null ? Fonts.DEFAULT : f;
        FontRenderContext frc = new FontRenderContext(null, true, true);
        GlyphVector glyphs = font.createGlyphVector(frc, text);
        Rectangle2D logical = glyphs.getLogicalBounds();
        Rectangle2D visual = glyphs.getVisualBounds();
        java.awt.font.LineMetrics lm = font.getLineMetrics(text, frc);
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("width", logical.getWidth());
        out.put("actualBoundingBoxLeft", -visual.getMinX());
        out.put("actualBoundingBoxRight", visual.getMaxX());
        out.put("actualBoundingBoxAscent", -visual.getMinY());
        out.put("actualBoundingBoxDescent", visual.getMaxY());
        out.put("fontBoundingBoxAscent", (double) lm.getAscent());
        out.put("fontBoundingBoxDescent", (double) lm.getDescent());
        out.put("font", font.getFontName(java.util.Locale.ROOT));
        return out;
    }

    private void drawImage(List<?> op) {
        int index = (int) d(op, 1);
        if (index < 0 || index >= sources.size()) {
            return;
        }
        BufferedImage src = source(index);
        double sx = 0;
        double sy = 0;
        double sw = src.getWidth();
        double sh = src.getHeight();
        double dx;
        double dy;
        double dw = sw;
        double dh = sh;
        int n = op.size() - 2;
        if (n == 2) {
            dx = d(op, 2);
            dy = d(op, 3);
        } else if (n == 4) {
            dx = d(op, 2);
            dy = d(op, 3);
            dw = d(op, 4);
            dh = d(op, 5);
        } else if (n == 8) {
            sx = d(op, 2);
            sy = d(op, 3);
            sw = d(op, 4);
            sh = d(op, 5);
            dx = d(op, 6);
            dy = d(op, 7);
            dw = d(op, 8);
            dh = d(op, 9);
        } else {
            return;
        }
        if (sw <= 0 || sh <= 0 || dw == 0 || dh == 0) {
            return;
        }
        AffineTransform t = new AffineTransform(state.transform);
        t.translate(dx, dy);
        t.scale(dw / sw, dh / sh);
        t.translate(-sx, -sy);
        prepare(t);
        g.setRenderingHint(
                RenderingHints.KEY_INTERPOLATION,
                state.smoothing
                        ? RenderingHints.VALUE_INTERPOLATION_BILINEAR
                        : RenderingHints.VALUE_INTERPOLATION_NEAREST_NEIGHBOR);
        g.clip(new Rectangle2D.Double(sx, sy, sw, sh));
        g.drawImage(src, 0, 0, null);
    }

    private BufferedImage source(int index) {
        BufferedImage img = decoded.get(index);
        if (img == null) {
            Object s = sources.get(index);
            if (s instanceof MediaData d) {
                img = ImageCodec.decode(where, d, limits);
            } else {
                Nested n = (Nested) s;
                img =
                        new CanvasRenderer(
                                        where,
                                        n.width(),
                                        n.height(),
                                        n.sources(),
                                        n.blobs(),
                                        limits,
                                        call)
                                .render(n.ops());
            }
            decoded.set(index, img);
        }
        return img;
    }

    private void putImageData(List<?> op) {
        int blob = (int) d(op, 1);
        if (blob < 0 || blob >= blobs.size()) {
            return;
        }
        byte[] data = blobs.get(blob);
        int w = (int) d(op, 2);
        int h = (int) d(op, 3);
        int dx = (int) d(op, 4);
        int dy = (int) d(op, 5);
        if (w <= 0 || h <= 0 || (long) w * h * 4 != data.length) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    where + ": putImageData: the data is not " + w + " x " + h + " RGBA");
        }
        for (int y = 0; y < h; y++) {
            int ty = dy + y;
            if (ty < 0 || ty >= image.getHeight()) {
                continue;
            }
            for (int x = 0; x < w; x++) {
                int tx = dx + x;
                if (tx < 0 || tx >= image.getWidth()) {
                    continue;
                }
                int i = 4 * (y * w + x);
                int argb =
                        (data[i + 3] & 255) << 24
                                | (data[i] & 255) << 16
                                | (data[i + 1] & 255) << 8
                                | (data[i + 2] & 255);
                image.setRGB(tx, ty, argb);
            }
        }
    }

    private void ellipse(
            double cx,
            double cy,
            double rx,
            double ry,
            double rotation,
            double start,
            double end,
            boolean ccw) {
        if (rx < 0 || ry < 0) {
            return;
        }
        double sweep = end - start;
        double full = 2 * Math.PI;
        if (!ccw) {
            if (sweep >= full) {
                sweep = full;
            } else {
                sweep = ((sweep % full) + full) % full;
            }
        } else {
            if (-sweep >= full) {
                sweep = -full;
            } else {
                sweep = -((((-sweep) % full) + full) % full);
            }
        }
        // Java2D's angles run counter-clockwise in a y-up sense; canvas angles run clockwise on
        // screen (y down), so the signs flip.
        Arc2D arc =
                new Arc2D.Double(
                        -rx,
                        -ry,
                        2 * rx,
                        2 * ry,
                        -Math.toDegrees(start),
                        -Math.toDegrees(sweep),
                        Arc2D.OPEN);
        AffineTransform t = new AffineTransform(state.transform);
        t.translate(cx, cy);
        t.rotate(rotation);
        Shape s = t.createTransformedShape(arc);
        path.append(s, path.getCurrentPoint() != null);
    }

    private void arcTo(double x1, double y1, double x2, double y2, double r) {
        AffineTransform inverse;
        try {
            inverse = state.transform.createInverse();
        } catch (NoninvertibleTransformException e) {
            return;
        }
        Point2D current = path.getCurrentPoint();
        if (current == null) {
            Point2D p = point(x1, y1);
            path.moveTo(p.getX(), p.getY());
            return;
        }
        Point2D p0 = inverse.transform(current, null);
        double ax = p0.getX() - x1;
        double ay = p0.getY() - y1;
        double bx = x2 - x1;
        double by = y2 - y1;
        double la = Math.hypot(ax, ay);
        double lb = Math.hypot(bx, by);
        double cross = ax * by - ay * bx;
        if (r <= 0 || la == 0 || lb == 0 || Math.abs(cross) < 1e-12) {
            Point2D p = point(x1, y1);
            path.lineTo(p.getX(), p.getY());
            return;
        }
        double angle = Math.acos(Math.max(-1, Math.min(1, (ax * bx + ay * by) / (la * lb))));
        double tangent = r / Math.tan(angle / 2);
        double t0x = x1 + ax / la * tangent;
        double t0y = y1 + ay / la * tangent;
        double t1x = x1 + bx / lb * tangent;
        double t1y = y1 + by / lb * tangent;
        // The centre lies along the bisector, r away from both tangent points.
        double nx = cross > 0 ? ay / la : -ay / la;
        double ny = cross > 0 ? -ax / la : ax / la;
        double cx = t0x - nx * r;
        double cy = t0y - ny * r;
        double start = Math.atan2(t0y - cy, t0x - cx);
        double end = Math.atan2(t1y - cy, t1x - cx);
        Point2D p = point(t0x, t0y);
        path.lineTo(p.getX(), p.getY());
        ellipse(cx, cy, r, r, 0, start, end, cross > 0);
    }

    private void ensureStart(Point2D p) {
        if (path.getCurrentPoint() == null) {
            path.moveTo(p.getX(), p.getY());
        }
    }

    private Point2D point(double x, double y) {
        return state.transform.transform(new Point2D.Double(x, y), null);
    }

    private static Rectangle2D rect(List<?> op) {
        double x = d(op, 1);
        double y = d(op, 2);
        double w = d(op, 3);
        double h = d(op, 4);
        return new Rectangle2D.Double(
                Math.min(x, x + w), Math.min(y, y + h), Math.abs(w), Math.abs(h));
    }

    /** Canvas ignores a call with a non-finite number among its arguments. */
    private static boolean finite(List<?> op) {
        for (Object v : op) {
            if (v == null || (v instanceof Double d && !Double.isFinite(d))) {
                return false;
            }
        }
        return true;
    }

    private static double d(List<?> op, int i) {
        if (i >= op.size()) {
            return Double.NaN;
        }
        return num(op.get(i));
    }

    private static double num(Object v) {
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private static boolean b(List<?> op, int i) {
        return i < op.size() && Boolean.TRUE.equals(op.get(i));
    }
}
