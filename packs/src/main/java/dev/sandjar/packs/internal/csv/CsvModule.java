package dev.sandjar.packs.internal.csv;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.internal.HostArgs;
import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;
import org.apache.commons.csv.QuoteMode;

/**
 * The {@code csv} host module, declared by {@code @sandjar/csv}: CSV parsed and written by Apache
 * Commons CSV. The input is read as a stream through a guard that counts, before the parser builds
 * anything, each field's characters and each record's columns, so a 100 MB quoted field is refused
 * after about {@code 2 ×} {@link #MAX_FIELD_CHARS} characters; the parsed values are then checked
 * exactly. Caps: the input ({@link HostLimits}), {@link #MAX_FIELD_CHARS} per field, {@link
 * #MAX_COLUMNS} per row, {@link #MAX_ROWS} rows, and the written text at most {@link
 * HostLimits#MAX_TEXT_CHARS} characters.
 */
public final class CsvModule {
    static final String ID = "csv";
    static final String PACKAGE = "@sandjar/csv";

    static final int MAX_FIELD_CHARS = 1 << 20;
    static final int MAX_COLUMNS = 10_000;
    static final int MAX_ROWS = 1_000_000;

    private CsvModule() {}

    public static HostModule create() {
        return HostModule.builder(ID, PACKAGE)
                .description("CSV parse and stringify with headers (Apache Commons CSV)")
                .export(
                        Operation.builder("parse")
                                .param(Param.any("input"))
                                .param(Param.object("options").optional().maxLength(8))
                                .handler(CsvModule::parse)
                                .build())
                .export(
                        Operation.builder("stringify")
                                .param(Param.array("rows").maxLength(MAX_ROWS))
                                .param(Param.object("options").optional().maxLength(8))
                                .handler(CsvModule::stringify)
                                .build())
                .build();
    }

    /** How a call reads or writes CSV. */
    record Options(
            Object header,
            char delimiter,
            char quote,
            boolean trim,
            boolean skipEmptyLines,
            String newline) {
        static Options of(HostArgs.Options o, String where) {
            Object header = o.raw("header");
            if (header != null && !(header instanceof Boolean) && !(header instanceof List)) {
                throw HostWork.invalid(
                        where, "options.header must be a boolean or an array of column names");
            }
            if (header instanceof List<?> names) {
                if (names.size() > MAX_COLUMNS) {
                    throw HostWork.tooLarge(
                            where,
                            "options.header has "
                                    + names.size()
                                    + " names; at most "
                                    + MAX_COLUMNS);
                }
                for (Object n : names) {
                    if (!(n instanceof String s) || s.length() > 1024) {
                        throw HostWork.invalid(
                                where,
                                "options.header names must be strings of at most 1024 chars");
                    }
                }
            }
            char delimiter = o.character("delimiter", ',');
            char quote = o.character("quote", '"');
            if (delimiter == quote) {
                throw HostWork.invalid(where, "options.delimiter and options.quote must differ");
            }
            String newline = o.choice("newline", "\n", List.of("\n", "\r\n"));
            return new Options(
                    header,
                    delimiter,
                    quote,
                    o.bool("trim", false),
                    o.bool("skipEmptyLines", true),
                    newline);
        }

        CSVFormat format() {
            return CSVFormat.RFC4180
                    .builder()
                    .setDelimiter(delimiter)
                    .setQuote(quote)
                    .setIgnoreSurroundingSpaces(trim)
                    .setIgnoreEmptyLines(skipEmptyLines)
                    .setRecordSeparator(newline)
                    .setQuoteMode(QuoteMode.MINIMAL)
                    .get();
        }
    }

    private static Object parse(OperationCall call) {
        String text = HostArgs.text(call, 0, "input");
        Options options =
                Options.of(
                        HostArgs.options(
                                call, 1, "header", "delimiter", "quote", "trim", "skipEmptyLines"),
                        call.where());
        return HostWork.submit(call, w -> parse(new StringReader(text), options, w));
    }

