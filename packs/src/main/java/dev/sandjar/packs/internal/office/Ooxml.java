package dev.sandjar.packs.internal.office;

import dev.sandjar.host.BridgeException;
import dev.sandjar.packs.internal.HostWork;
import dev.sandjar.packs.internal.xml.SafeXml;
import dev.sandjar.packs.internal.zip.SafeZip;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Office Open XML packages (xlsx, docx) read and written without a document model: the package is a
 * {@link SafeZip} (names, overlaps, at most {@link #MAX_PARTS} parts, at most {@link #MAX_INFLATED}
 * bytes actually inflated, no part inflating more than {@link #MAX_RATIO} times its compressed size
 * once past 1 MiB) and each part is streamed through the hardened SAX parser ({@link
 * SafeXml#parser()}: no DOCTYPE, no external entities). Public only for the sibling {@code
 * internal} modules; not API.
 */
public final class Ooxml {
    public static final int MAX_PARTS = 10_000;
    public static final long MAX_INFLATED = 100L << 20;
    public static final int MAX_RATIO = 200;

    private Ooxml() {}

    public static SafeZip open(byte[] pkg, String where) {
        return SafeZip.open(pkg, where, MAX_PARTS, MAX_INFLATED, MAX_RATIO);
    }

    /** A bound or a refusal a handler hit, carried out of the parser. */
    public static final class Stop extends SAXException {
        private static final long serialVersionUID = 1L;
        public final transient BridgeException error;

        public Stop(BridgeException error) {
            super(error.getMessage());
            this.error = error;
        }
    }

    /** Streams part {@code name} through {@code handler}; false when the package lacks it. */
    public static boolean parse(SafeZip pkg, String name, DefaultHandler handler, HostWork.Work w) {
        SafeZip.Entry e = pkg.find(name);
        if (e == null) {
            return false;
        }
        byte[] xml = pkg.read(e, w);
        try {
            InputSource in = new InputSource(new ByteArrayInputStream(xml));
            in.setSystemId("urn:sandjar:" + name);
            SafeXml.parser().parse(in, handler);
        } catch (Stop s) {
            throw s.error;
        } catch (SAXParseException x) {
            String cap = SafeXml.capHit(x);
            if (cap != null) {
                throw HostWork.tooLarge(w.where(), name + ": " + cap);
            }
            throw malformed(
                    w.where(),
                    name
                            + " line "
                            + x.getLineNumber()
                            + ": "
                            + (String.valueOf(x.getMessage()).contains("DOCTYPE")
                                    ? "a DOCTYPE is not allowed"
                                    : x.getMessage()));
        } catch (SAXException x) {
            throw malformed(w.where(), name + ": " + x.getMessage());
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
        return true;
    }

    public static BridgeException malformed(String where, String message) {
        return new BridgeException("OfficeError", "OFFICE_MALFORMED", where + ": " + message);
    }

    /** A package of {@code parts} (name to XML text), deflated, with fixed timestamps. */
    public static byte[] write(Map<String, String> parts, HostWork.Work w) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out, StandardCharsets.UTF_8)) {
            for (Map.Entry<String, String> p : parts.entrySet()) {
                w.check();
                ZipEntry e = new ZipEntry(p.getKey());
                e.setTime(315532800000L);
                zip.putNextEntry(e);
                zip.write(p.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        w.output(out.size());
        return out.toByteArray();
    }

    /**
     * {@code s} escaped for XML text and attribute values; characters XML 1.0 cannot carry (C0
     * controls other than tab and line breaks, lone surrogates) are dropped.
     */
    public static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
                continue;
            }
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r')
                    || Character.isSurrogate(c)
                    || c == 0xFFFE
                    || c == 0xFFFF) {
                continue;
            }
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\r' -> b.append("&#13;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** The relationship targets of a {@code .rels} part: id to the part's name in the package. */
    public static Map<String, String> relationships(
            SafeZip pkg, String relsPart, String baseDir, HostWork.Work w) {
        Map<String, String> out = new java.util.HashMap<>();
        parse(
                pkg,
                relsPart,
                new DefaultHandler() {
                    @Override
                    public void startElement(
                            String uri, String local, String qName, org.xml.sax.Attributes a) {
                        if (qName.endsWith("Relationship") && a.getValue("Id") != null) {
                            String target = a.getValue("Target");
                            if (target != null && !"External".equals(a.getValue("TargetMode"))) {
                                out.put(a.getValue("Id"), resolve(baseDir, target));
                            }
                        }
                    }
                },
                w);
        return out;
    }

    /** A relationship target against its source's folder, as a package part name. */
    static String resolve(String baseDir, String target) {
        String path = target.startsWith("/") ? target.substring(1) : baseDir + target;
        java.util.Deque<String> segs = new java.util.ArrayDeque<>();
        for (String seg : path.split("/")) {
            if (seg.equals("..")) {
                if (!segs.isEmpty()) {
                    segs.removeLast();
                }
            } else if (!seg.isEmpty() && !seg.equals(".")) {
                segs.addLast(seg);
            }
        }
        return String.join("/", segs);
    }

    /** The local part of a prefixed XML name: {@code w:t} to {@code t}. */
    public static String local(String qName) {
        int colon = qName.indexOf(':');
        return colon < 0 ? qName : qName.substring(colon + 1);
    }
}
