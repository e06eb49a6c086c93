package dev.sandjar.packs.internal.docx;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import dev.sandjar.packs.internal.office.Ooxml;
import dev.sandjar.packs.internal.zip.SafeZip;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.xml.sax.Attributes;
import org.xml.sax.helpers.DefaultHandler;

/**
 * The {@code docx} host module, declared by {@code @sandjar/docx}: a Word document's text out (its
 * paragraphs with their styles, table rows as tab-separated cells) and a simple document in. Like
 * {@code xlsx}, a streaming reader on {@link Ooxml} rather than Apache POI, for the same reasons:
 * the zip-bomb and XML hardening apply to every part, and the jar stays lighter. Caps: the file at
 * most {@link HostLimits#MAX_BYTES}; what {@link Ooxml} caps; the text at most {@link
 * HostLimits#MAX_TEXT_CHARS} characters, read or written; at most {@link #MAX_PARAGRAPHS}
 * paragraphs written.
 */
public final class DocxModule {
    static final String ID = "docx";
    static final String PACKAGE = "@sandjar/docx";

    static final int MAX_PARAGRAPHS = 100_000;
    static final Set<String> STYLES = Set.of("Normal", "Title", "Heading1", "Heading2", "Heading3");

    private static final String W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
    private static final String HEAD =
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";

    private DocxModule() {}

    public static HostModule create() {
        return HostModule.builder(ID, PACKAGE)
                .description("Word documents: text and paragraphs out, a simple document in")
                .export(
                        Operation.builder("read")
                                .param(Param.bytes("docx").maxLength(HostLimits.MAX_BYTES))
                                .handler(DocxModule::read)
                                .build())
                .export(
                        Operation.builder("write")
                                .param(Param.any("content"))
                                .handler(DocxModule::write)
                                .build())
                .build();
    }

    private static Object read(OperationCall call) {
        byte[] docx = call.bytes(0);
        return HostWork.submit(
                call,
                w -> {
                    SafeZip pkg = Ooxml.open(docx, w.where());
                    String main = "word/document.xml";
                    for (String t : Ooxml.relationships(pkg, "_rels/.rels", "", w).values()) {
                        if (t.endsWith(".xml") && t.contains("document") && pkg.find(t) != null) {
                            main = t;
                        }
                    }
                    Body body = new Body(w);
                    if (!Ooxml.parse(pkg, main, body, w)) {
                        throw Ooxml.malformed(w.where(), "not a Word document (no " + main + ")");
                    }
                    List<String> texts = new ArrayList<>();
                    for (Object p : body.paragraphs) {
                        texts.add((String) ((Map<?, ?>) p).get("text"));
                    }
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("text", String.join("\n", texts));
                    out.put("paragraphs", body.paragraphs);
                    return out;
                });
    }

    /** Paragraphs in document order; a table row is one paragraph of tab-separated cells. */
    private static final class Body extends DefaultHandler {
        final List<Object> paragraphs = new ArrayList<>();
        private final HostWork.Work w;
        private final StringBuilder text = new StringBuilder();
        private final List<String> cells = new ArrayList<>();
        private final StringBuilder cell = new StringBuilder();
        private String style;
        private boolean inText;
        private int tableDepth;
        private long chars;

        Body(HostWork.Work w) {
            this.w = w;
        }

        @Override
        public void startElement(String uri, String l, String q, Attributes a) {
            switch (q) {
                case "w:p" -> {
                    text.setLength(0);
                    style = null;
                }
                case "w:pStyle" -> style = a.getValue("w:val");
                case "w:t" -> inText = true;
                case "w:tab" -> text.append('\t');
                case "w:br", "w:cr" -> text.append('\n');
                case "w:tbl" -> tableDepth++;
                case "w:tr" -> cells.clear();
                case "w:tc" -> cell.setLength(0);
                default -> {}
            }
        }

