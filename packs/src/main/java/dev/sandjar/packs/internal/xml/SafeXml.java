package dev.sandjar.packs.internal.xml;

import dev.sandjar.host.BridgeException;
import dev.sandjar.packs.internal.HostWork;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import org.xml.sax.Attributes;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * The JDK's SAX parser, hardened: a DOCTYPE is refused outright (so no internal or external entity,
 * no entity expansion, no DTD fetch), external entities, external DTDs and XInclude are off, secure
 * processing is on and every external access property is empty. The document is built into plain
 * objects under caps: element nesting at most {@link #MAX_DEPTH} (an element is two levels of the
 * value the guest receives, which the transport caps at 32), at most {@link #MAX_NODES} elements
 * and text nodes, at most {@link #MAX_ATTRIBUTES} attributes per element, names at most {@link
 * #MAX_NAME} characters.
 *
 * <p>The last two are the JDK parser's own limits ({@code jdk.xml.elementAttributeLimit}, {@code
 * jdk.xml.maxXMLNameLimit}), set on every parser to these values rather than left to defaults a
 * system property may change, so the scanner stops at the cap instead of reading on. Their errors
 * are the JDK's text ({@code JAXP00010002: ... the limit imposed by the JDK}); {@link
 * #capHit(SAXParseException)} turns them into the cap they are.
 */
public final class SafeXml {
    static final int MAX_DEPTH = 15;
    static final int MAX_NODES = 500_000;
    public static final int MAX_ATTRIBUTES = 1_000;
    public static final int MAX_NAME = 1_000;

    private static final SAXParserFactory FACTORY = factory();

    private SafeXml() {}

