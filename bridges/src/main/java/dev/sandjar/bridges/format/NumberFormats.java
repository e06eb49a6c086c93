package dev.sandjar.bridges.format;

import com.ibm.icu.number.IntegerWidth;
import com.ibm.icu.number.LocalizedNumberFormatter;
import com.ibm.icu.number.Notation;
import com.ibm.icu.number.NumberFormatter;
import com.ibm.icu.number.NumberFormatter.GroupingStrategy;
import com.ibm.icu.number.NumberFormatter.SignDisplay;
import com.ibm.icu.number.NumberFormatter.UnitWidth;
import com.ibm.icu.number.Precision;
import com.ibm.icu.number.Scale;
import com.ibm.icu.util.Currency;
import com.ibm.icu.util.MeasureUnit;
import com.ibm.icu.util.NoUnit;
import com.ibm.icu.util.ULocale;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import java.util.Set;

/** {@code format.number}: the options of {@code Intl.NumberFormat}, on ICU's NumberFormatter. */
final class NumberFormats {
    static final String WHERE = "format.number";

    static final Set<String> OPTIONS =
            Set.of(
                    "style",
                    "currency",
                    "currencyDisplay",
                    "currencySign",
                    "unit",
                    "unitDisplay",
                    "notation",
                    "compactDisplay",
                    "signDisplay",
                    "useGrouping",
                    "minimumIntegerDigits",
                    "minimumFractionDigits",
                    "maximumFractionDigits",
                    "minimumSignificantDigits",
                    "maximumSignificantDigits",
                    "numberingSystem");

    private NumberFormats() {}

    static String format(Object value, Object locale, Options o) {
        Number number = number(value);
        return formatter(Locales.resolve(WHERE, locale), o).format(number).toString();
    }

    /** The value as Long, Double, BigInteger or BigDecimal (from a numeric string). */
    private static Number number(Object value) {
        if (value instanceof Long || value instanceof Double || value instanceof BigInteger) {
            return (Number) value;
        }
        if (value instanceof String s) {
            String t = s.strip();
            if (t.length() <= 1_000) {
                try {
                    return new BigDecimal(t);
                } catch (NumberFormatException e) {
                    // refused below
                }
            }
            throw Options.rangeError(
                    WHERE,
                    "INVALID_NUMBER",
                    "the string " + Options.describe(s) + " is not a decimal number");
        }
        throw Options.typeError(
                WHERE,
                "value must be a number, a bigint or a numeric string, got "
                        + Options.describe(value));
    }

    static LocalizedNumberFormatter formatter(ULocale locale, Options o) {
        String style =
                o.choice("style", List.of("decimal", "percent", "currency", "unit"), "decimal");
        locale =
                Locales.withKeyword(
                        WHERE, locale, "numberingSystem", "nu", o.string("numberingSystem"));
        LocalizedNumberFormatter f =
                NumberFormatter.withLocale(locale).roundingMode(RoundingMode.HALF_UP);

        int defaultMinFraction = 0;
        int defaultMaxFraction = 3;
        String currencySign =
                o.choice("currencySign", List.of("standard", "accounting"), "standard");
        switch (style) {
            case "percent" -> {
                f = f.unit(NoUnit.PERCENT).scale(Scale.powerOfTen(2));
                defaultMaxFraction = 0;
            }
            case "currency" -> {
                Currency currency = currency(o.string("currency"));
                int digits = currency.getDefaultFractionDigits();
                defaultMinFraction = digits;
                defaultMaxFraction = digits;
                String display =
                        o.choice(
                                "currencyDisplay",
                                List.of("symbol", "narrowSymbol", "code", "name"),
                                "symbol");
                f =
                        f.unit(currency)
                                .unitWidth(
                                        switch (display) {
                                            case "narrowSymbol" -> UnitWidth.NARROW;
                                            case "code" -> UnitWidth.ISO_CODE;
                                            case "name" -> UnitWidth.FULL_NAME;
                                            default -> UnitWidth.SHORT;
                                        });
            }
            case "unit" -> {
                f =
                        f.unit(unit(o.string("unit")))
                                .unitWidth(
                                        switch (o.choice(
                                                "unitDisplay",
                                                List.of("short", "long", "narrow"),
                                                "short")) {
                                            case "long" -> UnitWidth.FULL_NAME;
                                            case "narrow" -> UnitWidth.NARROW;
                                            default -> UnitWidth.SHORT;
                                        });
            }
            default -> {}
        }
        if (!style.equals("currency")
                && (o.has("currency") || o.has("currencyDisplay") || o.has("currencySign"))) {
            throw Options.rangeError(
                    WHERE,
                    "INVALID_OPTION",
                    "currency options need style 'currency' (got style '" + style + "')");
        }
        if (!style.equals("unit") && (o.has("unit") || o.has("unitDisplay"))) {
            throw Options.rangeError(
                    WHERE,
                    "INVALID_OPTION",
                    "unit options need style 'unit' (got style '" + style + "')");
        }

        String notation =
                o.choice(
                        "notation",
                        List.of("standard", "scientific", "engineering", "compact"),
                        "standard");
        String compactDisplay = o.choice("compactDisplay", List.of("short", "long"), "short");
        switch (notation) {
            case "scientific" -> f = f.notation(Notation.scientific());
            case "engineering" -> f = f.notation(Notation.engineering());
            case "compact" ->
                    f =
                            f.notation(
                                    compactDisplay.equals("long")
                                            ? Notation.compactLong()
                                            : Notation.compactShort());
            default -> {}
        }

        f = f.sign(sign(o, currencySign.equals("accounting")));
        f = f.grouping(grouping(o, notation.equals("compact")));

        Integer minInteger = o.integer("minimumIntegerDigits", 1, 21);
        if (minInteger != null) {
            f = f.integerWidth(IntegerWidth.zeroFillTo(minInteger));
        }
        Precision precision =
                precision(o, defaultMinFraction, defaultMaxFraction, notation.equals("compact"));
        return precision == null ? f : f.precision(precision);
    }

