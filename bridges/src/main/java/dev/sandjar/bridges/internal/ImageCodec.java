package dev.sandjar.bridges.internal;

import dev.sandjar.bridges.media.MediaData;
import dev.sandjar.bridges.media.MediaException;
import dev.sandjar.bridges.media.MediaLimits;
import dev.sandjar.bridges.media.MediaType;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.ImageInputStream;
import javax.imageio.stream.MemoryCacheImageInputStream;
import javax.imageio.stream.MemoryCacheImageOutputStream;

/**
 * Decoding and encoding for the image and canvas bridges, on ImageIO (plus the WebP reader of
 * TwelveMonkeys). Every decode reads the image's size from its header first and refuses one past
 * the edge or pixel caps before any pixel is decoded, so a tiny file declaring 100,000 x 100,000 (a
 * decompression bomb) costs nothing. Not API.
 */
public final class ImageCodec {
    /** The formats written, by short name, with their MIME types. */
    public static final Map<String, String> WRITABLE =
            Map.of(
                    "png", "image/png",
                    "jpeg", "image/jpeg",
                    "gif", "image/gif",
                    "bmp", "image/bmp");

    private ImageCodec() {}

    /** The size an image's header declares, read without decoding pixels. */
    public record Header(int width, int height, String format) {}

    /** The header of {@code data}; fails {@code UNSUPPORTED} when no reader knows the bytes. */
    public static Header header(String where, MediaData data) {
        try (ImageInputStream in = stream(data.bytes())) {
            ImageReader reader = reader(where, in);
            try {
                return new Header(
                        reader.getWidth(0),
                        reader.getHeight(0),
                        reader.getFormatName().toLowerCase(Locale.ROOT));
            } finally {
                reader.dispose();
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof MediaException m) {
                throw m;
            }
            throw unreadable(where, e);
        }
    }

    /**
     * The first frame of {@code data} as {@code TYPE_INT_ARGB}, after its header passed the caps;
     * fails {@code TOO_LARGE} for a size past them and {@code UNSUPPORTED} for bytes that do not
     * decode.
     */
    public static BufferedImage decode(String where, MediaData data, MediaLimits limits) {
        try (ImageInputStream in = stream(data.bytes())) {
            ImageReader reader = reader(where, in);
            try {
                checkSize(where, reader.getWidth(0), reader.getHeight(0), limits);
                BufferedImage read = reader.read(0);
                return argb(read);
            } finally {
                reader.dispose();
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof MediaException m) {
                throw m;
            }
            throw unreadable(where, e);
        }
    }

    /** Refuses a width or height past {@code maxEdge}, or an area past {@code maxPixels}. */
    public static void checkSize(String where, long width, long height, MediaLimits limits) {
        if (width < 1 || height < 1) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    where + ": an image is at least 1 x 1, got " + width + " x " + height);
        }
        if (width > limits.maxEdge() || height > limits.maxEdge()) {
            throw new MediaException(
                    MediaException.Code.TOO_LARGE,
                    where
                            + ": the image is "
                            + width
                            + " x "
                            + height
                            + "; the limit is "
                            + limits.maxEdge()
                            + " pixels per edge");
        }
        if (width * height > limits.maxPixels()) {
            throw new MediaException(
                    MediaException.Code.TOO_LARGE,
                    where
                            + ": the image is "
                            + width
                            + " x "
                            + height
                            + " = "
                            + width * height
                            + " pixels; the limit is "
                            + limits.maxPixels()
                            + " pixels");
        }
    }

    /** A new transparent {@code TYPE_INT_ARGB} image, after the size caps. */
    public static BufferedImage blank(String where, long width, long height, MediaLimits limits) {
        checkSize(where, width, height, limits);
        return new BufferedImage((int) width, (int) height, BufferedImage.TYPE_INT_ARGB);
    }

    /** {@code image} as {@code TYPE_INT_ARGB} (itself when it already is). */
    public static BufferedImage argb(BufferedImage image) {
        if (image.getType() == BufferedImage.TYPE_INT_ARGB) {
            return image;
        }
        BufferedImage out =
                new BufferedImage(image.getWidth(), image.getHeight(), BufferedImage.TYPE_INT_ARGB);
        Graphics2D g = out.createGraphics();
        try {
            g.drawImage(image, 0, 0, null);
        } finally {
            g.dispose();
        }
        return out;
    }

    /**
     * {@code image} encoded as {@code format} (a key of {@link #WRITABLE}); JPEG and BMP have no
     * alpha, so they are flattened onto {@code background} first. {@code quality} (0 to 1) is
     * JPEG's; negative means the writer's default.
     */
    public static MediaData encode(
            String where, BufferedImage image, String format, double quality, Color background) {
        String mime = WRITABLE.get(format);
        if (mime == null) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT,
                    where + ": cannot write '" + format + "'; the formats are png, jpeg, gif, bmp");
        }
        BufferedImage out = image;
        if (format.equals("jpeg") || format.equals("bmp")) {
            out =
                    new BufferedImage(
                            image.getWidth(), image.getHeight(), BufferedImage.TYPE_INT_RGB);
            Graphics2D g = out.createGraphics();
            try {
                g.setColor(background);
                g.fillRect(0, 0, image.getWidth(), image.getHeight());
                g.drawImage(image, 0, 0, null);
            } finally {
                g.dispose();
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ImageWriter writer = ImageIO.getImageWritersByFormatName(format).next();
        try (MemoryCacheImageOutputStream stream = new MemoryCacheImageOutputStream(bytes)) {
            writer.setOutput(stream);
            ImageWriteParam param = writer.getDefaultWriteParam();
            if (quality >= 0 && param.canWriteCompressed() && format.equals("jpeg")) {
                param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
                param.setCompressionQuality((float) quality);
            }
            writer.write(null, new IIOImage(out, null, null), param);
        } catch (IOException e) {
            throw new IllegalStateException("encoding " + format + " in memory failed", e);
        } finally {
            writer.dispose();
        }
        return new MediaData(MediaType.IMAGE, mime, bytes.toByteArray());
    }

    /** The short name of a writable format for a MIME type or name, or null. */
    public static String writableFormat(String mimeOrName) {
        String s = mimeOrName.toLowerCase(Locale.ROOT);
        if (s.equals("jpg") || s.equals("image/jpg")) {
            return "jpeg";
        }
        for (Map.Entry<String, String> e : WRITABLE.entrySet()) {
            if (e.getKey().equals(s) || e.getValue().equals(s)) {
                return e.getKey();
            }
        }
        return null;
    }

    private static ImageInputStream stream(byte[] bytes) {
        return new MemoryCacheImageInputStream(new ByteArrayInputStream(bytes));
    }

    private static ImageReader reader(String where, ImageInputStream in) {
        Iterator<ImageReader> readers = ImageIO.getImageReaders(in);
        if (!readers.hasNext()) {
            throw new MediaException(
                    MediaException.Code.UNSUPPORTED,
                    where
                            + ": the bytes are not an image this host reads (PNG, JPEG, GIF, BMP,"
                            + " WebP)");
        }
        ImageReader reader = readers.next();
        reader.setInput(in, true, true);
        return reader;
    }

    private static MediaException unreadable(String where, Exception e) {
        return new MediaException(
                MediaException.Code.UNSUPPORTED,
                where + ": the image could not be decoded (" + e.getClass().getSimpleName() + ")",
                e);
    }
}
