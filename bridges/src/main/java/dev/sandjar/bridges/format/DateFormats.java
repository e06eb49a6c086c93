package dev.sandjar.bridges.format;

import com.ibm.icu.text.DateFormat;
import com.ibm.icu.util.TimeZone;
import com.ibm.icu.util.ULocale;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;

/**
 * {@code format.date}: the options of {@code Intl.DateTimeFormat}, on ICU's DateFormat. Field
 * options become an ICU skeleton that the locale's pattern generator turns into a pattern; {@code
 * dateStyle}/{@code timeStyle} use the locale's own patterns. The time zone defaults to UTC, not
 * the host's, so a run formats the same wherever it runs.
 */
final class DateFormats {
    static final String WHERE = "format.date";

    /** ECMA-262's time value range: 100,000,000 days either side of the epoch. */
    static final double MAX_TIME = 8.64e15;

    /** Named "UTC" when a pattern shows the zone, as Intl names it. */
    private static final TimeZone UTC = TimeZone.getTimeZone("UTC").freeze();

    private static final List<String> STYLES = List.of("full", "long", "medium", "short");
    private static final List<String> TEXT = List.of("narrow", "short", "long");
    private static final List<String> NUMERIC = List.of("numeric", "2-digit");
    private static final List<String> FIELDS =
            List.of(
                    "weekday",
                    "era",
                    "year",
                    "month",
                    "day",
                    "dayPeriod",
                    "hour",
                    "minute",
                    "second",
                    "fractionalSecondDigits",
                    "timeZoneName");

    static final Set<String> OPTIONS =
            Set.of(
                    "dateStyle",
                    "timeStyle",
                    "timeZone",
                    "hour12",
                    "hourCycle",
                    "calendar",
                    "numberingSystem",
                    "weekday",
                    "era",
                    "year",
                    "month",
                    "day",
                    "dayPeriod",
                    "hour",
                    "minute",
                    "second",
                    "fractionalSecondDigits",
                    "timeZoneName");

    private DateFormats() {}

    static String format(Object value, Object localeArg, Options o) {
        double ms = epochMillis(value);
        ULocale locale = Locales.resolve(WHERE, localeArg);
        locale = Locales.withKeyword(WHERE, locale, "calendar", "ca", o.string("calendar"));
        locale =
                Locales.withKeyword(
                        WHERE, locale, "numberingSystem", "nu", o.string("numberingSystem"));
        TimeZone zone = zone(o.string("timeZone"));
        String hourCycle = hourCycle(o);

        String dateStyle = o.choice("dateStyle", STYLES, null);
        String timeStyle = o.choice("timeStyle", STYLES, null);
        DateFormat df;
        if (dateStyle != null || timeStyle != null) {
            for (String field : FIELDS) {
                if (o.has(field)) {
                    throw Options.rangeError(
                            WHERE,
                            "INVALID_OPTION",
                            "option " + field + " cannot be combined with dateStyle or timeStyle");
                }
            }
            if (hourCycle != null) {
                locale = Locales.withKeyword(WHERE, locale, "hourCycle", "hc", hourCycle);
            }
            int ds = dateStyle == null ? DateFormat.NONE : style(dateStyle);
            int ts = timeStyle == null ? DateFormat.NONE : style(timeStyle);
            df = DateFormat.getDateTimeInstance(ds, ts, locale);
        } else {
            df = DateFormat.getInstanceForSkeleton(skeleton(o, hourCycle), locale);
        }
        df.setTimeZone(zone);
        return df.format(new Date((long) ms));
    }

    private static double epochMillis(Object value) {
        double ms;
        if (value instanceof Instant i) {
            ms = i.toEpochMilli();
        } else if (value instanceof Long l) {
            ms = l;
        } else if (value instanceof Double d) {
            ms = d;
        } else {
            throw Options.typeError(
                    WHERE,
                    "value must be a Date or a number of milliseconds since the epoch, got "
                            + Options.describe(value));
        }
        if (Double.isNaN(ms) || Math.abs(ms) > MAX_TIME) {
            throw Options.rangeError(
                    WHERE,
                    "INVALID_DATE",
                    "the time value is invalid (NaN or beyond +-8.64e15 ms from the epoch)");
        }
        return Math.floor(ms);
    }

    private static int style(String s) {
        return switch (s) {
            case "full" -> DateFormat.FULL;
            case "long" -> DateFormat.LONG;
            case "medium" -> DateFormat.MEDIUM;
            default -> DateFormat.SHORT;
        };
    }

    /** {@code hour12} wins over {@code hourCycle}, as in Intl; null when neither is set. */
    private static String hourCycle(Options o) {
        Boolean hour12 = o.bool("hour12");
        String cycle = o.choice("hourCycle", List.of("h11", "h12", "h23", "h24"), null);
        if (hour12 != null) {
            return hour12 ? "h12" : "h23";
        }
        return cycle;
    }

