package dev.sandjar.packs.internal.xlsx;

import dev.sandjar.packs.internal.HostWork;
import dev.sandjar.packs.internal.office.Ooxml;
import dev.sandjar.packs.internal.zip.SafeZip;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.xml.sax.Attributes;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Reads a workbook's sheets into rows: the workbook's sheet list and relationships, the shared
 * strings, the cell formats (to tell dates), then each sheet's cells streamed into rows. Values:
 * numbers, strings, booleans, error codes as strings ({@code "#DIV/0!"}), dates as ISO strings when
 * the cell's format is a date format; a formula gives its cached value; missing cells are null.
 */
final class XlsxReader {
    private final SafeZip pkg;
    private final HostWork.Work w;
    private final boolean dates;
    private final List<String> shared = new ArrayList<>();
    private final List<Boolean> dateStyles = new ArrayList<>();
    private final int[] cells = new int[1];
    private boolean date1904;

    XlsxReader(SafeZip pkg, HostWork.Work w, boolean dates) {
        this.pkg = pkg;
        this.w = w;
        this.dates = dates;
    }

    Map<String, Object> read(Set<String> only) {
        String workbook = "xl/workbook.xml";
        for (String target : Ooxml.relationships(pkg, "_rels/.rels", "", w).values()) {
            if (target.endsWith(".xml")
                    && pkg.find(target) != null
                    && target.contains("workbook")) {
                workbook = target;
            }
        }
        String dir =
                workbook.contains("/") ? workbook.substring(0, workbook.lastIndexOf('/') + 1) : "";
        String rels = dir + "_rels/" + workbook.substring(dir.length()) + ".rels";
        Map<String, String> targets = Ooxml.relationships(pkg, rels, dir, w);
        List<String[]> sheets = new ArrayList<>();
        if (!Ooxml.parse(
                pkg,
                workbook,
                new DefaultHandler() {
                    @Override
                    public void startElement(String uri, String l, String q, Attributes a) {
                        String local = Ooxml.local(q);
                        if (local.equals("workbookPr")) {
                            String v = a.getValue("date1904");
                            date1904 = "1".equals(v) || "true".equals(v);
                        } else if (local.equals("sheet")) {
                            String id = null;
                            for (int i = 0; i < a.getLength(); i++) {
                                if (Ooxml.local(a.getQName(i)).equals("id")) {
                                    id = a.getValue(i);
                                }
                            }
                            sheets.add(new String[] {a.getValue("name"), targets.get(id)});
                        }
                    }
                },
                w)) {
            throw Ooxml.malformed(w.where(), "not a workbook (no " + workbook + ")");
        }
        for (String target : targets.values()) {
            if (target.endsWith("sharedStrings.xml")) {
                Ooxml.parse(pkg, target, new SharedStrings(), w);
            } else if (target.endsWith("styles.xml")) {
                Ooxml.parse(pkg, target, new Styles(), w);
            }
        }
        List<Object> out = new ArrayList<>();
        for (String[] sheet : sheets) {
            if (only != null && !only.contains(sheet[0])) {
                continue;
            }
            Rows rows = new Rows();
            if (sheet[1] == null || !Ooxml.parse(pkg, sheet[1], rows, w)) {
                throw Ooxml.malformed(w.where(), "sheet '" + sheet[0] + "' has no worksheet part");
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", sheet[0]);
            m.put("rows", rows.rows);
            out.add(m);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("sheets", out);
        return result;
    }

    private Ooxml.Stop stop(RuntimeException e) {
        return new Ooxml.Stop(
                e instanceof dev.sandjar.host.BridgeException b
                        ? b
                        : Ooxml.malformed(w.where(), e.getMessage()));
    }

    /** {@code <si>} texts: its {@code <t>}s, leaving out phonetic runs. */
    private final class SharedStrings extends DefaultHandler {
        private final StringBuilder text = new StringBuilder();
        private boolean inT;
        private int phonetic;

        @Override
        public void startElement(String uri, String l, String q, Attributes a) {
            switch (Ooxml.local(q)) {
                case "si" -> text.setLength(0);
                case "t" -> inT = phonetic == 0;
                case "rPh" -> phonetic++;
                default -> {}
            }
        }

        @Override
        public void endElement(String uri, String l, String q) throws Ooxml.Stop {
            switch (Ooxml.local(q)) {
                case "si" -> {
                    try {
                        w.check();
                        w.output(text.length());
                        if (shared.size() >= XlsxModule.MAX_CELLS) {
                            throw XlsxModule.tooManyCells(w.where());
                        }
                    } catch (RuntimeException e) {
                        throw stop(e);
                    }
                    shared.add(text.toString());
                }
                case "t" -> inT = false;
                case "rPh" -> phonetic--;
                default -> {}
            }
        }

        @Override
        public void characters(char[] ch, int start, int length) {
            if (inT) {
                text.append(ch, start, length);
            }
        }
    }

    /** Which cell formats ({@code cellXfs}) show dates. */
    private final class Styles extends DefaultHandler {
        private final Map<Integer, Boolean> customDate = new java.util.HashMap<>();
        private boolean inXfs;

        @Override
        public void startElement(String uri, String l, String q, Attributes a) {
            switch (Ooxml.local(q)) {
                case "numFmt" -> {
                    try {
                        customDate.put(
                                Integer.parseInt(a.getValue("numFmtId")),
                                isDateFormat(a.getValue("formatCode")));
                    } catch (NumberFormatException ignored) {
                        // a format without a usable id: cells cannot name it
                    }
                }
                case "cellXfs" -> inXfs = true;
                case "xf" -> {
                    if (inXfs && dateStyles.size() < 65_536) {
                        int id;
                        try {
                            id = Integer.parseInt(String.valueOf(a.getValue("numFmtId")));
                        } catch (NumberFormatException e) {
                            id = 0;
                        }
                        boolean builtIn = (id >= 14 && id <= 22) || (id >= 45 && id <= 47);
                        dateStyles.add(customDate.getOrDefault(id, builtIn));
                    }
                }
                default -> {}
            }
        }

        @Override
        public void endElement(String uri, String l, String q) {
            if (Ooxml.local(q).equals("cellXfs")) {
                inXfs = false;
            }
        }
    }

    /**
     * Whether a number format shows a date or time: y, m, d, h or s outside quotes and brackets.
     */
    static boolean isDateFormat(String code) {
        if (code == null) {
            return false;
        }
        boolean quoted = false;
        int bracket = 0;
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (quoted) {
                continue;
            } else if (c == '\\' || c == '_' || c == '*') {
                i++;
            } else if (c == '[') {
                bracket++;
            } else if (c == ']') {
                bracket--;
            } else if (bracket == 0 && "ymdhsYMDHS".indexOf(c) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** A sheet's {@code <row>}s and {@code <c>}s into rows of values. */
    private final class Rows extends DefaultHandler {
        final List<Object> rows = new ArrayList<>();
        private List<Object> row;
        private int nextRow;
        private int col;
        private String type;
        private int style;
        private final StringBuilder value = new StringBuilder();
        private boolean collect;
        private boolean hasValue;

        @Override
        public void startElement(String uri, String l, String q, Attributes a) throws Ooxml.Stop {
            try {
                switch (Ooxml.local(q)) {
                    case "row" -> {
                        int r = nextRow + 1;
                        String ref = a.getValue("r");
                        if (ref != null) {
                            try {
                                r = Integer.parseInt(ref);
                            } catch (NumberFormatException e) {
                                throw Ooxml.malformed(
                                        w.where(), "row number '" + ref + "' is not a number");
                            }
                        }
                        if (r <= nextRow || r > XlsxModule.MAX_ROWS) {
                            throw Ooxml.malformed(
                                    w.where(), "row " + r + " is out of order or range");
                        }
                        while (rows.size() < r - 1) {
                            XlsxModule.count(cells, w.where());
                            rows.add(new ArrayList<>());
                        }
                        nextRow = r;
                        row = new ArrayList<>();
                        rows.add(row);
                        col = 0;
                        w.check();
                    }
                    case "c" -> {
                        if (row == null) {
                            throw Ooxml.malformed(w.where(), "a cell outside a row");
                        }
                        String ref = a.getValue("r");
                        int c = ref == null ? col : XlsxModule.column(ref);
                        if (c < 0) {
                            c = col;
                        }
                        if (c >= XlsxModule.MAX_COLUMNS || c < col) {
                            throw Ooxml.malformed(
                                    w.where(), "cell " + ref + " is out of order or range");
                        }
                        while (row.size() < c) {
                            XlsxModule.count(cells, w.where());
                            row.add(null);
                        }
                        col = c;
                        type = a.getValue("t");
                        String s = a.getValue("s");
                        try {
                            style = s == null ? 0 : Integer.parseInt(s);
                        } catch (NumberFormatException e) {
                            style = 0;
                        }
                        value.setLength(0);
                        hasValue = false;
                    }
                    case "v" -> {
                        collect = true;
                        hasValue = true;
                    }
                    case "t" -> {
                        if ("inlineStr".equals(type)) {
                            collect = true;
                            hasValue = true;
                        }
                    }
                    default -> {}
                }
            } catch (RuntimeException e) {
                throw stop(e);
            }
        }

        @Override
        public void endElement(String uri, String l, String q) throws Ooxml.Stop {
            try {
                switch (Ooxml.local(q)) {
                    case "v", "t" -> collect = false;
                    case "c" -> {
                        XlsxModule.count(cells, w.where());
                        Object v = hasValue ? value(value.toString()) : null;
                        w.output(value.length() + 8L);
                        row.add(v);
                        col++;
                    }
                    case "row" -> {
                        while (!row.isEmpty() && row.get(row.size() - 1) == null) {
                            row.remove(row.size() - 1);
                        }
                        row = null;
                    }
                    default -> {}
                }
            } catch (RuntimeException e) {
                throw stop(e);
            }
        }

        @Override
        public void characters(char[] ch, int start, int length) {
            if (collect) {
                value.append(ch, start, length);
            }
        }

        private Object value(String v) {
            String t = type == null ? "n" : type;
            switch (t) {
                case "s" -> {
                    try {
                        return shared.get(Integer.parseInt(v.strip()));
                    } catch (NumberFormatException | IndexOutOfBoundsException e) {
                        throw Ooxml.malformed(w.where(), "shared string " + v + " does not exist");
                    }
                }
                case "str", "inlineStr", "e" -> {
                    return v;
                }
                case "b" -> {
                    return v.strip().equals("1") || v.strip().equals("true");
                }
                default -> {
                    double d;
                    try {
                        d = Double.parseDouble(v.strip());
                    } catch (NumberFormatException e) {
                        return v;
                    }
                    if (dates && style < dateStyles.size() && dateStyles.get(style)) {
                        return date(d);
                    }
                    return d == Math.rint(d) && Math.abs(d) < 9.007199254740992E15
                            ? (Object) (long) d
                            : (Object) d;
                }
            }
        }

        private String date(double serial) {
            LocalDateTime base =
                    date1904
                            ? LocalDateTime.of(1904, 1, 1, 0, 0)
                            : LocalDateTime.of(1899, 12, 30, 0, 0);
            if (!date1904 && serial < 61) {
                serial +=
                        1; // Excel's 1900 leap-year bug: serials before 1900-03-01 are one day off
            }
            long millis = Math.round(serial * 86_400_000d);
            LocalDateTime t = base.plus(millis, ChronoUnit.MILLIS);
            return t.toLocalTime().toNanoOfDay() == 0 ? t.toLocalDate().toString() : t.toString();
        }
    }
}
