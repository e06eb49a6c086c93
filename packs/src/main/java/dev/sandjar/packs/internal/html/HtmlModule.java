package dev.sandjar.packs.internal.html;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.internal.HostArgs;
import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jsoup.nodes.Attribute;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.parser.Parser;
import org.jsoup.select.Evaluator;
import org.jsoup.select.QueryParser;
import org.jsoup.select.Selector;

/**
 * The {@code html} host module, declared by {@code @sandjar/html}: HTML parsed by jsoup (the WHATWG
 * algorithm, no network, no scripts), queried with CSS selectors, and turned into text or Markdown.
 * Caps: the input ({@link HostLimits}), element nesting {@link #MAX_DEPTH} (deeper elements are
 * flattened by the parser), {@link #MAX_MATCHES} matches per query, and every result at most {@link
 * HostLimits#MAX_TEXT_CHARS} characters.
 */
public final class HtmlModule {
    static final String ID = "html";
    static final String PACKAGE = "@sandjar/html";

    static final int MAX_DEPTH = 256;
    static final int MAX_MATCHES = 10_000;
    static final int MAX_SELECTOR = 1024;

    private HtmlModule() {}

    public static HostModule create() {
        return HostModule.builder(ID, PACKAGE)
                .description("HTML by CSS selector, text and Markdown (jsoup)")
                .export(
                        Operation.builder("select")
                                .param(Param.any("html"))
                                .param(Param.string("selector").maxLength(MAX_SELECTOR))
                                .param(Param.object("options").optional().maxLength(4))
                                .handler(HtmlModule::select)
                                .build())
                .export(
                        Operation.builder("attr")
                                .param(Param.any("html"))
                                .param(Param.string("selector").maxLength(MAX_SELECTOR))
                                .param(Param.string("name").maxLength(256))
                                .param(Param.object("options").optional().maxLength(4))
                                .handler(HtmlModule::attr)
                                .build())
                .export(
                        Operation.builder("text")
                                .param(Param.any("html"))
                                .handler(HtmlModule::text)
                                .build())
                .export(
                        Operation.builder("toMarkdown")
                                .param(Param.any("html"))
                                .param(Param.object("options").optional().maxLength(4))
                                .handler(HtmlModule::toMarkdown)
                                .build())
                .build();
    }

    static Document parse(String html, String baseUrl) {
        Parser parser = Parser.htmlParser().setMaxDepth(MAX_DEPTH);
        return parser.parseInput(html, baseUrl == null ? "" : baseUrl);
    }

    private static String baseUrl(HostArgs.Options o) {
        return o.string("baseUrl", null, 2048);
    }

    private static Object select(OperationCall call) {
        String html = HostArgs.text(call, 0, "html");
        String css = call.string(1);
        HostArgs.Options o = HostArgs.options(call, 2, "baseUrl", "limit");
        String base = baseUrl(o);
        int limit = (int) o.integer("limit", 1000, 1, MAX_MATCHES);
        Evaluator query = query(call.where(), css);
        return HostWork.submit(
                call,
                w -> {
                    List<Object> out = new ArrayList<>();
                    for (Element e : matches(parse(html, base), query, limit, w)) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("tag", e.normalName());
                        String text = e.text();
                        String outer = e.outerHtml();
                        Map<String, Object> attributes = new LinkedHashMap<>();
                        long size = text.length() + outer.length();
                        for (Attribute a : e.attributes()) {
                            attributes.put(a.getKey(), a.getValue());
                            size += a.getKey().length() + a.getValue().length();
                        }
                        w.output(size);
                        m.put("text", text);
                        m.put("html", outer);
                        m.put("attributes", attributes);
                        out.add(m);
                    }
                    return out;
                });
    }

    private static Object attr(OperationCall call) {
        String html = HostArgs.text(call, 0, "html");
        String css = call.string(1);
        String name = call.string(2);
        HostArgs.Options o = HostArgs.options(call, 3, "baseUrl", "limit");
        String base = baseUrl(o);
        int limit = (int) o.integer("limit", 1000, 1, MAX_MATCHES);
        Evaluator query = query(call.where(), css);
        return HostWork.submit(
                call,
                w -> {
                    List<Object> out = new ArrayList<>();
                    for (Element e : matches(parse(html, base), query, limit, w)) {
                        if (e.hasAttr(name)) {
                            String v = e.attr(name);
                            w.output(v.length());
                            out.add(v);
                        }
                    }
                    return out;
                });
    }

    private static Object text(OperationCall call) {
        String html = HostArgs.text(call, 0, "html");
        return HostWork.submit(
                call,
                w -> {
                    Document doc = parse(html, null);
                    w.check();
                    String text = doc.body() == null ? doc.text() : doc.body().text();
                    w.output(text.length());
                    return text;
                });
    }

    private static Object toMarkdown(OperationCall call) {
        String html = HostArgs.text(call, 0, "html");
        HostArgs.Options o = HostArgs.options(call, 1, "baseUrl", "selector");
        String base = baseUrl(o);
        String css = o.string("selector", null, MAX_SELECTOR);
        Evaluator query = css == null ? null : query(call.where(), css);
        return HostWork.submit(
                call,
                w -> {
                    Document doc = parse(html, base);
                    List<Element> roots =
                            query == null
                                    ? List.of(doc.body() == null ? doc : doc.body())
                                    : matches(doc, query, MAX_MATCHES, w);
                    Markdown md = new Markdown(base != null, w);
                    List<String> parts = new ArrayList<>();
                    for (Element root : roots) {
                        String part = md.blocks(root);
                        if (!part.isEmpty()) {
                            parts.add(part);
                        }
                    }
                    String out = parts.isEmpty() ? "" : String.join("\n\n", parts) + "\n";
                    if (out.length() > HostLimits.MAX_TEXT_CHARS) {
                        throw new BridgeException(
                                "RangeError",
                                "OUTPUT_TOO_LARGE",
                                w.where()
                                        + ": the Markdown is longer than "
                                        + HostLimits.MAX_TEXT_CHARS
                                        + " characters");
                    }
                    w.output(out.length());
                    return out;
                });
    }

    static Evaluator query(String where, String css) {
        try {
            return QueryParser.parse(css);
        } catch (Selector.SelectorParseException | IllegalArgumentException e) {
            throw HostWork.invalid(
                    where, "selector '" + css + "' does not parse: " + e.getMessage());
        }
    }

    /** Matching elements in document order; the budget is checked between elements. */
    static List<Element> matches(Document doc, Evaluator query, int limit, HostWork.Work w) {
        List<Element> out = new ArrayList<>();
        for (Element e : doc.getAllElements()) {
            w.check();
            if (query.matches(doc, e)) {
                out.add(e);
                if (out.size() >= limit) {
                    break;
                }
            }
        }
        return out;
    }
}
