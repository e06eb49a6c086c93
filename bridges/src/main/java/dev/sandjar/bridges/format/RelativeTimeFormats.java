package dev.sandjar.bridges.format;

import com.ibm.icu.text.DisplayContext;
import com.ibm.icu.text.RelativeDateTimeFormatter;
import com.ibm.icu.text.RelativeDateTimeFormatter.RelativeDateTimeUnit;
import com.ibm.icu.util.ULocale;
import dev.sandjar.bridges.internal.Args;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** {@code format.relativeTime}: the options of {@code Intl.RelativeTimeFormat}, on ICU. */
final class RelativeTimeFormats {
    static final String WHERE = "format.relativeTime";
    static final Set<String> OPTIONS = Set.of("numeric", "style", "numberingSystem");
    private static final List<String> UNITS =
            List.of("year", "quarter", "month", "week", "day", "hour", "minute", "second");

    private RelativeTimeFormats() {}

    static String format(double value, String unit, Object localeArg, Options o) {
        if (!Double.isFinite(value)) {
            throw Options.rangeError(
                    WHERE,
                    "INVALID_NUMBER",
                    "value must be a finite number, got " + Args.show(value));
        }
        RelativeDateTimeUnit u = unit(unit);
        ULocale locale = Locales.resolve(WHERE, localeArg);
        locale =
                Locales.withKeyword(
                        WHERE, locale, "numberingSystem", "nu", o.string("numberingSystem"));
        String numeric = o.choice("numeric", List.of("always", "auto"), "always");
        RelativeDateTimeFormatter.Style style =
                switch (o.choice("style", List.of("long", "short", "narrow"), "long")) {
                    case "short" -> RelativeDateTimeFormatter.Style.SHORT;
                    case "narrow" -> RelativeDateTimeFormatter.Style.NARROW;
                    default -> RelativeDateTimeFormatter.Style.LONG;
                };
        RelativeDateTimeFormatter f =
                RelativeDateTimeFormatter.getInstance(
                        locale, null, style, DisplayContext.CAPITALIZATION_NONE);
        return numeric.equals("auto") ? f.format(value, u) : f.formatNumeric(value, u);
    }

    /** A unit, singular or plural, as Intl takes it. */
    private static RelativeDateTimeUnit unit(String given) {
        String u = given.endsWith("s") ? given.substring(0, given.length() - 1) : given;
        if (!UNITS.contains(u)) {
            throw Options.rangeError(
                    WHERE,
                    "INVALID_UNIT",
                    "unit "
                            + Options.describe(given)
                            + " is not one of "
                            + Options.quoted(UNITS)
                            + " (or their plurals)");
        }
        return RelativeDateTimeUnit.valueOf(u.toUpperCase(Locale.ROOT));
    }
}