    /**
     * Parses {@code in}: rows as arrays, or as objects keyed by the header when {@code header} is
     * true (the first row) or a list of names.
     */
    static List<Object> parse(Reader in, Options options, HostWork.Work work) {
        String where = work.where();
        Guard guard = new Guard(in, options.delimiter(), options.quote(), work);
        List<Object> rows = new ArrayList<>();
        List<String> header = options.header() instanceof List<?> names ? strings(names) : null;
        boolean headerRow = Boolean.TRUE.equals(options.header());
        try (CSVParser parser = options.format().parse(guard)) {
            for (CSVRecord record : parser) {
                long row = record.getRecordNumber();
                if (row > MAX_ROWS + (headerRow ? 1 : 0)) {
                    throw tooLarge(where, "more than " + MAX_ROWS + " rows");
                }
                List<String> values = record.toList();
                for (int i = 0; i < values.size(); i++) {
                    if (values.get(i).length() > MAX_FIELD_CHARS) {
                        throw fieldTooLarge(where, row);
                    }
                }
                work.output(values.size() * 8L + guard.sinceLastRecord());
                guard.recordEnded();
                if (headerRow && header == null) {
                    header = values;
                    Set<String> seen = new HashSet<>();
                    for (String name : header) {
                        if (!seen.add(name)) {
                            throw malformed(
                                    where, "the header names column '" + clip(name) + "' twice");
                        }
                    }
                    continue;
                }
                rows.add(header == null ? values : object(where, header, values, row));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof Refusal r) {
                throw r.error;
            }
            throw malformed(where, e.getCause().getMessage());
        } catch (IllegalStateException | IllegalArgumentException e) {
            // Commons CSV's own complaints: an unterminated quote, text after a closing quote.
            if (e.getCause() instanceof Refusal r) {
                throw r.error;
            }
            throw malformed(where, e.getMessage());
        }
        return rows;
    }

    private static Map<String, Object> object(
            String where, List<String> header, List<String> values, long row) {
        Map<String, Object> o = new LinkedHashMap<>();
        for (int i = 0; i < values.size(); i++) {
            if (i >= header.size()) {
                if (!values.get(i).isEmpty()) {
                    throw malformed(
                            where,
                            "row "
                                    + row
                                    + " has "
                                    + values.size()
                                    + " fields; the header has "
                                    + header.size());
                }
                continue;
            }
            o.put(header.get(i), values.get(i));
        }
        return o;
    }

    private static Object stringify(OperationCall call) {
        List<Object> rows = call.array(0);
        Options options =
                Options.of(
                        HostArgs.options(call, 1, "header", "delimiter", "quote", "newline"),
                        call.where());
        return HostWork.submit(call, w -> stringify(rows, options, w));
    }