    private static String skeleton(Options o, String hourCycle) {
        StringBuilder s = new StringBuilder();
        boolean any = false;
        String era = o.choice("era", TEXT, null);
        if (era != null) {
            s.append(text(era, "G", "GGGG", "GGGGG"));
        }
        String year = o.choice("year", NUMERIC, null);
        if (year != null) {
            s.append(year.equals("2-digit") ? "yy" : "y");
            any = true;
        }
        String month =
                o.choice("month", List.of("numeric", "2-digit", "narrow", "short", "long"), null);
        if (month != null) {
            s.append(
                    switch (month) {
                        case "2-digit" -> "MM";
                        case "narrow" -> "MMMMM";
                        case "short" -> "MMM";
                        case "long" -> "MMMM";
                        default -> "M";
                    });
            any = true;
        }
        String weekday = o.choice("weekday", TEXT, null);
        if (weekday != null) {
            s.append(text(weekday, "EEE", "EEEE", "EEEEE"));
            any = true;
        }
        String day = o.choice("day", NUMERIC, null);
        if (day != null) {
            s.append(day.equals("2-digit") ? "dd" : "d");
            any = true;
        }
        String dayPeriod = o.choice("dayPeriod", TEXT, null);
        if (dayPeriod != null) {
            s.append(text(dayPeriod, "B", "BBBB", "BBBBB"));
            any = true;
        }
        String hour = o.choice("hour", NUMERIC, null);
        if (hour != null) {
            char c =
                    hourCycle == null
                            ? 'j'
                            : switch (hourCycle) {
                                case "h11" -> 'K';
                                case "h12" -> 'h';
                                case "h24" -> 'k';
                                default -> 'H';
                            };
            s.append(c);
            if (hour.equals("2-digit")) {
                s.append(c);
            }
            any = true;
        }
        String minute = o.choice("minute", NUMERIC, null);
        if (minute != null) {
            s.append(minute.equals("2-digit") ? "mm" : "m");
            any = true;
        }
        String second = o.choice("second", NUMERIC, null);
        if (second != null) {
            s.append(second.equals("2-digit") ? "ss" : "s");
            any = true;
        }
        Integer fraction = o.integer("fractionalSecondDigits", 1, 3);
        if (fraction != null) {
            s.append("S".repeat(fraction));
            any = true;
        }
        String zoneName =
                o.choice(
                        "timeZoneName",
                        List.of(
                                "short",
                                "long",
                                "shortOffset",
                                "longOffset",
                                "shortGeneric",
                                "longGeneric"),
                        null);
        if (zoneName != null) {
            s.append(
                    switch (zoneName) {
                        case "long" -> "zzzz";
                        case "shortOffset" -> "O";
                        case "longOffset" -> "OOOO";
                        case "shortGeneric" -> "v";
                        case "longGeneric" -> "vvvv";
                        default -> "z";
                    });
        }
        // With no date or time field, Intl shows the date: year, month and day, all numeric.
        return any ? s.toString() : "yMd" + s;
    }

    private static String text(String width, String shortForm, String longForm, String narrow) {
        return switch (width) {
            case "long" -> longForm;
            case "narrow" -> narrow;
            default -> shortForm;
        };
    }

    /** An IANA zone, {@code UTC}, or an offset such as {@code +05:30}; UTC when absent. */
    private static TimeZone zone(String id) {
        if (id == null) {
            return UTC;
        }
        if (id.length() <= 64) {
            if (id.matches("[+-]\\d{2}(:?\\d{2})?")) {
                String offset = id.length() == 3 ? id + ":00" : id;
                if (offset.length() == 5) {
                    offset = offset.substring(0, 3) + ":" + offset.substring(3);
                }
                int hours = Integer.parseInt(offset.substring(1, 3));
                int minutes = Integer.parseInt(offset.substring(4, 6));
                if (hours <= 23 && minutes <= 59) {
                    return TimeZone.getTimeZone("GMT" + offset);
                }
            } else if (id.equalsIgnoreCase("UTC")) {
                return UTC;
            } else {
                String canonical = TimeZone.getCanonicalID(id);
                if (canonical != null && !canonical.equals(TimeZone.UNKNOWN_ZONE_ID)) {
                    return TimeZone.getTimeZone(canonical);
                }
            }
        }
        throw Options.rangeError(
                WHERE,
                "INVALID_OPTION",
                "option timeZone "
                        + Options.describe(id)
                        + " is not a time zone; use an IANA name such as 'Europe/Paris', 'UTC',"
                        + " or an offset such as '+05:30'");
    }
}