        @Override
        public void endElement(String uri, String l, String q) throws Ooxml.Stop {
            try {
                switch (q) {
                    case "w:t" -> inText = false;
                    case "w:p" -> {
                        if (tableDepth > 0) {
                            if (cell.length() > 0 && text.length() > 0) {
                                cell.append(' ');
                            }
                            cell.append(text);
                        } else {
                            add(text.toString(), style);
                        }
                    }
                    case "w:tc" -> cells.add(cell.toString().replace('\t', ' '));
                    case "w:tr" -> {
                        if (tableDepth == 1) {
                            add(String.join("\t", cells), "TableRow");
                        }
                    }
                    case "w:tbl" -> tableDepth--;
                    default -> {}
                }
            } catch (BridgeException e) {
                throw new Ooxml.Stop(e);
            }
        }

        private void add(String t, String s) {
            w.check();
            chars += t.length() + 1;
            if (chars > HostLimits.MAX_TEXT_CHARS) {
                throw new BridgeException(
                        "RangeError",
                        "OUTPUT_TOO_LARGE",
                        w.where()
                                + ": the text is longer than "
                                + HostLimits.MAX_TEXT_CHARS
                                + " characters");
            }
            w.output(t.length() + 16L);
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("text", t);
            p.put("style", s == null ? "Normal" : s);
            paragraphs.add(p);
        }

        @Override
        public void characters(char[] ch, int start, int length) {
            if (inText) {
                text.append(ch, start, length);
            }
        }
    }

    private static Object write(OperationCall call) {
        Object content = call.arg(0);
        List<String[]> paragraphs = new ArrayList<>();
        long chars = 0;
        if (content instanceof String s) {
            for (String line : s.split("\r\n|\r|\n", -1)) {
                paragraphs.add(new String[] {line, "Normal"});
            }
            chars = s.length();
        } else if (content instanceof List<?> list && list.size() <= MAX_PARAGRAPHS) {
            for (int i = 0; i < list.size(); i++) {
                Object p = list.get(i);
                if (p instanceof String s) {
                    paragraphs.add(new String[] {s, "Normal"});
                    chars += s.length();
                } else if (p instanceof Map<?, ?> m
                        && m.get("text") instanceof String s
                        && (m.get("style") == null || STYLES.contains(m.get("style")))
                        && m.keySet().stream()
                                .allMatch(k -> k.equals("text") || k.equals("style"))) {
                    paragraphs.add(
                            new String[] {
                                s, m.get("style") == null ? "Normal" : (String) m.get("style")
                            });
                    chars += s.length();
                } else {
                    throw HostWork.invalid(
                            call.where(),
                            "paragraph "
                                    + (i + 1)
                                    + " must be a string or { text, style } with style one of "
                                    + String.join(", ", new java.util.TreeSet<>(STYLES)));
                }
            }
        } else {
            throw HostWork.invalid(
                    call.where(),
                    "content must be a string or an array of at most "
                            + MAX_PARAGRAPHS
                            + " paragraphs");
        }
        if (chars > HostLimits.MAX_TEXT_CHARS || paragraphs.size() > MAX_PARAGRAPHS) {
            throw HostWork.tooLarge(
                    call.where(),
                    "content has "
                            + chars
                            + " characters in "
                            + paragraphs.size()
                            + " paragraphs; at most "
                            + HostLimits.MAX_TEXT_CHARS
                            + " and "
                            + MAX_PARAGRAPHS);
        }
        return HostWork.submit(call, w -> Ooxml.write(parts(paragraphs, w), w));
    }

