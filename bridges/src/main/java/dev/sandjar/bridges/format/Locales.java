package dev.sandjar.bridges.format;

import com.ibm.icu.util.IllformedLocaleException;
import com.ibm.icu.util.ULocale;
import java.util.List;

/**
 * The {@code locale} argument: a BCP 47 tag, an array of them (the first is used; all must be
 * well-formed, as {@code Intl} requires), or absent for {@link #DEFAULT}. The default is fixed, not
 * the host's, so a run formats the same wherever it runs.
 */
final class Locales {
    static final ULocale DEFAULT = ULocale.forLanguageTag("en-US");
    static final int MAX_TAG_CHARS = 100;
    static final int MAX_TAGS = 16;

    private Locales() {}

    static ULocale resolve(String where, Object arg) {
        if (arg == null) {
            return DEFAULT;
        }
        if (arg instanceof String s) {
            return parse(where, s);
        }
        if (arg instanceof List<?> list) {
            if (list.size() > MAX_TAGS) {
                throw Options.rangeError(
                        where,
                        "INVALID_LOCALE",
                        "at most " + MAX_TAGS + " locales may be given, got " + list.size());
            }
            ULocale first = null;
            for (Object item : list) {
                if (!(item instanceof String s)) {
                    throw Options.typeError(
                            where, "each locale must be a string, got " + Options.describe(item));
                }
                ULocale parsed = parse(where, s);
                first = first == null ? parsed : first;
            }
            return first == null ? DEFAULT : first;
        }
        throw Options.typeError(
                where,
                "locale must be a BCP 47 tag such as 'en-US' or an array of them, got "
                        + Options.describe(arg));
    }

    private static ULocale parse(String where, String tag) {
        if (tag.isEmpty() || tag.length() > MAX_TAG_CHARS) {
            throw invalid(where, tag);
        }
        try {
            return new ULocale.Builder().setLanguageTag(tag).build();
        } catch (IllformedLocaleException e) {
            throw invalid(where, tag);
        }
    }

    private static RuntimeException invalid(String where, String tag) {
        return Options.rangeError(
                where,
                "INVALID_LOCALE",
                "locale "
                        + Options.describe(tag)
                        + " is not a well-formed BCP 47 language tag (for example 'en-US',"
                        + " 'de', 'zh-Hant-TW')");
    }

    /** {@code locale} with a Unicode extension keyword, such as {@code nu} or {@code ca}. */
    static ULocale withKeyword(
            String where, ULocale locale, String option, String key, String value) {
        if (value == null) {
            return locale;
        }
        if (!value.matches("[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*")) {
            throw Options.rangeError(
                    where,
                    "INVALID_OPTION",
                    "option "
                            + option
                            + " "
                            + Options.describe(value)
                            + " is not a valid identifier");
        }
        try {
            return new ULocale.Builder()
                    .setLocale(locale)
                    .setUnicodeLocaleKeyword(key, value.toLowerCase(java.util.Locale.ROOT))
                    .build();
        } catch (IllformedLocaleException e) {
            throw Options.rangeError(
                    where,
                    "INVALID_OPTION",
                    "option " + option + " " + Options.describe(value) + " is not valid");
        }
    }
}
