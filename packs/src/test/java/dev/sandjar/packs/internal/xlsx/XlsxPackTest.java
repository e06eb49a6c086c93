package dev.sandjar.packs.internal.xlsx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.internal.HostPackRuns;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code @sandjar/xlsx} through {@code Sandbox.run}, with hostile workbooks. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class XlsxPackTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static HostPackRuns packs;

    @BeforeAll
    static void start(Sandbox shared) {
        packs = new HostPackRuns(shared);
    }

    static final String NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

    /** A workbook as Excel lays it out, with shared strings, a date format and one sheet. */
    static byte[] workbook(String sheetXml, String extraSheetPart) throws IOException {
        Map<String, String> parts = new LinkedHashMap<>();
        parts.put(
                "[Content_Types].xml",
                "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>");
        parts.put(
                "_rels/.rels",
                "<Relationships"
                    + " xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship"
                    + " Id=\"rId1\""
                    + " Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\""
                    + " Target=\"xl/workbook.xml\"/></Relationships>");
        parts.put(
                "xl/workbook.xml",
                "<workbook xmlns=\""
                        + NS
                        + "\" xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><sheets><sheet"
                        + " name=\"Data\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>");
        parts.put(
                "xl/_rels/workbook.xml.rels",
                "<Relationships"
                    + " xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship"
                    + " Id=\"rId1\" Type=\"w\" Target=\"worksheets/sheet1.xml\"/><Relationship"
                    + " Id=\"rId2\" Type=\"s\" Target=\"sharedStrings.xml\"/><Relationship"
                    + " Id=\"rId3\" Type=\"st\" Target=\"/xl/styles.xml\"/></Relationships>");
        parts.put(
                "xl/sharedStrings.xml",
                "<sst xmlns=\""
                        + NS
                        + "\"><si><t>name</t></si><si><r><t>Ad</t></r><r><t>a</t></r>"
                        + "<rPh><t>ignored</t></rPh></si></sst>");
        parts.put(
                "xl/styles.xml",
                "<styleSheet xmlns=\""
                        + NS
                        + "\"><numFmts><numFmt numFmtId=\"164\" formatCode=\"yyyy\\-mm\\-dd"
                        + " hh:mm\"/><numFmt numFmtId=\"165\" formatCode=\"&quot;day&quot;"
                        + " 0.0\"/></numFmts><cellXfs><xf numFmtId=\"0\"/><xf numFmtId=\"14\"/><xf"
                        + " numFmtId=\"164\"/><xf numFmtId=\"165\"/></cellXfs></styleSheet>");
        parts.put("xl/worksheets/sheet1.xml", sheetXml);
        if (extraSheetPart != null) {
            parts.put("xl/extra.xml", extraSheetPart);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            for (Map.Entry<String, String> p : parts.entrySet()) {
                zip.putNextEntry(new ZipEntry(p.getKey()));
                zip.write(p.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        return out.toByteArray();
    }

    @Test
    void readsExcelsLayoutAndWritesRowsBack() throws IOException {
        byte[] excel =
                workbook(
                        "<worksheet xmlns=\""
                                + NS
                                + "\"><sheetData><row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c><c"
                                + " r=\"C1\" t=\"s\"><v>1</v></c></row><row r=\"3\"><c"
                                + " r=\"A3\"><v>2.5</v></c><c r=\"B3\" s=\"1\"><v>45352</v></c><c"
                                + " r=\"C3\" s=\"2\"><v>45352.5</v></c><c r=\"D3\""
                                + " s=\"3\"><v>7</v></c><c r=\"E3\" t=\"b\"><v>1</v></c><c r=\"F3\""
                                + " t=\"e\"><v>#DIV/0!</v></c><c r=\"G3\"><f>A3*2</f><v>5</v></c><c"
                                + " r=\"H3\" t=\"inlineStr\"><is><t>in</t></is></c><c r=\"I3\""
                                + " s=\"1\"/></row></sheetData></worksheet>",
                        null);
        Object v =
                packs.value(
                        "import xlsx, { read, write } from '@sandjar/xlsx';\n"
                            + "const book = await write({ Sales: [['item', 'qty', 'ok'], ['tea', 3,"
                            + " true], ['cake', 1.5, null, 'x & <y>']], Empty: [] });\n"
                            + "const back = await read(book);\n"
                            + "const theirs = await xlsx.read(inputs.excel);\n"
                            + "const serials = await xlsx.read(inputs.excel, { dates: false });\n"
                            + "return [back, theirs, serials.sheets[0].rows[2].slice(1, 3), (await"
                            + " read(book, { sheets: ['Empty'] })).sheets];",
                        Map.of("inputs", Map.of("excel", excel)));
        assertEquals(
                List.of(
                        Map.of(
                                "sheets",
                                List.of(
                                        Map.of(
                                                "name",
                                                "Sales",
                                                "rows",
                                                List.of(
                                                        List.of("item", "qty", "ok"),
                                                        List.of("tea", 3L, true),
                                                        Arrays.asList(
                                                                "cake", 1.5, null, "x & <y>"))),
                                        Map.of("name", "Empty", "rows", List.of()))),
                        Map.of(
                                "sheets",
                                List.of(
                                        Map.of(
                                                "name",
                                                "Data",
                                                "rows",
                                                List.of(
                                                        Arrays.asList("name", null, "Ada"),
                                                        List.of(),
                                                        List.of(
                                                                2.5,
                                                                "2024-03-01",
                                                                "2024-03-01T12:00",
                                                                7L,
                                                                true,
                                                                "#DIV/0!",
                                                                5L,
                                                                "in"))))),
                        List.of(45352L, 45352.5),
                        List.of(Map.of("name", "Empty", "rows", List.of()))),
                v);
    }

    /** A part past the XML pack's caps reads as the cap, not as the JDK parser's own text. */
    @Test
    void aPartPastTheXmlCapsNamesTheCap() throws IOException {
        StringBuilder attributes = new StringBuilder();
        for (int i = 0; i < 10_001; i++) {
            attributes.append(" k").append(i).append("=\"1\"");
        }
        byte[] wide =
                workbook(
                        "<worksheet xmlns=\""
                                + NS
                                + "\"><sheetData><row"
                                + attributes
                                + "/></sheetData></worksheet>",
                        null);
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import xlsx from '@sandjar/xlsx';\n"
                                + "return await failure(xlsx.read(inputs.wide));",
                        Map.of("inputs", Map.of("wide", wide)));
        List<?> f = (List<?>) v;
        assertEquals(List.of("RangeError", "INPUT_TOO_LARGE"), f.subList(0, 2), f.toString());
        assertTrue(
                ((String) f.get(2))
                        .startsWith(
                                "packs.host.xlsx.read: xl/worksheets/sheet1.xml: an element has"
                                        + " more than 1000 attributes (line 1, column "),
                f.toString());
    }

    @Test
    void bombsAndSparseSheetsAreRefusedByTheirBounds() throws IOException {
        // 60 MiB of whitespace inside the sheet: deflates to ~60 KiB.
        char[] pad = new char[60 << 20];
        Arrays.fill(pad, ' ');
        byte[] bomb =
                workbook(
                        "<worksheet xmlns=\""
                                + NS
                                + "\"><sheetData>"
                                + new String(pad)
                                + "</sheetData></worksheet>",
                        null);
        byte[] sparse =
                workbook(
                        "<worksheet xmlns=\""
                                + NS
                                + "\"><sheetData><row r=\"1048576\"><c><v>1</v></c>"
                                + "</row></sheetData></worksheet>",
                        null);
        byte[] doctype =
                workbook(
                        "<!DOCTYPE x [<!ENTITY a \"b\">]><worksheet xmlns=\""
                                + NS
                                + "\"><sheetData/></worksheet>",
                        null);
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import xlsx from '@sandjar/xlsx';\n"
                                + "return [await failure(xlsx.read(inputs.bomb)),\n"
                                + "  await failure(xlsx.read(inputs.sparse)),\n"
                                + "  await failure(xlsx.read(inputs.doctype)),\n"
                                + "  await failure(xlsx.write({ 'a/b': [] })),\n"
                                + "  await failure(xlsx.write([[{}]]))];",
                        Map.of(
                                "inputs",
                                Map.of("bomb", bomb, "sparse", sparse, "doctype", doctype)));
        String w = "packs.host.xlsx.";
        assertEquals(
                List.of(
                        List.of(
                                "ZipError",
                                "ZIP_BOMB",
                                w
                                        + "read: entry 'xl/worksheets/sheet1.xml' inflates more"
                                        + " than 200 times its compressed size"),
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                w + "read: more than 1000000 cells"),
                        List.of(
                                "OfficeError",
                                "OFFICE_MALFORMED",
                                w
                                        + "read: xl/worksheets/sheet1.xml line 1: a DOCTYPE is not"
                                        + " allowed"),
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                w
                                        + "write: sheet name 'a/b' must be 1 to 31 characters"
                                        + " without []:*?/\\, unique ignoring case"),
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                w
                                        + "write: sheet 'Sheet1' cell A1 must be a string, finite"
                                        + " number, boolean or null")),
                v);
    }
}