    private static SAXParserFactory factory() {
        try {
            SAXParserFactory f = SAXParserFactory.newDefaultInstance();
            f.setNamespaceAware(false);
            f.setValidating(false);
            f.setXIncludeAware(false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            return f;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("the JDK's SAX parser cannot be hardened", e);
        }
    }

    static Map<String, Object> parse(String xml, boolean trim, HostWork.Work w) {
        return parse(new InputSource(new StringReader(xml)), trim, w);
    }

    static Map<String, Object> parse(byte[] xml, boolean trim, HostWork.Work w) {
        return parse(new InputSource(new ByteArrayInputStream(xml)), trim, w);
    }

    /**
     * A new parser with the hardening above: a DOCTYPE fails the parse with a {@link
     * SAXParseException} whose message names it.
     */
    public static SAXParser parser() {
        try {
            SAXParser parser;
            synchronized (FACTORY) {
                parser = FACTORY.newSAXParser();
            }
            parser.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            parser.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            parser.setProperty("jdk.xml.elementAttributeLimit", String.valueOf(MAX_ATTRIBUTES));
            parser.setProperty("jdk.xml.maxXMLNameLimit", String.valueOf(MAX_NAME));
            return parser;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("the JDK's SAX parser cannot be hardened", e);
        }
    }

    private static Map<String, Object> parse(InputSource in, boolean trim, HostWork.Work w) {
        Builder b = new Builder(trim, w);
        try {
            SAXParser parser = parser();
            in.setSystemId("urn:sandjar:input");
            parser.parse(in, b);
        } catch (Refused r) {
            throw r.error;
        } catch (SAXParseException e) {
            String cap = capHit(e);
            if (cap != null) {
                throw HostWork.tooLarge(w.where(), cap);
            }
            String msg = e.getMessage() == null ? "not well-formed" : e.getMessage();
            if (msg.contains("DOCTYPE")) {
                throw new BridgeException(
                        "XmlError",
                        "XML_DOCTYPE",
                        w.where() + ": a DOCTYPE is not allowed (no DTDs, no entity declarations)");
            }
            throw XmlModule.malformed(
                    w.where(),
                    "line " + e.getLineNumber() + ", column " + e.getColumnNumber() + ": " + msg);
        } catch (SAXException e) {
            throw XmlModule.malformed(w.where(), String.valueOf(e.getMessage()));
        } catch (IOException e) {
            throw XmlModule.malformed(w.where(), "unreadable: " + e.getMessage());
        }
        if (b.root == null) {
            throw XmlModule.malformed(w.where(), "no root element");
        }
        return b.root;
    }

    /**
     * The cap a parse error is the JDK's limit for, in our words with where it was hit ({@code an
     * element has more than 1000 attributes (line 3, column 17)}), or null for any other error. The
     * JDK's messages are localized; their {@code JAXP000100nn} codes are not.
     */
    public static String capHit(SAXParseException e) {
        String m = String.valueOf(e.getMessage());
        String cap;
        if (m.startsWith("JAXP00010002")) {
            cap = "an element has more than " + MAX_ATTRIBUTES + " attributes";
        } else if (m.startsWith("JAXP00010005")) {
            cap = "a name is longer than " + MAX_NAME + " characters";
        } else {
            return null;
        }
        return cap + " (line " + e.getLineNumber() + ", column " + e.getColumnNumber() + ")";
    }

    /** A bound hit while building, carried out of the parser. */
    private static final class Refused extends SAXException {
        private static final long serialVersionUID = 1L;
        final transient BridgeException error;

        Refused(BridgeException error) {
            super(error.getMessage());
            this.error = error;
        }
    }

    private static final class Builder extends DefaultHandler {
        private final boolean trim;
        private final HostWork.Work w;
        private final Deque<List<Object>> open = new ArrayDeque<>();
        private final StringBuilder text = new StringBuilder();
        private Map<String, Object> root;
        private int nodes;

        Builder(boolean trim, HostWork.Work w) {
            this.trim = trim;
            this.w = w;
        }

        private void count(long size) throws Refused {
            if (++nodes > MAX_NODES) {
                throw new Refused(
                        HostWork.tooLarge(
                                w.where(), "more than " + MAX_NODES + " elements and texts"));
            }
            try {
                w.check();
                w.output(size + 16);
            } catch (BridgeException e) {
                throw new Refused(e);
            }
        }

        private void flushText() throws Refused {
            if (text.length() == 0 || open.isEmpty()) {
                text.setLength(0);
                return;
            }
            String t = trim ? text.toString().strip() : text.toString();
            text.setLength(0);
            if (!t.isEmpty()) {
                count(t.length());
                open.peek().add(t);
            }
        }

        @Override
        public void startElement(String uri, String localName, String qName, Attributes atts)
                throws SAXException {
            flushText();
            if (open.size() >= MAX_DEPTH) {
                throw new Refused(
                        HostWork.tooLarge(
                                w.where(),
                                "elements are nested deeper than " + MAX_DEPTH + " levels"));
            }
            if (atts.getLength() > MAX_ATTRIBUTES) { // the JDK's limit (parser()) stops it first
                throw new Refused(
                        HostWork.tooLarge(
                                w.where(),
                                "<" + qName + "> has more than " + MAX_ATTRIBUTES + " attributes"));
            }
            Map<String, Object> attributes = new LinkedHashMap<>();
            long size = qName.length();
            for (int i = 0; i < atts.getLength(); i++) {
                attributes.put(atts.getQName(i), atts.getValue(i));
                size += atts.getQName(i).length() + atts.getValue(i).length();
            }
            count(size);
            Map<String, Object> element = new LinkedHashMap<>();
            element.put("name", qName);
            element.put("attributes", attributes);
            List<Object> children = new ArrayList<>();
            element.put("children", children);
            if (open.isEmpty()) {
                root = element;
            } else {
                open.peek().add(element);
            }
            open.push(children);
        }

        @Override
        public void endElement(String uri, String localName, String qName) throws SAXException {
            flushText();
            open.pop();
        }

        @Override
        public void characters(char[] ch, int start, int length) throws SAXException {
            text.append(ch, start, length);
        }

        @Override
        public InputSource resolveEntity(String publicId, String systemId) throws SAXException {
            // Unreachable with DOCTYPEs refused; if a parser ever asks, it gets nothing.
            throw new Refused(
                    new BridgeException(
                            "XmlError",
                            "XML_DOCTYPE",
                            w.where() + ": external entities are not allowed"));
        }
    }
}
