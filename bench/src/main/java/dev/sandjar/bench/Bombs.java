package dev.sandjar.bench;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * The hostile inputs of issue 34's review, as bodies for {@code POST /api/runs}: each asks the host
 * for work that once exhausted its heap or held an engine for minutes. {@code scale} sizes them: 1
 * for the small versions {@code verify} runs, larger under {@code bench/}. Each body returns a
 * string naming the error it met (or {@code "no error"}). At scale 4 and above the bombs have the
 * review's sizes: a PDF of 16 M {@code q} operators (about 31 KB deflated), a PNG whose zTXt chunk
 * inflates to 2.5 GB (about 2.4 MB), a grid of 64 blank 4000 x 4000 images.
 */
public final class Bombs {
    private Bombs() {}

    static final String ATTEMPT =
            "const attempt = async (f) => { try { await f(); return 'no error'; } catch (e) {"
                    + " return `${e.name} ${e.code}`; } };\n";

    /** Name to JSON body, for tenants whose policy has the default capabilities and packs. */
    public static Map<String, String> bodies(int scale) {
        Map<String, String> b = new LinkedHashMap<>();
        b.put(
                "pdf q-bomb",
                body(
                        "import { text } from '@sandjar/pdf';\n"
                                + "return attempt(() => text(inputs.pdf));",
                        "{\"pdf\": "
                                + bytes(qBombPdf(scale >= 4 ? 16_000_000 : 300 * scale))
                                + "}"));
        b.put(
                "png zTXt bomb",
                body(
                        "import { read } from '@sandjar/exif';\n"
                                + "return attempt(() => read(inputs.png));",
                        "{\"png\": "
                                + bytes(zTxtPng(scale >= 4 ? 2_500_000_000L : (8L << 20) * scale))
                                + "}"));
        b.put(
                "image.grid of large blanks",
                body(
                        (scale >= 4
                                        ? "const b = await image.blank(4000, 4000);\n"
                                                + "return attempt(() => image.grid(Array(64)"
                                        : "const b = await image.blank(2000, 2000);\n"
                                                + "return attempt(() => image.grid(Array(16 * "
                                                + scale
                                                + ")")
                                + ".fill(b)));",
                        null));
        b.put(
                "canvas dash bomb",
                body(
                        "const c = createCanvas(400, 400); const ctx = c.getContext('2d');\n"
                                + "ctx.setLineDash([0.001, 0.001]); ctx.beginPath();"
                                + " ctx.arc(200, 200, 100000, 0, 2 * Math.PI); ctx.stroke();\n"
                                + "return attempt(() => c.toBytes());",
                        null));
        b.put(
                "synchronous getImageData after heavy drawing",
                "{\"code\": "
                        + quote(
                                "const c = createCanvas(2000, 2000); const ctx ="
                                        + " c.getContext('2d');\n"
                                        + "ctx.beginPath(); for (let i = 0; i < 3000; i++)"
                                        + " ctx.lineTo((i * 7919) % 2000, (i * 104729) % 2000);"
                                        + " ctx.clip();\n"
                                        + "for (let k = 0; k < 40; k++) { ctx.lineWidth = 50;"
                                        + " ctx.stroke(); }\n"
                                        + "return ctx.getImageData(0, 0, 10, 10).data.length;")
                        + ", \"limits\": {\"timeoutMs\": 1500, \"wallTimeoutMs\": 3000}}");
        b.put(
                "csv parse past hostBytes",
                body(
                                "import { parse } from '@sandjar/csv';\n"
                                        + "return attempt(() => parse('a,b\\n'.repeat(1000000)));",
                                null)
                        .replaceFirst("\\}$", ", \"limits\": {\"hostMemoryMb\": 32}}"));
        return b;
    }

    private static String body(String code, String inputsJson) {
        return "{\"code\": "
                + quote(ATTEMPT + code)
                + (inputsJson == null ? "" : ", \"inputs\": " + inputsJson)
                + "}";
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private static String bytes(byte[] b) {
        return "{\"$sj\": \"bytes\", \"type\": \"Uint8Array\", \"base64\": \""
                + Base64.getEncoder().encodeToString(b)
                + "\"}";
    }

    /**
     * A one-page PDF whose content stream (deflated) saves the graphics state {@code depth} times.
     */
    static byte[] qBombPdf(int depth) {
        Deflater d = new Deflater(9);
        byte[] chunk = "q ".repeat(1 << 16).getBytes(StandardCharsets.ISO_8859_1);
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        byte[] buf = new byte[64 << 10];
        for (long left = 2L * depth; left > 0; left -= chunk.length) {
            d.setInput(chunk, 0, (int) Math.min(left, chunk.length));
            while (!d.needsInput()) {
                z.write(buf, 0, d.deflate(buf));
            }
        }
        d.finish();
        while (!d.finished()) {
            z.write(buf, 0, d.deflate(buf));
        }
        d.end();
        String content = new String(z.toByteArray(), StandardCharsets.ISO_8859_1);
        String[] objects = {
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            "<< /Length "
                    + content.length()
                    + " /Filter /FlateDecode >>\nstream\n"
                    + content
                    + "\nendstream",
        };
        StringBuilder pdf = new StringBuilder("%PDF-1.4\n");
        int[] offsets = new int[objects.length];
        for (int i = 0; i < objects.length; i++) {
            offsets[i] = pdf.length();
            pdf.append(i + 1).append(" 0 obj\n").append(objects[i]).append("\nendobj\n");
        }
        int xref = pdf.length();
        pdf.append("xref\n0 ").append(objects.length + 1).append("\n0000000000 65535 f \n");
        for (int o : offsets) {
            pdf.append(String.format("%010d 00000 n \n", o));
        }
        pdf.append("trailer\n<< /Size ")
                .append(objects.length + 1)
                .append(" /Root 1 0 R >>\nstartxref\n")
                .append(xref)
                .append("\n%%EOF\n");
        return pdf.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A 1 x 1 PNG with a zTXt chunk whose text inflates to {@code inflated} bytes. */
    static byte[] zTxtPng(long inflated) {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        text.writeBytes("Comment\0\0".getBytes(StandardCharsets.ISO_8859_1));
        Deflater d = new Deflater(9);
        byte[] zeros = new byte[1 << 20];
        byte[] buf = new byte[64 << 10];
        for (long left = inflated; left > 0; left -= zeros.length) {
            d.setInput(zeros, 0, (int) Math.min(left, zeros.length));
            while (!d.needsInput()) {
                text.write(buf, 0, d.deflate(buf));
            }
        }
        d.finish();
        while (!d.finished()) {
            text.write(buf, 0, d.deflate(buf));
        }
        d.end();
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        png.writeBytes(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
        chunk(png, "IHDR", ByteBuffer.allocate(13).putInt(1).putInt(1).put((byte) 8).array());
        chunk(png, "zTXt", text.toByteArray());
        chunk(png, "IEND", new byte[0]);
        return png.toByteArray();
    }

    private static void chunk(ByteArrayOutputStream out, String type, byte[] data) {
        byte[] t = type.getBytes(StandardCharsets.ISO_8859_1);
        CRC32 crc = new CRC32();
        crc.update(t);
        crc.update(data);
        out.writeBytes(ByteBuffer.allocate(4).putInt(data.length).array());
        out.writeBytes(t);
        out.writeBytes(data);
        out.writeBytes(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }
}
