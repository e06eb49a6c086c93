package dev.sandjar.packs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandjar.bridges.crypto.Crypto;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shipped guest packs, compiled from npm by the build (packs/guest/), each imported by a body
 * through {@link Sandbox#run} with a known answer.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class GuestPacksTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static final ObjectMapper JSON = new ObjectMapper();
    static Sandbox sandbox;
    static ModuleCatalog catalog;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
        catalog = ModuleCatalog.builder(sandbox).build();
    }

    static JsonNode run(String code) throws Exception {
        CatalogResolution r = catalog.resolveBody(code);
        assertTrue(r.isOk(), () -> r.errors().toString());
        // crypto, as an ordinary run has it: ics draws event ids from crypto.getRandomValues.
        RunResult result =
                sandbox.run(
                        RunRequest.builder(code)
                                .modules(r.moduleResolution())
                                .bridge(Crypto.bridge())
                                .build());
        assertTrue(result.isOk(), () -> String.valueOf(result.error()));
        return JSON.readTree(result.valueJson());
    }

    static void assertAnswer(String expectedJson, String code) throws Exception {
        assertEquals(JSON.readTree(expectedJson.replace('\'', '"')), run(code));
    }

    @Test
    void everyGuestPackIsServedAsAnNpmModuleWithoutDiagnostics() {
        List<String> guest =
                List.of(
                        "@sandjar/chrono",
                        "@sandjar/color",
                        "@sandjar/dates",
                        "@sandjar/decimal",
                        "@sandjar/expr",
                        "@sandjar/gif",
                        "@sandjar/ics",
                        "@sandjar/jmespath",
                        "@sandjar/markdown",
                        "@sandjar/qr",
                        "@sandjar/rrule",
                        "@sandjar/stats",
                        "@sandjar/subtitle",
                        "@sandjar/yaml");
        for (String specifier : guest) {
            ModuleSummary s =
                    catalog.summaries().stream()
                            .filter(m -> m.specifier().equals(specifier))
                            .findFirst()
                            .orElseThrow(() -> new AssertionError(specifier + " is not served"));
            assertEquals(PackManifest.Kind.NPM, s.kind(), specifier);
            assertTrue(s.shipped(), specifier);
            PackDocs docs = catalog.packDocs(specifier).orElseThrow();
            assertTrue(docs.body().contains("import "), specifier);
        }
        assertEquals(List.of(), catalog.diagnostics());
    }

    @Test
    void yamlRoundTrip() throws Exception {
        assertAnswer(
                "{'doc': {'name': 'sandjar', 'tags': ['js', 'jvm'], 'limits': {'heapMb': 64,"
                        + " 'strict': true}}, 'same': true}",
                "import { load, dump } from '@sandjar/yaml';\n"
                        + "const text = 'name: sandjar\\ntags:\\n  - js\\n  - jvm\\nlimits:\\n"
                        + "  heapMb: 64\\n  strict: true\\n';\n"
                        + "const doc = load(text);\n"
                        + "return { doc, same: dump(doc) === text };");
    }

    @Test
    void datesFormatInTheSandboxZoneUtc() throws Exception {
        assertAnswer(
                "{'offset': 0, 'formatted': 'Friday 1 March 2024 22:30', 'days': 359}",
                "import { format, addDays, differenceInCalendarDays, parseISO } from"
                        + " '@sandjar/dates';\n"
                        + "const d = parseISO('2024-02-27T22:30:00Z');\n"
                        + "return { offset: d.getTimezoneOffset(),\n"
                        + "  formatted: format(addDays(d, 3), 'EEEE d MMMM yyyy HH:mm'),\n"
                        + "  days: differenceInCalendarDays(parseISO('2024-12-25'),"
                        + " parseISO('2024-01-01')) };");
    }

    @Test
    void markdownToHtml() throws Exception {
        assertAnswer(
                "'<h1>Title</h1>\\n<p>Some <em>emphasis</em> and <code>code</code>.</p>\\n"
                        + "<ul>\\n<li>a</li>\\n<li>b</li>\\n</ul>\\n'",
                "import { marked } from '@sandjar/markdown';\n"
                        + "return marked.parse('# Title\\n"
                        + "\\n"
                        + "Some *emphasis* and `code`.\\n"
                        + "\\n"
                        + "- a\\n"
                        + "- b\\n"
                        + "');");
    }

    @Test
    void decimalIsExact() throws Exception {
        assertAnswer(
                "{'float': 0.30000000000000004, 'exact': '0.3', 'equal': true, 'third':"
                        + " '0.3333333333'}",
                "import Decimal from '@sandjar/decimal';\n"
                        + "return { float: 0.1 + 0.2, exact: new"
                        + " Decimal('0.1').plus('0.2').toString(),\n"
                        + "  equal: new Decimal(0.1).plus(0.2).equals(0.3),\n"
                        + "  third: new Decimal(1).dividedBy(3).toFixed(10) };");
    }

    @Test
    void jmespathQuery() throws Exception {
        assertAnswer(
                "['Ada', 'Grace']",
                "import jmespath from '@sandjar/jmespath';\n"
                    + "const data = { people: [{ name: 'Grace', age: 45 }, { name: 'Linus', age: 28"
                    + " }, { name: 'Ada', age: 36 }] };\n"
                    + "return jmespath.search(data, 'people[?age > `30`].name | sort(@)');");
    }

    @Test
    void statsMeanAndStandardDeviation() throws Exception {
        assertAnswer(
                "{'mean': 5, 'sd': 2, 'median': 4.5}",
                "import { mean, standardDeviation, median } from '@sandjar/stats';\n"
                    + "const xs = [2, 4, 4, 4, 5, 5, 7, 9];\n"
                    + "return { mean: mean(xs), sd: standardDeviation(xs), median: median(xs) };");
    }

    @Test
    void rruleNextThreeOccurrences() throws Exception {
        assertAnswer(
                "['2024-01-01T09:00:00.000Z', '2024-01-04T09:00:00.000Z',"
                        + " '2024-01-08T09:00:00.000Z']",
                "import { RRule } from '@sandjar/rrule';\n"
                        + "const rule = new RRule({ freq: RRule.WEEKLY, byweekday: [RRule.MO,"
                        + " RRule.TH],\n"
                        + "  dtstart: new Date(Date.UTC(2024, 0, 1, 9, 0)), count: 10 });\n"
                        + "return rule.all().slice(0, 3).map((d) => d.toISOString());");
    }

    @Test
    void colorConversion() throws Exception {
        assertAnswer(
                "{'hex': '#ff0000', 'rgb': 'rgb(0, 255, 0)', 'hsl': {'h': 30.12, 's': 1, 'l':"
                        + " 0.5}}",
                "import { formatHex, formatRgb, converter } from '@sandjar/color';\n"
                        + "const hsl = converter('hsl')('#ff8000');\n"
                        + "return { hex: formatHex('rgb(255, 0, 0)'), rgb: formatRgb('hsl(120 100%"
                        + " 50%)'),\n"
                        + "  hsl: { h: Math.round(hsl.h * 100) / 100, s: hsl.s, l: hsl.l } };");
    }

    @Test
    void qrMatrixSize() throws Exception {
        // 19 bytes at error correction M need version 2: 25 modules a side, no border.
        assertAnswer(
                "{'version': 2, 'size': 25, 'rows': 25, 'cols': 25}",
                "import { encode } from '@sandjar/qr';\n"
                        + "const qr = encode('https://example.com', { ecc: 'M', border: 0 });\n"
                        + "return { version: qr.version, size: qr.size, rows: qr.data.length, cols:"
                        + " qr.data[0].length };");
    }

    @Test
    void gifHeaderBytes() throws Exception {
        assertAnswer(
                "{'header': 'GIF89a', 'width': 2, 'height': 2, 'trailer': 59}",
                "import { GIFEncoder, quantize, applyPalette } from '@sandjar/gif';\n"
                        + "const rgba = new Uint8Array([255,0,0,255, 0,255,0,255, 0,0,255,255,"
                        + " 255,255,255,255]);\n"
                        + "const palette = quantize(rgba, 4);\n"
                        + "const gif = GIFEncoder();\n"
                        + "gif.writeFrame(applyPalette(rgba, palette), 2, 2, { palette });\n"
                        + "gif.finish();\n"
                        + "const b = gif.bytes();\n"
                        + "return { header: String.fromCharCode(...b.slice(0, 6)), width: b[6] |"
                        + " (b[7] << 8),\n"
                        + "  height: b[8] | (b[9] << 8), trailer: b[b.length - 1] };");
    }

    @Test
    void expressionEvaluated() throws Exception {
        assertAnswer(
                "{'value': 20, 'variables': ['a', 'b', 'c']}",
                "import { Parser } from '@sandjar/expr';\n"
                        + "const parser = new Parser();\n"
                        + "return { value: parser.evaluate('2 * x ^ 2 + y / 4', { x: 3, y: 8 }),\n"
                        + "  variables: parser.parse('a + b * c').variables() };");
    }

    @Test
    void chronoParsesAgainstAFixedReferenceDate() throws Exception {
        assertAnswer(
                "['2024-01-11T17:00:00.000Z', '2024-01-13T12:00:00.000Z']",
                "import { parseDate } from '@sandjar/chrono';\n"
                        + "const ref = new Date(Date.UTC(2024, 0, 10, 12, 0)); // a Wednesday\n"
                        + "return [parseDate('tomorrow at 5pm', ref), parseDate('in 3 days',"
                        + " ref)].map((d) => d.toISOString());");
    }

    @Test
    void icsCalendarProduced() throws Exception {
        assertAnswer(
                "{'error': null, 'lines': ['BEGIN:VCALENDAR', 'BEGIN:VEVENT',"
                        + " 'UID:standup-1@sandjar', 'SUMMARY:Standup', 'DTSTART:20240501T093000Z',"
                        + " 'DURATION:PT15M', 'END:VEVENT', 'END:VCALENDAR']}",
                "import ics from '@sandjar/ics';\n"
                        + "const { error, value } = ics.createEvent({ uid: 'standup-1@sandjar',"
                        + " productId: 'sandjar/ics',\n"
                        + "  start: [2024, 5, 1, 9, 30], startInputType: 'utc', startOutputType:"
                        + " 'utc',\n"
                        + "  duration: { minutes: 15 }, title: 'Standup' });\n"
                        + "if (error) return { error: String(error) };\n"
                        + "return { error: null,\n"
                        + "  lines: value.split('\\r\\n').filter((l) =>"
                        + " /^(BEGIN|END|UID|SUMMARY|DTSTART|DURATION)/.test(l)) };");
    }

    @Test
    void subtitleParse() throws Exception {
        assertAnswer(
                "[{'start': 1000, 'end': 2500, 'text': 'Hello'}, {'start': 3000, 'end': 4000,"
                        + " 'text': 'World'}]",
                "import { parse } from '@sandjar/subtitle';\n"
                        + "return parse('1\\n00:00:01,000 --> 00:00:02,500\\nHello\\n\\n2\\n"
                        + "00:00:03,000 --> 00:00:04,000\\nWorld\\n')\n"
                        + "  .map(({ start, end, text }) => ({ start, end, text }));");
    }
}
