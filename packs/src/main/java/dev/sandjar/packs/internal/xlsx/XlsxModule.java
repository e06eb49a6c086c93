package dev.sandjar.packs.internal.xlsx;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.internal.HostArgs;
import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import dev.sandjar.packs.internal.office.Ooxml;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code xlsx} host module, declared by {@code @sandjar/xlsx}: worksheets read to rows of
 * values and rows written to a workbook. A streaming reader on {@link Ooxml} rather than Apache
 * POI: the package goes through the zip-bomb checks of {@link
 * dev.sandjar.packs.internal.zip.SafeZip} and the hardened SAX parser, cells stream into rows, and
 * the command line's jar stays ~20 MB lighter (POI with its schemas and dependencies). Caps: the
 * file at most {@link HostLimits#MAX_BYTES}; what {@link Ooxml} caps; at most {@link #MAX_CELLS}
 * cells read or written per call (empty cells before a value count too).
 */
public final class XlsxModule {
    static final String ID = "xlsx";
    static final String PACKAGE = "@sandjar/xlsx";

    static final int MAX_CELLS = 1_000_000;
    static final int MAX_COLUMNS = 16_384;
    static final int MAX_ROWS = 1_048_576;
    static final int MAX_SHEETS = 256;

    private XlsxModule() {}

    public static HostModule create() {
        return HostModule.builder(ID, PACKAGE)
                .description("Excel workbooks: sheets to rows and rows to a workbook")
                .export(
                        Operation.builder("read")
                                .param(Param.bytes("xlsx").maxLength(HostLimits.MAX_BYTES))
                                .param(Param.object("options").optional().maxLength(4))
                                .handler(XlsxModule::read)
                                .build())
                .export(
                        Operation.builder("write")
                                .param(Param.any("workbook"))
                                .handler(XlsxModule::write)
                                .build())
                .build();
    }

    private static Object read(OperationCall call) {
        byte[] xlsx = call.bytes(0);
        HostArgs.Options o = HostArgs.options(call, 1, "sheets", "dates");
        Set<String> only = null;
        if (o.has("sheets")) {
            if (!(o.raw("sheets") instanceof List<?> names) || names.size() > MAX_SHEETS) {
                throw HostWork.invalid(
                        call.where(), "options.sheets must be an array of sheet names");
            }
            only = new HashSet<>();
            for (Object n : names) {
                if (!(n instanceof String s)) {
                    throw HostWork.invalid(call.where(), "options.sheets must hold strings");
                }
                only.add(s);
            }
        }
        boolean dates = o.bool("dates", true);
        Set<String> wanted = only;
        return HostWork.submit(
                call, w -> new XlsxReader(Ooxml.open(xlsx, w.where()), w, dates).read(wanted));
    }

    private static Object write(OperationCall call) {
        Object book = call.arg(0);
        Map<String, List<?>> sheets = new LinkedHashMap<>();
        if (book instanceof List<?> rows) {
            sheets.put("Sheet1", rows);
        } else if (book instanceof Map<?, ?> m && !m.isEmpty() && m.size() <= MAX_SHEETS) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!(e.getValue() instanceof List<?> rows)) {
                    throw HostWork.invalid(
                            call.where(), "sheet '" + e.getKey() + "' must be an array of rows");
                }
                sheets.put((String) e.getKey(), rows);
            }
        } else {
            throw HostWork.invalid(
                    call.where(),
                    "workbook must be an array of rows or an object of 1 to "
                            + MAX_SHEETS
                            + " sheets");
        }
        Set<String> lower = new HashSet<>();
        for (String name : sheets.keySet()) {
            if (name.isEmpty()
                    || name.length() > 31
                    || name.chars().anyMatch(c -> "[]:*?/\\".indexOf(c) >= 0 || c < 0x20)
                    || name.startsWith("'")
                    || !lower.add(name.toLowerCase(java.util.Locale.ROOT))) {
                throw HostWork.invalid(
                        call.where(),
                        "sheet name '"
                                + name
                                + "' must be 1 to 31 characters without []:*?/\\, unique ignoring"
                                + " case");
            }
        }
        return HostWork.submit(call, w -> XlsxWriter.write(sheets, w));
    }

    static BridgeException tooManyCells(String where) {
        return HostWork.tooLarge(where, "more than " + MAX_CELLS + " cells");
    }

    /** The column index (0-based) of a reference like {@code "AB12"}, or -1 when it has none. */
    static int column(String ref) {
        int col = 0;
        int i = 0;
        while (i < ref.length() && Character.isLetter(ref.charAt(i))) {
            col = col * 26 + (Character.toUpperCase(ref.charAt(i)) - 'A' + 1);
            if (col > MAX_COLUMNS) {
                return Integer.MAX_VALUE;
            }
            i++;
        }
        return i == 0 ? -1 : col - 1;
    }

    /** The column letters of a 0-based index. */
    static String letters(int col) {
        StringBuilder s = new StringBuilder();
        for (int c = col + 1; c > 0; c = (c - 1) / 26) {
            s.append((char) ('A' + (c - 1) % 26));
        }
        return s.reverse().toString();
    }

    /** For the writer and reader: every cell a sheet has. */
    static void count(int[] cells, String where) {
        if (++cells[0] > MAX_CELLS) {
            throw tooManyCells(where);
        }
    }
}
