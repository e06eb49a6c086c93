package dev.sandjar.packs.internal.xml;

import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Writes {@code { name, attributes, children }} objects as XML: names are checked against XML's
 * name rule, text and attribute values escaped, characters XML cannot hold refused, and the text
 * capped at {@link HostLimits#MAX_TEXT_CHARS}.
 */
final class XmlWriter {
    private static final Pattern NAME =
            Pattern.compile("[\\p{L}_][\\p{L}\\p{N}._\\-]*(:[\\p{L}_][\\p{L}\\p{N}._\\-]*)?");

    private final HostWork.Work w;
    private final int indent;
    private final StringBuilder out = new StringBuilder();

    XmlWriter(HostWork.Work w, int indent) {
        this.w = w;
        this.indent = indent;
    }

    String text() {
        return out.toString();
    }

    void raw(String s) {
        append(s);
    }

    private void append(CharSequence s) {
        if (out.length() + (long) s.length() > HostLimits.MAX_TEXT_CHARS) {
            throw new dev.sandjar.host.BridgeException(
                    "RangeError",
                    "OUTPUT_TOO_LARGE",
                    w.where()
                            + ": the XML is longer than "
                            + HostLimits.MAX_TEXT_CHARS
                            + " characters");
        }
        out.append(s);
    }

    void element(Object value, int depth, String path) {
        w.check();
        if (!(value instanceof Map<?, ?> e)) {
            throw HostWork.invalid(
                    w.where(), path + " must be an element object { name, attributes, children }");
        }
        for (Object key : e.keySet()) {
            if (!List.of("name", "attributes", "children").contains(key)) {
                throw HostWork.invalid(
                        w.where(), path + "." + key + " is not name, attributes or children");
            }
        }
        String name = name(e.get("name"), path + ".name");
        pad(depth);
        append("<" + name);
        Object attrs = e.get("attributes");
        if (attrs != null) {
            if (!(attrs instanceof Map<?, ?> a)) {
                throw HostWork.invalid(w.where(), path + ".attributes must be an object");
            }
            for (Map.Entry<?, ?> at : a.entrySet()) {
                String an = name(at.getKey(), path + ".attributes");
                append(
                        " "
                                + an
                                + "=\""
                                + escape(
                                        scalar(at.getValue(), path + ".attributes." + an),
                                        true,
                                        path)
                                + "\"");
            }
        }
        List<?> children = XmlModule.children(w.where(), e, path);
        if (children.isEmpty()) {
            append("/>");
            return;
        }
        append(">");
        boolean elementsOnly = indent > 0 && children.stream().allMatch(c -> c instanceof Map);
        int i = 0;
        for (Object c : children) {
            String cp = path + ".children[" + i++ + "]";
            if (c instanceof Map) {
                if (elementsOnly) {
                    append("\n");
                }
                element(c, elementsOnly ? depth + 1 : -1, cp);
            } else {
                append(escape(scalar(c, cp), false, cp));
            }
        }
        if (elementsOnly) {
            append("\n");
            pad(depth);
        }
        append("</" + name + ">");
    }

    private void pad(int depth) {
        if (indent > 0 && depth > 0) {
            append(" ".repeat(indent * depth));
        }
    }

    private String name(Object v, String path) {
        if (!(v instanceof String s)
                || s.length() > 256
                || !NAME.matcher(s).matches()
                || s.regionMatches(true, 0, "xml", 0, 3)
                        && !s.startsWith("xml:")
                        && !s.startsWith("xmlns")) {
            throw HostWork.invalid(w.where(), path + " is not an XML name: " + String.valueOf(v));
        }
        return s;
    }

    private String scalar(Object v, String path) {
        if (v instanceof String s) {
            return s;
        }
        if (v instanceof Long || v instanceof Boolean) {
            return v.toString();
        }
        if (v instanceof Double d) {
            return d == Math.rint(d) && Math.abs(d) < 1e15
                    ? Long.toString(d.longValue())
                    : d.toString();
        }
        throw HostWork.invalid(w.where(), path + " must be a string, number or boolean");
    }

    private String escape(String s, boolean attribute, String path) {
        StringBuilder b = new StringBuilder(s.length());
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
                throw HostWork.invalid(
                        w.where(),
                        path
                                + " holds U+"
                                + String.format("%04X", (int) c)
                                + ", which XML 1.0 cannot carry");
            }
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append(attribute ? "&quot;" : "\"");
                case '\r' -> b.append("&#13;");
                case '\n' -> b.append(attribute ? "&#10;" : "\n");
                case '\t' -> b.append(attribute ? "&#9;" : "\t");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
