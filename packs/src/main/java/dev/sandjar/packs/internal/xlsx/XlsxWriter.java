package dev.sandjar.packs.internal.xlsx;

import dev.sandjar.packs.internal.HostWork;
import dev.sandjar.packs.internal.office.Ooxml;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes rows of values as a minimal workbook: strings inline, numbers and booleans typed. */
final class XlsxWriter {
    private static final String MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
    private static final String REL =
            "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    private static final String PKG_REL =
            "http://schemas.openxmlformats.org/package/2006/relationships";
    private static final String HEAD =
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";

    private XlsxWriter() {}

    static byte[] write(Map<String, List<?>> sheets, HostWork.Work w) {
        int[] cells = new int[1];
        Map<String, String> parts = new LinkedHashMap<>();
        StringBuilder types =
                new StringBuilder(HEAD)
                        .append(
                                "<Types"
                                    + " xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">")
                        .append(
                                "<Default Extension=\"rels\""
                                    + " ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>")
                        .append("<Default Extension=\"xml\" ContentType=\"application/xml\"/>")
                        .append(
                                "<Override PartName=\"/xl/workbook.xml\""
                                    + " ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>")
                        .append(
                                "<Override PartName=\"/xl/styles.xml\""
                                    + " ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml\"/>");
        StringBuilder book =
                new StringBuilder(HEAD)
                        .append(
                                "<workbook xmlns=\""
                                        + MAIN
                                        + "\" xmlns:r=\""
                                        + REL
                                        + "\"><sheets>");
        StringBuilder rels =
                new StringBuilder(HEAD).append("<Relationships xmlns=\"" + PKG_REL + "\">");
        int n = 0;
        for (Map.Entry<String, List<?>> sheet : sheets.entrySet()) {
            n++;
            types.append(
                    "<Override PartName=\"/xl/worksheets/sheet"
                            + n
                            + ".xml\""
                            + " ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>");
            book.append(
                    "<sheet name=\""
                            + Ooxml.escape(sheet.getKey())
                            + "\" sheetId=\""
                            + n
                            + "\" r:id=\"rId"
                            + n
                            + "\"/>");
            rels.append(
                    "<Relationship Id=\"rId"
                            + n
                            + "\" Type=\""
                            + REL
                            + "/worksheet\" Target=\"worksheets/sheet"
                            + n
                            + ".xml\"/>");
            parts.put(
                    "xl/worksheets/sheet" + n + ".xml",
                    sheet(sheet.getKey(), sheet.getValue(), cells, w));
        }
        rels.append(
                "<Relationship Id=\"rId"
                        + (n + 1)
                        + "\" Type=\""
                        + REL
                        + "/styles\" Target=\"styles.xml\"/>");
        Map<String, String> all = new LinkedHashMap<>();
        all.put("[Content_Types].xml", types.append("</Types>").toString());
        all.put(
                "_rels/.rels",
                HEAD
                        + "<Relationships xmlns=\""
                        + PKG_REL
                        + "\"><Relationship Id=\"rId1\" Type=\""
                        + REL
                        + "/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>");
        all.put("xl/workbook.xml", book.append("</sheets></workbook>").toString());
        all.put("xl/_rels/workbook.xml.rels", rels.append("</Relationships>").toString());
        all.put(
                "xl/styles.xml",
                HEAD
                        + "<styleSheet xmlns=\""
                        + MAIN
                        + "\"><fonts count=\"1\"><font><sz val=\"11\"/><name"
                        + " val=\"Calibri\"/></font></fonts><fills count=\"2\"><fill><patternFill"
                        + " patternType=\"none\"/></fill><fill><patternFill"
                        + " patternType=\"gray125\"/></fill></fills><borders"
                        + " count=\"1\"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs"
                        + " count=\"1\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\""
                        + " borderId=\"0\"/></cellStyleXfs><cellXfs count=\"1\"><xf numFmtId=\"0\""
                        + " fontId=\"0\" fillId=\"0\" borderId=\"0\""
                        + " xfId=\"0\"/></cellXfs></styleSheet>");
        all.putAll(parts);
        return Ooxml.write(all, w);
    }

    private static String sheet(String name, List<?> rows, int[] cells, HostWork.Work w) {
        if (rows.size() > XlsxModule.MAX_ROWS) {
            throw HostWork.tooLarge(
                    w.where(),
                    "sheet '" + name + "' has more than " + XlsxModule.MAX_ROWS + " rows");
        }
        StringBuilder s =
                new StringBuilder(HEAD).append("<worksheet xmlns=\"" + MAIN + "\"><sheetData>");
        for (int r = 0; r < rows.size(); r++) {
            w.check();
            if (!(rows.get(r) instanceof List<?> row)) {
                throw HostWork.invalid(
                        w.where(), "sheet '" + name + "' row " + (r + 1) + " must be an array");
            }
            if (row.size() > XlsxModule.MAX_COLUMNS) {
                throw HostWork.tooLarge(
                        w.where(),
                        "sheet '"
                                + name
                                + "' row "
                                + (r + 1)
                                + " has more than "
                                + XlsxModule.MAX_COLUMNS
                                + " cells");
            }
            s.append("<row r=\"").append(r + 1).append("\">");
            for (int c = 0; c < row.size(); c++) {
                XlsxModule.count(cells, w.where());
                Object v = row.get(c);
                String ref = XlsxModule.letters(c) + (r + 1);
                if (v instanceof String str) {
                    s.append("<c r=\"" + ref + "\" t=\"inlineStr\"><is><t xml:space=\"preserve\">")
                            .append(Ooxml.escape(str))
                            .append("</t></is></c>");
                } else if (v instanceof Boolean b) {
                    s.append("<c r=\"" + ref + "\" t=\"b\"><v>" + (b ? 1 : 0) + "</v></c>");
                } else if (v instanceof Long l) {
                    s.append("<c r=\"" + ref + "\"><v>" + l + "</v></c>");
                } else if (v instanceof Double d && Double.isFinite(d)) {
                    String text =
                            d == Math.rint(d) && Math.abs(d) < 1e15
                                    ? Long.toString(d.longValue())
                                    : d.toString();
                    s.append("<c r=\"" + ref + "\"><v>" + text + "</v></c>");
                } else if (v != null && v != dev.sandjar.transport.Undefined.INSTANCE) {
                    throw HostWork.invalid(
                            w.where(),
                            "sheet '"
                                    + name
                                    + "' cell "
                                    + ref
                                    + " must be a string, finite number, boolean or null");
                }
            }
            s.append("</row>");
            if (s.length() > (64L << 20)) {
                throw HostWork.tooLarge(
                        w.where(), "sheet '" + name + "' is larger than 64 MiB of XML");
            }
        }
        return s.append("</sheetData></worksheet>").toString();
    }
}
