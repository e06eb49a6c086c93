package dev.sandjar.packs.internal.pdf;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.HostCall;
import dev.sandjar.host.IsolatedTask;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.internal.HostArgs;
import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.contentstream.operator.Operator;
import org.apache.pdfbox.cos.COSBase;
import org.apache.pdfbox.io.MemoryUsageSetting;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDDocumentInformation;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.pdfbox.text.PDFTextStripper;

/**
 * The {@code pdf} host module, declared by {@code @sandjar/pdf}: page count, metadata and text per
 * page read by Apache PDFBox, and simple text documents written by it. Caps: the PDF at most {@link
 * HostLimits#MAX_BYTES}; at most {@link #MAX_PAGES} pages (read or written); PDFBox's buffers at
 * most {@link #MAX_MEMORY} bytes; the pages' content streams at most {@link #MAX_CONTENT} bytes
 * decoded (counted as they decode, so a compressed-stream bomb stops there); the text at most
 * {@link HostLimits#MAX_TEXT_CHARS} characters. The page tree must be a tree ({@link PageTree}).
 */
public final class PdfModule {
    static final String ID = "pdf";
    static final String PACKAGE = "@sandjar/pdf";

    static final int MAX_PAGES = 2_000;
    static final long MAX_MEMORY = 128L << 20;
    static final long MAX_CONTENT = 64L << 20;

    /** Content-stream operators one call reads, over all its pages. */
    static final long MAX_OPERATORS = 4_000_000;

    /**
     * Graphics states a page may save at once ({@code q} without {@code Q}). PDF's own
     * implementation limit is 28 (ISO 32000-1, Annex C); real documents stay far below this.
     */
    static final int MAX_STATE_DEPTH = 256;

    private PdfModule() {}

    public static HostModule create() {
        return HostModule.builder(ID, PACKAGE)
                .description("PDF text per page, page count and metadata; text to PDF (PDFBox)")
                .export(
                        Operation.builder("info")
                                .param(Param.bytes("pdf").maxLength(HostLimits.MAX_BYTES))
                                .handler(PdfModule::info)
                                .build())
                .export(
                        Operation.builder("text")
                                .param(Param.bytes("pdf").maxLength(HostLimits.MAX_BYTES))
                                .param(Param.object("options").optional().maxLength(4))
                                .handler(PdfModule::text)
                                .build())
                .export(
                        Operation.builder("create")
                                .param(Param.any("content"))
                                .param(Param.object("options").optional().maxLength(8))
                                .handler(PdfModule::create)
                                .build())
                .build();
    }

    static PDDocument load(byte[] pdf, String where) {
        try {
            PDDocument doc =
                    Loader.loadPDF(
                            pdf,
                            "",
                            null,
                            null,
                            MemoryUsageSetting.setupMainMemoryOnly(MAX_MEMORY).streamCache);
            int pages = doc.getNumberOfPages();
            if (pages > MAX_PAGES) {
                doc.close();
                throw new BridgeException(
                        "RangeError",
                        "INPUT_TOO_LARGE",
                        where + ": the PDF has " + pages + " pages; at most " + MAX_PAGES);
            }
            String notATree = PageTree.check(doc.getPages().getCOSObject());
            if (notATree != null) {
                doc.close();
                throw new BridgeException(
                        "PdfError", "PDF_MALFORMED", where + ": the PDF's page tree " + notATree);
            }
            return doc;
        } catch (InvalidPasswordException e) {
            throw new BridgeException(
                    "PdfError", "PDF_ENCRYPTED", where + ": the PDF needs a password");
        } catch (IOException e) {
            throw malformed(where, e);
        }
    }

    private static BridgeException malformed(String where, IOException e) {
        String m = String.valueOf(e.getMessage());
        return new BridgeException(
                "PdfError",
                "PDF_MALFORMED",
                where + ": not a readable PDF: " + (m.length() > 200 ? m.substring(0, 200) : m));
    }