    private static Map<String, String> parts(List<String[]> paragraphs, HostWork.Work w) {
        StringBuilder doc =
                new StringBuilder(HEAD).append("<w:document xmlns:w=\"" + W + "\"><w:body>");
        for (String[] p : paragraphs) {
            w.check();
            doc.append("<w:p>");
            if (!p[1].equals("Normal")) {
                doc.append("<w:pPr><w:pStyle w:val=\"").append(p[1]).append("\"/></w:pPr>");
            }
            String[] lines = p[0].split("\n", -1);
            doc.append("<w:r>");
            for (int i = 0; i < lines.length; i++) {
                if (i > 0) {
                    doc.append("<w:br/>");
                }
                String[] tabs = lines[i].split("\t", -1);
                for (int t = 0; t < tabs.length; t++) {
                    if (t > 0) {
                        doc.append("<w:tab/>");
                    }
                    if (!tabs[t].isEmpty()) {
                        doc.append("<w:t xml:space=\"preserve\">")
                                .append(Ooxml.escape(tabs[t]))
                                .append("</w:t>");
                    }
                }
            }
            doc.append("</w:r></w:p>");
        }
        doc.append(
                "<w:sectPr><w:pgSz w:w=\"11906\" w:h=\"16838\"/><w:pgMar w:top=\"1440\""
                        + " w:right=\"1440\" w:bottom=\"1440\" w:left=\"1440\" w:header=\"708\""
                        + " w:footer=\"708\" w:gutter=\"0\"/></w:sectPr></w:body></w:document>");
        String rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
        String pkgRel = "http://schemas.openxmlformats.org/package/2006/relationships";
        Map<String, String> parts = new LinkedHashMap<>();
        parts.put(
                "[Content_Types].xml",
                HEAD
                        + "<Types"
                        + " xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"><Default"
                        + " Extension=\"rels\""
                        + " ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/><Default"
                        + " Extension=\"xml\" ContentType=\"application/xml\"/><Override"
                        + " PartName=\"/word/document.xml\""
                        + " ContentType=\"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml\"/><Override"
                        + " PartName=\"/word/styles.xml\""
                        + " ContentType=\"application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml\"/>"
                        + "</Types>");
        parts.put(
                "_rels/.rels",
                HEAD
                        + "<Relationships xmlns=\""
                        + pkgRel
                        + "\"><Relationship Id=\"rId1\" Type=\""
                        + rel
                        + "/officeDocument\" Target=\"word/document.xml\"/></Relationships>");
        parts.put(
                "word/_rels/document.xml.rels",
                HEAD
                        + "<Relationships xmlns=\""
                        + pkgRel
                        + "\"><Relationship Id=\"rId1\" Type=\""
                        + rel
                        + "/styles\" Target=\"styles.xml\"/></Relationships>");
        parts.put("word/document.xml", doc.toString());
        parts.put("word/styles.xml", styles());
        return parts;
    }

    private static String styles() {
        StringBuilder s =
                new StringBuilder(HEAD)
                        .append("<w:styles xmlns:w=\"" + W + "\">")
                        .append(
                                "<w:style w:type=\"paragraph\" w:default=\"1\""
                                    + " w:styleId=\"Normal\"><w:name w:val=\"Normal\"/><w:rPr><w:sz"
                                    + " w:val=\"22\"/></w:rPr></w:style>");
        String[][] headings = {
            {"Title", "56"}, {"Heading1", "32"}, {"Heading2", "28"}, {"Heading3", "24"}
        };
        for (String[] h : headings) {
            s.append("<w:style w:type=\"paragraph\" w:styleId=\"")
                    .append(h[0])
                    .append("\"><w:name w:val=\"")
                    .append(h[0].startsWith("Heading") ? "heading " + h[0].substring(7) : "Title")
                    .append(
                            "\"/><w:basedOn w:val=\"Normal\"/><w:next"
                                + " w:val=\"Normal\"/><w:pPr><w:keepNext/><w:spacing"
                                + " w:before=\"240\" w:after=\"120\"/></w:pPr><w:rPr><w:b/><w:sz"
                                + " w:val=\"")
                    .append(h[1])
                    .append("\"/></w:rPr></w:style>");
        }
        return s.append("</w:styles>").toString();
    }
}
