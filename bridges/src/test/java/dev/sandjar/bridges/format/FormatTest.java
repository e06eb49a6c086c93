package dev.sandjar.bridges.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.time.Year;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * format.*: the results {@code Intl} gives for the same calls, and its refusals. CLDR puts no-break
 * spaces (U+00A0, U+202F) in some results; the guest maps them to plain spaces here so the
 * expectations stay readable.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FormatTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    /** Each line of {@code calls} is a format call; the results (or errors) in order. */
    private static List<?> results(String calls) {
        String code =
                "const d = new Date(Date.UTC(2024, 2, 5, 14, 7, 9, 123));\n"
                        + "const calls = [\n"
                        + calls
                        + "];\n"
                        + "return Promise.all(calls.map((c) => c().then((s) => s.replace(/[\\u00a0"
                        + "\\u202f]/g, ' '), (e) => `${e.name} ${e.code}: ${e.message}`)));";
        return (List<?>)
                sandbox.run(RunRequest.builder(code).bridge(Format.bridge()).build())
                        .valueOrThrow();
    }

    @Test
    void numbersFormatAsIntlNumberFormatDoes() {
        List<?> out =
                results(
                        "() => format.number(1234567.891),\n"
                                + "() => format.number(1234.5, 'de-DE', { style: 'currency',"
                                + " currency: 'EUR' }),\n"
                                + "() => format.number(0.256, 'en-US', { style: 'percent' }),\n"
                                + "() => format.number(1234567, 'en', { notation: 'compact' }),\n"
                                + "() => format.number(1500, 'en', { notation: 'compact',"
                                + " compactDisplay: 'long' }),\n"
                                + "() => format.number(50, 'en', { style: 'unit', unit:"
                                + " 'kilometer-per-hour' }),\n"
                                + "() => format.number(50, 'en', { style: 'unit', unit:"
                                + " 'kilometer-per-hour', unitDisplay: 'long' }),\n"
                                + "() => format.number(2.5, 'en', { maximumFractionDigits: 0 }),\n"
                                + "() => format.number(-2.5, 'en', { maximumFractionDigits: 0 }),\n"
                                + "() => format.number(123456789012345678901234567890n),\n"
                                + "() => format.number(-5, 'en', { style: 'currency', currency:"
                                + " 'usd', currencySign: 'accounting' }),\n"
                                + "() => format.number(1234.5678, 'en', { minimumFractionDigits:"
                                + " 2, maximumFractionDigits: 2 }),\n"
                                + "() => format.number(5, 'en', { minimumIntegerDigits: 3 }),\n"
                                + "() => format.number(1234567, 'en', { useGrouping: false }),\n"
                                + "() => format.number(0.000123456, 'en', {"
                                + " maximumSignificantDigits: 3 }),\n"
                                + "() => format.number(12345, 'en', { notation: 'scientific' }),\n"
                                + "() => format.number(5, 'en', { signDisplay: 'always' }),\n"
                                + "() => format.number(0, 'en', { signDisplay: 'exceptZero' }),\n"
                                + "() => format.number('12.5', 'en', { minimumFractionDigits: 2"
                                + " }),\n"
                                + "() => format.number(NaN),\n"
                                + "() => format.number(-Infinity),\n"
                                + "() => format.number(1234567.8, 'en-IN'),\n"
                                + "() => format.number(123, 'en', { numberingSystem: 'arab' }),\n"
                                + "() => format.number(1000, 'en', { style: 'currency', currency:"
                                + " 'JPY' }),\n"
                                + "() => format.number(1000, ['es', 'en']),\n"
                                + "() => format.number(1, 'en', { currency: undefined }),\n");
        assertEquals(
                List.of(
                        "1,234,567.891",
                        "1.234,50 €",
                        "26%",
                        "1.2M",
                        "1.5 thousand",
                        "50 km/h",
                        "50 kilometers per hour",
                        "3",
                        "-3",
                        "123,456,789,012,345,678,901,234,567,890",
                        "($5.00)",
                        "1,234.57",
                        "005",
                        "1234567",
                        "0.000123",
                        "1.235E4",
                        "+5",
                        "0",
                        "12.50",
                        "NaN",
                        "-∞",
                        "12,34,567.8",
                        "١٢٣",
                        "¥1,000",
                        "1000",
                        "1"),
                out);
    }

    @Test
    void datesFormatAsIntlDateTimeFormatDoesInUtcByDefault() {
        List<?> out =
                results(
                        "() => format.date(d),\n"
                                + "() => format.date(d, 'en-US', { dateStyle: 'full', timeStyle:"
                                + " 'short', timeZone: 'Europe/Paris' }),\n"
                                + "() => format.date(d, 'en-GB', { dateStyle: 'medium' }),\n"
                                + "() => format.date(d, 'de-DE', { dateStyle: 'long' }),\n"
                                + "() => format.date(d, 'en-US', { timeStyle: 'short', hour12:"
                                + " false }),\n"
                                + "() => format.date(d, 'en-US', { hour: 'numeric', minute:"
                                + " '2-digit' }),\n"
                                + "() => format.date(d, 'en-US', { hour: '2-digit', minute:"
                                + " '2-digit', hourCycle: 'h23' }),\n"
                                + "() => format.date(d, 'en-US', { weekday: 'long', year:"
                                + " 'numeric', month: 'long', day: 'numeric' }),\n"
                                + "() => format.date(d, 'en-US', { year: '2-digit', month:"
                                + " '2-digit', day: '2-digit' }),\n"
                                + "() => format.date(d, 'en-US', { hour: 'numeric', minute:"
                                + " '2-digit', second: '2-digit', fractionalSecondDigits: 3 }),\n"
                                + "() => format.date(d, 'en-US', { timeZone: 'Asia/Kolkata',"
                                + " timeStyle: 'long' }),\n"
                                + "() => format.date(d.getTime(), 'en-US', { timeZone: '+05:30',"
                                + " hour: 'numeric', minute: '2-digit' }),\n"
                                + "() => format.date(d, 'en-US', { month: 'long' }),\n"
                                + "() => format.date(d, 'ja-JP', { dateStyle: 'long' }),\n"
                                + "() => format.date(d, 'en-US', { hour: 'numeric', timeZoneName:"
                                + " 'short' }),\n"
                                + "() => format.date(undefined, 'en-US', { year: 'numeric' }),\n");
        assertEquals(
                List.of(
                        "3/5/2024",
                        "Tuesday, March 5, 2024 at 3:07 PM",
                        "5 Mar 2024",
                        "5. März 2024",
                        "14:07",
                        "2:07 PM",
                        "14:07",
                        "Tuesday, March 5, 2024",
                        "03/05/24",
                        "2:07:09.123 PM",
                        "7:37:09 PM GMT+5:30",
                        "7:37 PM",
                        "March",
                        "2024年3月5日",
                        "2 PM UTC",
                        // No value is now, as in Intl.
                        String.valueOf(Year.now(ZoneOffset.UTC).getValue())),
                out);
    }

    @Test
    void relativeTimesAndListsFormatAsIntlDoes() {
        List<?> out =
                results(
                        "() => format.relativeTime(-1, 'day', 'en', { numeric: 'auto' }),\n"
                                + "() => format.relativeTime(-1, 'day'),\n"
                                + "() => format.relativeTime(3, 'hours'),\n"
                                + "() => format.relativeTime(2, 'week', 'en', { style: 'short'"
                                + " }),\n"
                                + "() => format.relativeTime(0, 'second', 'en', { numeric: 'auto'"
                                + " }),\n"
                                + "() => format.relativeTime(1, 'quarter'),\n"
                                + "() => format.relativeTime(-2, 'month', 'fr'),\n"
                                + "() => format.relativeTime(1.5, 'hour'),\n"
                                + "() => format.list(['a', 'b', 'c']),\n"
                                + "() => format.list(['a', 'b', 'c'], 'en', { type: 'disjunction'"
                                + " }),\n"
                                + "() => format.list(['a', 'b', 'c'], 'de'),\n"
                                + "() => format.list(['a', 'b']),\n"
                                + "() => format.list(['a', 'b', 'c'], 'en', { type: 'unit', style:"
                                + " 'narrow' }),\n"
                                + "() => format.list(['a', 'b', 'c'], 'en', { style: 'short' }),\n"
                                + "() => format.list([]),\n");
        assertEquals(
                List.of(
                        "yesterday",
                        "1 day ago",
                        "in 3 hours",
                        "in 2 wk.",
                        "now",
                        "in 1 quarter",
                        "il y a 2 mois",
                        "in 1.5 hours",
                        "a, b, and c",
                        "a, b, or c",
                        "a, b und c",
                        "a and b",
                        "a b c",
                        "a, b, & c",
                        ""),
                out);
    }

    @Test
    void badLocalesOptionsAndValuesRejectWithClearErrors() {
        List<?> out =
                results(
                        "() => format.number(1, 'en_US!!'),\n"
                                + "() => format.number(1, ''),\n"
                                + "() => format.number(1, 42),\n"
                                + "() => format.number(1, ['en', 'not a tag']),\n"
                                + "() => format.number(1, 'en', { style: 'money' }),\n"
                                + "() => format.number(1, 'en', { bogus: 1 }),\n"
                                + "() => format.number(1, 'en', { minimumFractionDigits: 3,"
                                + " maximumFractionDigits: 1 }),\n"
                                + "() => format.number(1, 'en', { maximumFractionDigits: 101 }),\n"
                                + "() => format.number(1, 'en', { style: 'currency' }),\n"
                                + "() => format.number(1, 'en', { style: 'currency', currency:"
                                + " 'EURO' }),\n"
                                + "() => format.number(1, 'en', { style: 'unit', unit: 'furlongs'"
                                + " }),\n"
                                + "() => format.number(1, 'en', { currency: 'USD' }),\n"
                                + "() => format.number({}),\n"
                                + "() => format.number('abc'),\n"
                                + "() => format.number(1, 'en', 'x'),\n"
                                + "() => format.date(new Date(NaN)),\n"
                                + "() => format.date('2024-01-01'),\n"
                                + "() => format.date(d, 'en', { timeZone: 'Mars/Olympus' }),\n"
                                + "() => format.date(d, 'en', { dateStyle: 'full', month: 'long'"
                                + " }),\n"
                                + "() => format.date(d, 'en', { hour12: 'yes' }),\n"
                                + "() => format.relativeTime(1, 'fortnight'),\n"
                                + "() => format.relativeTime(Infinity, 'day'),\n"
                                + "() => format.relativeTime('1', 'day'),\n"
                                + "() => format.list(['a', 1]),\n"
                                + "() => format.list('abc'),\n");
        String[][] expected = {
            {"RangeError INVALID_LOCALE", "locale 'en_US!!' is not a well-formed BCP 47"},
            {"RangeError INVALID_LOCALE", "locale '' is not a well-formed"},
            {"TypeError INVALID_ARGUMENT", "locale must be a BCP 47 tag"},
            {"RangeError INVALID_LOCALE", "locale 'not a tag'"},
            {"RangeError INVALID_OPTION", "option style must be one of 'decimal', 'percent',"},
            {"RangeError INVALID_OPTION", "unknown option 'bogus'; the options are ["},
            {"RangeError INVALID_OPTION", "minimumFractionDigits (3) must be <="},
            {"RangeError INVALID_OPTION", "maximumFractionDigits must be an integer from 0 to 100"},
            {"TypeError INVALID_ARGUMENT", "style 'currency' needs the currency option"},
            {"RangeError INVALID_OPTION", "three-letter ISO 4217 code"},
            {"RangeError INVALID_OPTION", "option unit 'furlongs' is not a unit"},
            {"RangeError INVALID_OPTION", "currency options need style 'currency'"},
            {"TypeError INVALID_ARGUMENT", "value must be a number, a bigint or a numeric string"},
            {"RangeError INVALID_NUMBER", "the string 'abc' is not a decimal number"},
            {"TypeError INVALID_ARGUMENT", "argument 3 (options) must be a plain object"},
            {"RangeError INVALID_DATE", "the time value is invalid"},
            {"TypeError INVALID_ARGUMENT", "value must be a Date or a number of milliseconds"},
            {"RangeError INVALID_OPTION", "option timeZone 'Mars/Olympus' is not a time zone"},
            {"RangeError INVALID_OPTION", "option month cannot be combined with dateStyle"},
            {"RangeError INVALID_OPTION", "option hour12 must be true or false, got 'yes'"},
            {"RangeError INVALID_UNIT", "unit 'fortnight' is not one of 'year', 'quarter',"},
            {"RangeError INVALID_NUMBER", "value must be a finite number, got Infinity"},
            {"TypeError INVALID_ARGUMENT", "value must be a number, got a string"},
            {"TypeError INVALID_ARGUMENT", "items[1] must be a string, got 1"},
            {"TypeError INVALID_ARGUMENT", "argument 1 (items) must be an array"},
        };
        assertEquals(expected.length, out.size());
        for (int i = 0; i < expected.length; i++) {
            String e = (String) out.get(i);
            assertTrue(e.startsWith(expected[i][0] + ": format."), i + ": " + e);
            assertTrue(e.contains(expected[i][1]), i + ": " + e);
        }
    }

    @Test
    void everyCallReturnsAPromiseEvenWhenItFails() {
        Object out =
                sandbox.run(
                                RunRequest.builder(
                                                "const p = [format.number(1), format.number(1, 'bad"
                                                        + " tag!'), format.date(), format.list(7),"
                                                        + " format.relativeTime()];\n"
                                                        + "await Promise.allSettled(p);\n"
                                                        + "return p.every((x) => x instanceof"
                                                        + " Promise);")
                                        .bridge(Format.bridge())
                                        .build())
                        .valueOrThrow();
        assertEquals(true, out);
    }
}
