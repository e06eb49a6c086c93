package dev.sandjar.bridges.format;

import com.ibm.icu.text.ListFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** {@code format.list}: the options of {@code Intl.ListFormat}, on ICU's ListFormatter. */
final class ListFormats {
    static final String WHERE = "format.list";
    static final Set<String> OPTIONS = Set.of("type", "style");

    private ListFormats() {}

    static String format(List<Object> items, Object localeArg, Options o) {
        List<String> strings = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            if (!(items.get(i) instanceof String s)) {
                throw Options.typeError(
                        WHERE,
                        "items[" + i + "] must be a string, got " + Options.describe(items.get(i)));
            }
            strings.add(s);
        }
        ListFormatter.Type type =
                switch (o.choice(
                        "type", List.of("conjunction", "disjunction", "unit"), "conjunction")) {
                    case "disjunction" -> ListFormatter.Type.OR;
                    case "unit" -> ListFormatter.Type.UNITS;
                    default -> ListFormatter.Type.AND;
                };
        ListFormatter.Width width =
                switch (o.choice("style", List.of("long", "short", "narrow"), "long")) {
                    case "short" -> ListFormatter.Width.SHORT;
                    case "narrow" -> ListFormatter.Width.NARROW;
                    default -> ListFormatter.Width.WIDE;
                };
        return ListFormatter.getInstance(Locales.resolve(WHERE, localeArg), type, width)
                .format(strings);
    }
}