    /**
     * Digits as ECMA-402's SetNumberFormatDigitOptions sets them: significant digits win over
     * fraction digits; a lone minimum raises the default maximum and a lone maximum lowers the
     * default minimum; compact notation without digit options keeps ICU's compact rounding.
     */
    private static Precision precision(Options o, int defMin, int defMax, boolean compact) {
        Integer minSig = o.integer("minimumSignificantDigits", 1, 21);
        Integer maxSig = o.integer("maximumSignificantDigits", 1, 21);
        Integer minFrac = o.integer("minimumFractionDigits", 0, 100);
        Integer maxFrac = o.integer("maximumFractionDigits", 0, 100);
        if (minSig != null || maxSig != null) {
            int lo = minSig == null ? 1 : minSig;
            int hi = maxSig == null ? 21 : maxSig;
            if (lo > hi) {
                throw Options.rangeError(
                        WHERE,
                        "INVALID_OPTION",
                        "minimumSignificantDigits ("
                                + lo
                                + ") must be <= maximumSignificantDigits ("
                                + hi
                                + ")");
            }
            return Precision.minMaxSignificantDigits(lo, hi);
        }
        if (minFrac == null && maxFrac == null) {
            return compact ? null : Precision.minMaxFraction(defMin, defMax);
        }
        int lo = minFrac != null ? minFrac : Math.min(defMin, maxFrac);
        int hi = maxFrac != null ? maxFrac : Math.max(defMax, minFrac);
        if (lo > hi) {
            throw Options.rangeError(
                    WHERE,
                    "INVALID_OPTION",
                    "minimumFractionDigits ("
                            + lo
                            + ") must be <= maximumFractionDigits ("
                            + hi
                            + ")");
        }
        return Precision.minMaxFraction(lo, hi);
    }

    private static SignDisplay sign(Options o, boolean accounting) {
        String sign =
                o.choice(
                        "signDisplay",
                        List.of("auto", "never", "always", "exceptZero", "negative"),
                        "auto");
        return switch (sign) {
            case "never" -> SignDisplay.NEVER;
            case "always" -> accounting ? SignDisplay.ACCOUNTING_ALWAYS : SignDisplay.ALWAYS;
            case "exceptZero" ->
                    accounting ? SignDisplay.ACCOUNTING_EXCEPT_ZERO : SignDisplay.EXCEPT_ZERO;
            case "negative" -> accounting ? SignDisplay.ACCOUNTING_NEGATIVE : SignDisplay.NEGATIVE;
            default -> accounting ? SignDisplay.ACCOUNTING : SignDisplay.AUTO;
        };
    }

    private static GroupingStrategy grouping(Options o, boolean compact) {
        Object v = o.raw("useGrouping");
        if (v == null) {
            return compact ? GroupingStrategy.MIN2 : GroupingStrategy.AUTO;
        }
        if (v instanceof Boolean b) {
            return b ? GroupingStrategy.ON_ALIGNED : GroupingStrategy.OFF;
        }
        return switch (o.choice("useGrouping", List.of("always", "auto", "min2"), "auto")) {
            case "always" -> GroupingStrategy.ON_ALIGNED;
            case "min2" -> GroupingStrategy.MIN2;
            default -> GroupingStrategy.AUTO;
        };
    }

    private static Currency currency(String code) {
        if (code == null) {
            throw Options.typeError(
                    WHERE, "style 'currency' needs the currency option, for example 'USD'");
        }
        if (!code.matches("[A-Za-z]{3}")) {
            throw Options.rangeError(
                    WHERE,
                    "INVALID_OPTION",
                    "option currency must be a three-letter ISO 4217 code such as 'USD', got "
                            + Options.describe(code));
        }
        return Currency.getInstance(code.toUpperCase(java.util.Locale.ROOT));
    }

    private static MeasureUnit unit(String identifier) {
        if (identifier == null) {
            throw Options.typeError(
                    WHERE, "style 'unit' needs the unit option, for example 'kilometer-per-hour'");
        }
        try {
            if (identifier.length() <= 100 && identifier.matches("[a-z]+(-[a-z0-9]+)*")) {
                return MeasureUnit.forIdentifier(identifier);
            }
        } catch (IllegalArgumentException e) {
            // refused below
        }
        throw Options.rangeError(
                WHERE,
                "INVALID_OPTION",
                "option unit "
                        + Options.describe(identifier)
                        + " is not a unit; use a CLDR unit such as 'meter', 'kilobyte', 'percent'"
                        + " or 'kilometer-per-hour'");
    }
}
