package dev.sandjar.packs.internal.html;

import dev.sandjar.packs.internal.HostWork;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;

/**
 * HTML to CommonMark (with GitHub's tables and strikethrough): headings, paragraphs, emphasis,
 * code, links, images, lists, quotes, rules and tables; scripts, styles and forms' machinery are
 * dropped, other elements keep their content. Recursion follows the element tree, which the parser
 * bounded at {@link HtmlModule#MAX_DEPTH}.
 */
final class Markdown {
    private static final Set<String> SKIP =
            Set.of(
                    "script",
                    "style",
                    "noscript",
                    "template",
                    "head",
                    "title",
                    "meta",
                    "link",
                    "iframe",
                    "object",
                    "embed",
                    "svg",
                    "math",
                    "canvas",
                    "button",
                    "select",
                    "input",
                    "textarea",
                    "option");
    private static final Set<String> BLOCKS =
            Set.of(
                    "p",
                    "div",
                    "section",
                    "article",
                    "main",
                    "header",
                    "footer",
                    "nav",
                    "aside",
                    "h1",
                    "h2",
                    "h3",
                    "h4",
                    "h5",
                    "h6",
                    "pre",
                    "blockquote",
                    "ul",
                    "ol",
                    "li",
                    "table",
                    "hr",
                    "figure",
                    "figcaption",
                    "dl",
                    "dt",
                    "dd",
                    "address",
                    "details",
                    "summary",
                    "form",
                    "fieldset",
                    "body",
                    "html",
                    "center");

    private final boolean absolute;
    private final HostWork.Work work;

    Markdown(boolean absolute, HostWork.Work work) {
        this.absolute = absolute;
        this.work = work;
    }

    /** The children of {@code parent} as Markdown blocks separated by blank lines. */
    String blocks(Element parent) {
        return blocks(parent, "\n\n");
    }

    /** The children of {@code parent} as Markdown blocks, joined by {@code separator}. */
    private String blocks(Element parent, String separator) {
        work.check();
        List<String> parts = new ArrayList<>();
        StringBuilder inline = new StringBuilder();
        for (Node child : parent.childNodes()) {
            if (child instanceof Element e && BLOCKS.contains(e.normalName())) {
                flush(inline, parts);
                String b = block(e);
                if (!b.isBlank()) {
                    parts.add(b);
                }
            } else {
                inline(child, inline);
            }
        }
        flush(inline, parts);
        return String.join(separator, parts);
    }

    private void flush(StringBuilder inline, List<String> parts) {
        String p = paragraph(inline);
        if (!p.isEmpty()) {
            parts.add(p);
        }
        inline.setLength(0);
    }

    /** Inline text with whitespace collapsed; {@code \n} marks a hard break. */
    private static String paragraph(CharSequence inline) {
        List<String> lines = new ArrayList<>();
        for (String line : inline.toString().split("\n", -1)) {
            String l = line.replaceAll("[ \\t\\r\\f\\u000b]+", " ").strip();
            if (!l.isEmpty()) {
                lines.add(l);
            }
        }
        return String.join("  \n", lines);
    }

    private String block(Element e) {
        String tag = e.normalName();
        switch (tag) {
            case "h1", "h2", "h3", "h4", "h5", "h6" -> {
                String text = inlineOf(e).replace("  \n", " ");
                return text.isEmpty() ? "" : "#".repeat(tag.charAt(1) - '0') + " " + text;
            }
            case "pre" -> {
                String code = e.wholeText();
                if (code.endsWith("\n")) {
                    code = code.substring(0, code.length() - 1);
                }
                String fence = code.contains("```") ? "~~~" : "```";
                Element inner = e.selectFirst("code[class*=language-]");
                String lang = "";
                if (inner != null) {
                    for (String c : inner.classNames()) {
                        if (c.startsWith("language-") && c.length() < 40) {
                            lang =
                                    c.substring("language-".length())
                                            .replaceAll("[^A-Za-z0-9+#-]", "");
                        }
                    }
                }
                return fence + lang + "\n" + code + "\n" + fence;
            }
            case "blockquote" -> {
                return prefix(blocks(e), "> ", "> ");
            }
            case "ul", "ol" -> {
                return list(e, tag.equals("ol"));
            }
            case "hr" -> {
                return "---";
            }
            case "table" -> {
                return table(e);
            }
            default -> {
                return blocks(e);
            }
        }
    }