    private static Object info(OperationCall call) {
        return HostWork.isolated(call, Task.class, Map.of("op", "info", "pdf", call.bytes(0)));
    }

    /**
     * The module's work on a guest's PDF, run as an {@link IsolatedTask} (docs/sandbox.md, "Host
     * work"): PDFBox over a hostile document runs in a worker process, so a document that makes it
     * run away ends that process instead of the sandbox's heap. Public for the worker; not API.
     */
    public static final class Task implements IsolatedTask {
        public Task() {}

        @Override
        public Object run(Object input, HostCall call) {
            Map<?, ?> in = (Map<?, ?>) input;
            HostWork.Work w = HostWork.Work.of(call);
            byte[] pdf = (byte[]) in.get("pdf");
            return switch ((String) in.get("op")) {
                case "info" -> info(pdf, w);
                case "text" ->
                        text(
                                pdf,
                                (int) (long) (Long) in.get("from"),
                                (int) (long) (Long) in.get("to"),
                                w);
                default -> throw new IllegalArgumentException("no op " + in.get("op"));
            };
        }
    }

    private static Map<String, Object> info(byte[] pdf, HostWork.Work w) {
        try (PDDocument doc = load(pdf, w.where())) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("pages", (long) doc.getNumberOfPages());
            out.put("encrypted", doc.isEncrypted());
            PDDocumentInformation i = doc.getDocumentInformation();
            Map<String, Object> meta = new LinkedHashMap<>();
            put(meta, "title", i.getTitle());
            put(meta, "author", i.getAuthor());
            put(meta, "subject", i.getSubject());
            put(meta, "keywords", i.getKeywords());
            put(meta, "creator", i.getCreator());
            put(meta, "producer", i.getProducer());
            put(meta, "created", date(i.getCreationDate()));
            put(meta, "modified", date(i.getModificationDate()));
            out.put("metadata", meta);
            if (doc.getNumberOfPages() > 0) {
                PDRectangle box = doc.getPage(0).getMediaBox();
                out.put("pageSize", List.of((double) box.getWidth(), (double) box.getHeight()));
            }
            w.output(meta.toString().length());
            return out;
        } catch (IOException e) {
            throw malformed(w.where(), e);
        }
    }

    private static void put(Map<String, Object> m, String k, String v) {
        if (v != null) {
            m.put(k, v.length() > 4096 ? v.substring(0, 4096) : v);
        }
    }

    private static String date(Calendar c) {
        return c == null ? null : c.toInstant().toString();
    }

    private static Object text(OperationCall call) {
        byte[] pdf = call.bytes(0);
        HostArgs.Options o = HostArgs.options(call, 1, "from", "to");
        int from = (int) o.integer("from", 1, 1, MAX_PAGES);
        int to = (int) o.integer("to", MAX_PAGES, 1, MAX_PAGES);
        return HostWork.isolated(
                call,
                Task.class,
                Map.of("op", "text", "pdf", pdf, "from", (long) from, "to", (long) to));
    }

    private static List<Object> text(byte[] pdf, int from, int to, HostWork.Work w) {
        try (PDDocument doc = load(pdf, w.where())) {
            int last = Math.min(to, doc.getNumberOfPages());
            checkContent(doc, from, last, w);
            PDFTextStripper stripper = new CountingStripper(w);
            stripper.setSortByPosition(true);
            List<Object> pages = new ArrayList<>();
            long chars = 0;
            for (int p = from; p <= last; p++) {
                w.check();
                stripper.setStartPage(p);
                stripper.setEndPage(p);
                String text = stripper.getText(doc).strip();
                chars += text.length();
                if (chars > HostLimits.MAX_TEXT_CHARS) {
                    throw new BridgeException(
                            "RangeError",
                            "OUTPUT_TOO_LARGE",
                            w.where()
                                    + ": the text is longer than "
                                    + HostLimits.MAX_TEXT_CHARS
                                    + " characters");
                }
                w.output(text.length());
                pages.add(text);
            }
            return pages;
        } catch (IOException e) {
            throw malformed(w.where(), e);
        }
    }

    /**
     * The text stripper with its content-stream operators counted and its graphics-state nesting
     * bounded, so a small page of millions of operators (or of {@code q} operators, each of which
     * copies the graphics state) stops with a named limit, checking the call's bounds as it goes.
     */
    static final class CountingStripper extends PDFTextStripper {
        private final HostWork.Work w;
        private long operators;

        CountingStripper(HostWork.Work w) {
            this.w = w;
        }

        @Override
        protected void processOperator(Operator operator, List<COSBase> operands)
                throws IOException {
            if (++operators > MAX_OPERATORS) {
                throw new BridgeException(
                        "RangeError",
                        "INPUT_TOO_LARGE",
                        w.where()
                                + ": the pages hold more than "
                                + MAX_OPERATORS
                                + " content operators");
            }
            if ((operators & 1023) == 0) {
                w.check();
            }
            if ("q".equals(operator.getName()) && getGraphicsStackSize() >= MAX_STATE_DEPTH) {
                throw new BridgeException(
                        "RangeError",
                        "INPUT_TOO_LARGE",
                        w.where()
                                + ": a page saves its graphics state (q) more than "
                                + MAX_STATE_DEPTH
                                + " levels deep");
            }
            super.processOperator(operator, operands);
        }
    }

    /** Decodes the pages' content streams once, counting, before the text stripper reads them. */
    private static void checkContent(PDDocument doc, int from, int last, HostWork.Work w)
            throws IOException {
        byte[] buf = new byte[64 << 10];
        long total = 0;
        for (int p = from; p <= last; p++) {
            PDPage page = doc.getPage(p - 1);
            try (InputStream in = page.getContents()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    total += n;
                    w.check();
                    if (total > MAX_CONTENT) {
                        throw new BridgeException(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                w.where()
                                        + ": the pages' content decodes to more than "
                                        + MAX_CONTENT
                                        + " bytes");
                    }
                }
            }
        }
    }

    private static Object create(OperationCall call) {
        Object content = call.arg(0);
        List<String> pages = new ArrayList<>();
        if (content instanceof String s) {
            pages.add(s);
        } else if (content instanceof List<?> list && list.size() <= MAX_PAGES) {
            for (Object p : list) {
                if (!(p instanceof String s)) {
                    throw HostWork.invalid(
                            call.where(), "content must be a string or an array of page strings");
                }
                pages.add(s);
            }
        } else {
            throw HostWork.invalid(
                    call.where(),
                    "content must be a string or an array of at most "
                            + MAX_PAGES
                            + " page strings");
        }
        long chars = pages.stream().mapToLong(String::length).sum();
        if (chars > HostLimits.MAX_TEXT_CHARS) {
            throw HostWork.tooLarge(
                    call.where(),
                    "content is " + chars + " characters; at most " + HostLimits.MAX_TEXT_CHARS);
        }
        HostArgs.Options o = HostArgs.options(call, 1, "title", "author", "fontSize", "pageSize");
        String title = o.string("title", null, 1024);
        String author = o.string("author", null, 1024);
        int fontSize = (int) o.integer("fontSize", 11, 6, 72);
        PDRectangle size =
                o.choice("pageSize", "A4", List.of("A4", "Letter")).equals("A4")
                        ? PDRectangle.A4
                        : PDRectangle.LETTER;
        return HostWork.submit(
                call,
                w -> {
                    try (PDDocument doc =
                            new PDDocument(
                                    MemoryUsageSetting.setupMainMemoryOnly(MAX_MEMORY)
                                            .streamCache)) {
                        new TextLayout(doc, size, fontSize, w).write(pages);
                        PDDocumentInformation info = doc.getDocumentInformation();
                        if (title != null) {
                            info.setTitle(title);
                        }
                        if (author != null) {
                            info.setAuthor(author);
                        }
                        info.setProducer("Sandjar @sandjar/pdf (Apache PDFBox)");
                        ByteArrayOutputStream out = new ByteArrayOutputStream();
                        doc.save(out);
                        w.output(out.size());
                        return out.toByteArray();
                    } catch (IOException e) {
                        throw new BridgeException(
                                "PdfError", "PDF_WRITE", w.where() + ": " + e.getMessage());
                    }
                });
    }

    /** Lays text out in lines of Helvetica, wrapped at spaces, on as many pages as it needs. */
    static final class TextLayout {
        private static final float MARGIN = 56;

        private final PDDocument doc;
        private final PDRectangle size;
        private final int fontSize;
        private final HostWork.Work w;
        private final PDType1Font font = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
        private final Map<Integer, Boolean> encodable = new HashMap<>();
        private PDPageContentStream stream;
        private float y;
        private int pages;

        TextLayout(PDDocument doc, PDRectangle size, int fontSize, HostWork.Work w) {
            this.doc = doc;
            this.size = size;
            this.fontSize = fontSize;
            this.w = w;
        }

        void write(List<String> texts) throws IOException {
            try {
                for (String text : texts) {
                    newPage();
                    for (String paragraph : text.split("\r\n|\r|\n", -1)) {
                        for (String line : wrap(clean(paragraph))) {
                            if (y < MARGIN) {
                                newPage();
                            }
                            stream.beginText();
                            stream.newLineAtOffset(MARGIN, y);
                            stream.showText(line);
                            stream.endText();
                            y -= fontSize * 1.4f;
                        }
                    }
                }
            } finally {
                if (stream != null) {
                    stream.close();
                }
            }
        }

        private void newPage() throws IOException {
            w.check();
            if (++pages > MAX_PAGES) {
                throw new BridgeException(
                        "RangeError",
                        "OUTPUT_TOO_LARGE",
                        w.where() + ": the text needs more than " + MAX_PAGES + " pages");
            }
            if (stream != null) {
                stream.close();
            }
            PDPage page = new PDPage(size);
            doc.addPage(page);
            stream = new PDPageContentStream(doc, page);
            stream.setFont(font, fontSize);
            y = size.getHeight() - MARGIN - fontSize;
        }

        /** The text with characters Helvetica's encoding lacks replaced by '?'. */
        private String clean(String s) {
            StringBuilder b = new StringBuilder(s.length());
            s.codePoints()
                    .forEach(
                            cp -> {
                                boolean ok =
                                        encodable.computeIfAbsent(
                                                cp,
                                                c -> {
                                                    try {
                                                        font.encode(
                                                                new String(Character.toChars(c)));
                                                        return c >= 0x20;
                                                    } catch (IllegalArgumentException
                                                            | IOException e) {
                                                        return false;
                                                    }
                                                });
                                b.append(
                                        ok
                                                ? new String(Character.toChars(cp))
                                                : cp == '\t' ? "    " : "?");
                            });
            return b.toString();
        }

        private List<String> wrap(String paragraph) throws IOException {
            float width = size.getWidth() - 2 * MARGIN;
            List<String> lines = new ArrayList<>();
            StringBuilder line = new StringBuilder();
            for (String word : paragraph.split(" ", -1)) {
                String candidate = line.length() == 0 ? word : line + " " + word;
                if (textWidth(candidate) <= width) {
                    line.setLength(0);
                    line.append(candidate);
                    continue;
                }
                if (line.length() > 0) {
                    lines.add(line.toString());
                    line.setLength(0);
                }
                // A word longer than the line is cut.
                String rest = word;
                while (textWidth(rest) > width) {
                    int cut = rest.length() - 1;
                    while (cut > 1 && textWidth(rest.substring(0, cut)) > width) {
                        cut = Math.max(1, cut * 3 / 4);
                    }
                    lines.add(rest.substring(0, cut));
                    rest = rest.substring(cut);
                }
                line.append(rest);
            }
            lines.add(line.toString());
            return lines;
        }

        private float textWidth(String s) throws IOException {
            return font.getStringWidth(s) / 1000 * fontSize;
        }
    }
}
