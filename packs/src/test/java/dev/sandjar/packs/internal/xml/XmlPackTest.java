package dev.sandjar.packs.internal.xml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.internal.HostPackRuns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code @sandjar/xml} through {@code Sandbox.run}, with the classic hostile documents. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class XmlPackTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static HostPackRuns packs;

    @BeforeAll
    static void start(Sandbox shared) {
        packs = new HostPackRuns(shared);
    }

    @Test
    void parsesToPlainObjectsAndBuildsBack() {
        Object v =
                packs.value(
                        "import xml, { parse, build } from '@sandjar/xml';\n"
                            + "const doc = await parse('<?xml version=\"1.0\"?>\\n"
                            + "<order id=\"7\">\\n"
                            + "  <item sku=\"a&amp;b\">2</item>\\n"
                            + "  <note><![CDATA[<raw>]]></note><!-- c --><xi:include"
                            + " xmlns:xi=\"http://www.w3.org/2001/XInclude\""
                            + " href=\"/etc/passwd\"/>\\n"
                            + "</order>');\n"
                            + "const latin = await parse(new Uint8Array([0x3c, 0x3f, 0x78, 0x6d,"
                            + " 0x6c, 0x20, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x3d, 0x27,"
                            + " 0x31, 0x2e, 0x30, 0x27, 0x20, 0x65, 0x6e, 0x63, 0x6f, 0x64, 0x69,"
                            + " 0x6e, 0x67, 0x3d, 0x27, 0x49, 0x53, 0x4f, 0x2d, 0x38, 0x38, 0x35,"
                            + " 0x39, 0x2d, 0x31, 0x27, 0x3f, 0x3e, 0x3c, 0x61, 0x3e, 0xe9, 0x3c,"
                            + " 0x2f, 0x61, 0x3e]));\n"
                            + "return [doc, latin.children[0], await build(doc),\n"
                            + "  await xml.build({ name: 'a', attributes: { q: 'say \"hi\"\\n"
                            + "' }, children: [{ name: 'b', children: [1, ' < 2'] }, { name: 'c' }]"
                            + " }, { declaration: true, indent: 2 })];");
        assertEquals(
                List.of(
                        Map.of(
                                "name",
                                "order",
                                "attributes",
                                Map.of("id", "7"),
                                "children",
                                List.of(
                                        Map.of(
                                                "name",
                                                "item",
                                                "attributes",
                                                Map.of("sku", "a&b"),
                                                "children",
                                                List.of("2")),
                                        Map.of(
                                                "name",
                                                "note",
                                                "attributes",
                                                Map.of(),
                                                "children",
                                                List.of("<raw>")),
                                        Map.of(
                                                "name",
                                                "xi:include",
                                                "attributes",
                                                Map.of(
                                                        "xmlns:xi",
                                                        "http://www.w3.org/2001/XInclude",
                                                        "href",
                                                        "/etc/passwd"),
                                                "children",
                                                List.of()))),
                        "é",
                        "<order id=\"7\"><item sku=\"a&amp;b\">2</item><note>&lt;raw&gt;</note>"
                                + "<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\""
                                + " href=\"/etc/passwd\"/></order>",
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                + "<a q=\"say &quot;hi&quot;&#10;\">\n"
                                + "  <b>1 &lt; 2</b>\n"
                                + "  <c/>\n"
                                + "</a>"),
                v);
    }

    static final String LAUGHS =
            "<?xml version=\"1.0\"?>\n"
                    + "<!DOCTYPE lolz [\n"
                    + " <!ENTITY lol \"lol\">\n"
                    + " <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
                    + " <!ENTITY lol2"
                    + " \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">\n"
                    + " <!ENTITY lol3"
                    + " \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
                    + " <!ENTITY lol4"
                    + " \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n"
                    + " <!ENTITY lol5"
                    + " \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;\">\n"
                    + " <!ENTITY lol6"
                    + " \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;\">\n"
                    + " <!ENTITY lol7"
                    + " \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;\">\n"
                    + " <!ENTITY lol8"
                    + " \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;\">\n"
                    + " <!ENTITY lol9"
                    + " \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;\">\n"
                    + "]>\n"
                    + "<lolz>&lol9;</lolz>";

    @Test
    void billionLaughsAndExternalEntitiesAreRefused(@TempDir Path dir) throws IOException {
        Path secret = dir.resolve("secret.txt");
        Files.writeString(secret, "TOP-SECRET");
        String xxe =
                "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \""
                        + secret.toUri()
                        + "\">]><r>&x;</r>";
        String dtd = "<!DOCTYPE r SYSTEM \"" + secret.toUri() + "\"><r/>";
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import { parse } from '@sandjar/xml';\n"
                                + "return [await failure(parse(inputs.laughs)), await"
                                + " failure(parse(inputs.xxe)), await failure(parse(inputs.dtd))];",
                        Map.of("inputs", Map.of("laughs", LAUGHS, "xxe", xxe, "dtd", dtd)));
        List<Object> refused =
                List.of(
                        "XmlError",
                        "XML_DOCTYPE",
                        "packs.host.xml.parse: a DOCTYPE is not allowed (no DTDs, no entity"
                                + " declarations)");
        assertEquals(List.of(refused, refused, refused), v);
        assertTrue(!v.toString().contains("TOP-SECRET"));
    }

    /**
     * The attribute and name caps are the JDK parser's own limits, set to the documented values:
     * past them the guest reads the module's error naming the cap, never the JDK's text ({@code
     * JAXP00010002 ... the limit imposed by the JDK}).
     */
    @Test
    void theJdksLimitsReportTheDocumentedCaps() {
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import { parse } from '@sandjar/xml';\n"
                                + "const attrs = (n) => '<a ' + Array.from({ length: n }, (_, i) =>"
                                + " 'k' + i + '=\"1\"').join(' ') + '/>';\n"
                                + "const ok = await parse(attrs(1000));\n"
                                + "return [Object.keys(ok.attributes).length,\n"
                                + "  await failure(parse(attrs(1001))),\n"
                                + "  await failure(parse('<r>\\n"
                                + "' + attrs(10001) + '</r>')),\n"
                                + "  (await parse('<' + 'n'.repeat(1000) + '/>')).name.length,\n"
                                + "  await failure(parse('<' + 'n'.repeat(1001) + '/>')),\n"
                                + "  await failure(parse('<a ' + 'k'.repeat(1001) +"
                                + " '=\"1\"/>'))];");
        List<?> r = (List<?>) v;
        assertEquals(1000L, r.get(0));
        assertEquals(1000L, r.get(3));
        String attributes = "packs.host.xml.parse: an element has more than 1000 attributes (line ";
        String name = "packs.host.xml.parse: a name is longer than 1000 characters (line ";
        refused(r.get(1), attributes + "1, column ");
        refused(r.get(2), attributes + "2, column ");
        refused(r.get(4), name + "1, column ");
        refused(r.get(5), name + "1, column ");
    }

    private static void refused(Object failure, String prefix) {
        List<?> f = (List<?>) failure;
        assertEquals(List.of("RangeError", "INPUT_TOO_LARGE"), f.subList(0, 2), f.toString());
        String message = (String) f.get(2);
        assertTrue(message.startsWith(prefix), message);
        assertTrue(!message.contains("JAXP") && !message.contains("JDK"), message);
    }

    @Test
    void boundsNameThemselves() {
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import xml from '@sandjar/xml';\n"
                                + "const deep = (n) => '<a>'.repeat(n) + '</a>'.repeat(n);\n"
                                + "const ok = await xml.parse(deep(15));\n"
                                + "return [await failure(xml.parse(deep(16))),\n"
                                + "  await failure(xml.parse('<a>' + '<b/>'.repeat(500001) +"
                                + " '</a>')),\n"
                                + "  (await failure(xml.parse('<a><b></a>'))).slice(0, 2),\n"
                                + "  await failure(xml.build({ name: '1a' })),\n"
                                + "  await failure(xml.build({ name: 'a', children: ['\\u0001']"
                                + " })),\n"
                                + "  ok.name];");
        assertEquals(
                List.of(
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                "packs.host.xml.parse: elements are nested deeper than 15 levels"),
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                "packs.host.xml.parse: more than 500000 elements and texts"),
                        List.of("XmlError", "XML_MALFORMED"),
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                "packs.host.xml.build: element.name is not an XML name: 1a"),
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                "packs.host.xml.build: element.children[0] holds U+0001, which XML"
                                        + " 1.0 cannot carry"),
                        "a"),
                v);
    }
}