    static String stringify(List<Object> rows, Options options, HostWork.Work work) {
        String where = work.where();
        List<String> header = null;
        boolean objects = !rows.isEmpty() && rows.get(0) instanceof Map;
        if (options.header() instanceof List<?> names) {
            header = strings(names);
        } else if (objects && !Boolean.FALSE.equals(options.header())) {
            header = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (Object row : rows) {
                if (row instanceof Map<?, ?> m) {
                    for (Object k : m.keySet()) {
                        if (seen.add((String) k)) {
                            header.add((String) k);
                        }
                    }
                }
                if (header.size() > MAX_COLUMNS) {
                    throw tooLarge(where, "more than " + MAX_COLUMNS + " columns");
                }
            }
        }
        if (objects && header == null) {
            throw HostWork.invalid(
                    where, "rows of objects need a header (options.header: false is for arrays)");
        }
        Bounded out = new Bounded(where);
        try (CSVPrinter printer = new CSVPrinter(out, options.format())) {
            if (header != null && !Boolean.FALSE.equals(options.header())) {
                printer.printRecord(header);
            }
            int n = 0;
            for (Object row : rows) {
                work.check();
                n++;
                List<String> cells = new ArrayList<>();
                if (row instanceof List<?> list) {
                    for (Object v : list) {
                        cells.add(cell(where, n, v));
                    }
                } else if (row instanceof Map<?, ?> map && header != null) {
                    for (String column : header) {
                        cells.add(cell(where, n, map.get(column)));
                    }
                } else {
                    throw HostWork.invalid(
                            where, "row " + n + " must be an array or, with a header, an object");
                }
                if (cells.size() > MAX_COLUMNS) {
                    throw tooLarge(
                            where,
                            "row "
                                    + n
                                    + " has "
                                    + cells.size()
                                    + " columns; at most "
                                    + MAX_COLUMNS);
                }
                printer.printRecord(cells);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        work.output(out.text.length());
        return out.text.toString();
    }

    private static String cell(String where, int row, Object v) {
        if (v == null || v == dev.sandjar.transport.Undefined.INSTANCE) {
            return "";
        }
        if (v instanceof String s) {
            if (s.length() > MAX_FIELD_CHARS) {
                throw fieldTooLarge(where, row);
            }
            return s;
        }
        if (v instanceof Boolean || v instanceof Long) {
            return v.toString();
        }
        if (v instanceof Double d) {
            return d == Math.rint(d) && Math.abs(d) < 1e15
                    ? Long.toString(d.longValue())
                    : d.toString();
        }
        throw HostWork.invalid(
                where, "row " + row + ": a cell must be a string, number, boolean or null");
    }

    private static List<String> strings(List<?> names) {
        List<String> out = new ArrayList<>();
        names.forEach(n -> out.add((String) n));
        return out;
    }

    private static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }

    static BridgeException tooLarge(String where, String message) {
        return HostWork.tooLarge(where, message);
    }

    static BridgeException fieldTooLarge(String where, long row) {
        return HostWork.tooLarge(
                where,
                "row " + row + " has a field longer than " + MAX_FIELD_CHARS + " characters");
    }

    static BridgeException malformed(String where, String message) {
        return new BridgeException("CsvError", "CSV_MALFORMED", where + ": " + message);
    }

    /** A bound the guard hit, carried through the parser (which wraps reader failures). */
    static final class Refusal extends IOException {
        private static final long serialVersionUID = 1L;
        final transient BridgeException error;

        Refusal(BridgeException error) {
            super(error.getMessage());
            this.error = error;
        }
    }

    /**
     * Counts what the parser is about to read: characters of the current field (quotes included, so
     * a field may read as up to twice its value plus two) and delimiters of the current record,
     * outside quotes. Runs before the parser builds a value, so an oversized field is refused while
     * it streams in.
     */
    static final class Guard extends Reader {
        private final Reader in;
        private final char delimiter;
        private final char quote;
        private final HostWork.Work work;
        private boolean quoted;
        private long field;
        private int columns = 1;
        private long rows = 1;
        private long read;
        private long recordStart;

        Guard(Reader in, char delimiter, char quote, HostWork.Work work) {
            this.in = in;
            this.delimiter = delimiter;
            this.quote = quote;
            this.work = work;
        }

        long sinceLastRecord() {
            return read - recordStart;
        }

        void recordEnded() {
            recordStart = read;
        }

        @Override
        public int read(char[] buf, int off, int len) throws IOException {
            work.check();
            int n = in.read(buf, off, Math.min(len, 8192));
            for (int i = off; i < off + n; i++) {
                char c = buf[i];
                if (c == quote) {
                    quoted = !quoted;
                    field++;
                } else if (!quoted && c == delimiter) {
                    field = 0;
                    if (++columns > MAX_COLUMNS) {
                        throw new Refusal(
                                tooLarge(
                                        work.where(),
                                        "row "
                                                + rows
                                                + " has more than "
                                                + MAX_COLUMNS
                                                + " columns"));
                    }
                } else if (!quoted && (c == '\n' || c == '\r')) {
                    field = 0;
                    columns = 1;
                    if (c == '\n') {
                        rows++;
                    }
                } else {
                    field++;
                }
                if (field > 2L * MAX_FIELD_CHARS + 2) {
                    throw new Refusal(fieldTooLarge(work.where(), rows));
                }
            }
            if (n > 0) {
                read += n;
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** A text sink that refuses to grow past the module's output cap. */
    private static final class Bounded implements Appendable {
        final StringBuilder text = new StringBuilder();
        private final String where;

        Bounded(String where) {
            this.where = where;
        }

        private void grow(int n) {
            if (text.length() + (long) n > HostLimits.MAX_TEXT_CHARS) {
                throw new BridgeException(
                        "RangeError",
                        "OUTPUT_TOO_LARGE",
                        where
                                + ": the CSV text is longer than "
                                + HostLimits.MAX_TEXT_CHARS
                                + " characters");
            }
        }

        @Override
        public Appendable append(CharSequence s) {
            grow(s.length());
            text.append(s);
            return this;
        }

        @Override
        public Appendable append(CharSequence s, int start, int end) {
            grow(end - start);
            text.append(s, start, end);
            return this;
        }

        @Override
        public Appendable append(char c) {
            grow(1);
            text.append(c);
            return this;
        }
    }
}