    private String list(Element e, boolean ordered) {
        List<String> items = new ArrayList<>();
        int n = 1;
        try {
            n = Integer.parseInt(e.attr("start").strip());
        } catch (NumberFormatException ignored) {
            // no start attribute: count from 1
        }
        for (Element li : e.children()) {
            String marker = ordered ? (n++) + ". " : "- ";
            // A tight list: an item's paragraph and its nested list on consecutive lines.
            String body = li.normalName().equals("li") ? blocks(li, "\n") : block(li);
            items.add(prefix(body.isEmpty() ? "" : body, marker, " ".repeat(marker.length())));
        }
        return String.join("\n", items);
    }

    private String table(Element table) {
        List<List<String>> rows = new ArrayList<>();
        int columns = 0;
        for (Element tr : table.select("tr")) {
            if (tr.closest("table") != table) {
                continue;
            }
            List<String> cells = new ArrayList<>();
            for (Element cell : tr.children()) {
                if (cell.normalName().equals("td") || cell.normalName().equals("th")) {
                    cells.add(inlineOf(cell).replace("  \n", " ").replace("|", "\\|"));
                }
            }
            columns = Math.max(columns, cells.size());
            rows.add(cells);
        }
        if (rows.isEmpty() || columns == 0) {
            return "";
        }
        StringBuilder s = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            s.append('|');
            for (int c = 0; c < columns; c++) {
                List<String> row = rows.get(r);
                s.append(' ').append(c < row.size() ? row.get(c) : "").append(" |");
            }
            s.append('\n');
            if (r == 0) {
                s.append('|').append(" --- |".repeat(columns)).append('\n');
            }
        }
        return s.substring(0, s.length() - 1);
    }

    private String inlineOf(Element e) {
        StringBuilder sb = new StringBuilder();
        for (Node child : e.childNodes()) {
            inline(child, sb);
        }
        return paragraph(sb);
    }

    private void inline(Node n, StringBuilder out) {
        if (n instanceof TextNode t) {
            out.append(escape(t.getWholeText().replace('\n', ' ')));
            return;
        }
        if (!(n instanceof Element e)) {
            return;
        }
        String tag = e.normalName();
        if (SKIP.contains(tag)) {
            return;
        }
        switch (tag) {
            case "br" -> out.append('\n');
            case "strong", "b" -> wrap(out, "**", inlineOf(e));
            case "em", "i" -> wrap(out, "*", inlineOf(e));
            case "del", "s", "strike" -> wrap(out, "~~", inlineOf(e));
            case "code", "kbd", "samp", "tt" -> {
                String code = e.text();
                if (!code.isEmpty()) {
                    String tick = code.contains("`") ? "``" : "`";
                    String pad = code.startsWith("`") || code.endsWith("`") ? " " : "";
                    out.append(tick).append(pad).append(code).append(pad).append(tick);
                }
            }
            case "a" -> {
                String text = inlineOf(e);
                String href = url(e, "href");
                if (href.isEmpty()
                        || href.toLowerCase(java.util.Locale.ROOT).startsWith("javascript:")) {
                    out.append(text);
                } else {
                    out.append('[').append(text).append("](").append(destination(href)).append(')');
                }
            }
            case "img" -> {
                String src = url(e, "src");
                if (!src.isEmpty()) {
                    out.append("![")
                            .append(escape(e.attr("alt")))
                            .append("](")
                            .append(destination(src))
                            .append(')');
                }
            }
            default -> {
                if (BLOCKS.contains(tag)) {
                    out.append(' ');
                }
                for (Node child : e.childNodes()) {
                    inline(child, out);
                }
                if (BLOCKS.contains(tag)) {
                    out.append(' ');
                }
            }
        }
    }

    private String url(Element e, String attribute) {
        return absolute ? e.absUrl(attribute) : e.attr(attribute).strip();
    }

    private static String destination(String url) {
        return url.contains(" ") || url.contains("(") || url.contains(")")
                ? "<" + url.replace("<", "%3C").replace(">", "%3E") + ">"
                : url;
    }

    private static void wrap(StringBuilder out, String mark, String text) {
        if (!text.isEmpty()) {
            out.append(mark).append(text).append(mark);
        }
    }

    /** Backslash-escapes the characters that would start Markdown syntax inside text. */
    static String escape(String text) {
        StringBuilder s = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ("\\`*_[]<>".indexOf(c) >= 0) {
                s.append('\\');
            }
            s.append(c);
        }
        return s.toString();
    }

    /** {@code first} before the first line, {@code rest} before the others (blank lines stay). */
    private static String prefix(String text, String first, String rest) {
        String[] lines = text.split("\n", -1);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            String p = i == 0 ? first : rest;
            s.append(lines[i].isEmpty() ? p.stripTrailing() : p + lines[i]);
            if (i < lines.length - 1) {
                s.append('\n');
            }
        }
        return s.toString();
    }
}
