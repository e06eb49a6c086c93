package dev.sandjar.bridges.canvas;

import java.awt.Font;
import java.awt.GraphicsEnvironment;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * CSS font shorthand ({@code "bold 16px Arial, sans-serif"}) to a Java2D {@link Font}. The family
 * is the first one listed that the JVM has (its logical fonts and the fonts the host has
 * installed); {@code sans-serif}, {@code serif} and {@code monospace} map to the JVM's logical
 * {@code SansSerif}, {@code Serif} and {@code Monospaced}; an unknown family falls back to {@code
 * SansSerif}. Sizes in {@code px} (one canvas pixel each), {@code pt} (4/3 px), {@code em} and
 * {@code rem} (16 px). A string that does not parse is ignored, as a browser ignores it.
 */
final class Fonts {
    static final Font DEFAULT = new Font(Font.SANS_SERIF, Font.PLAIN, 10);
    private static final Map<String, String> GENERIC =
            Map.of(
                    "sans-serif", Font.SANS_SERIF,
                    "serif", Font.SERIF,
                    "monospace", Font.MONOSPACED,
                    "system-ui", Font.SANS_SERIF);
    private static final int MAX_CACHED = 256;
    private static final Map<String, Font> CACHE = new HashMap<>();
    private static volatile Set<String> families;

    private Fonts() {}

    /** The font {@code css} names, or null when it does not parse. */
    static Font parse(String css) {
        synchronized (CACHE) {
            Font cached = CACHE.get(css);
            if (cached != null) {
                return cached;
            }
        }
        Font f = parseUncached(css);
        if (f != null) {
            synchronized (CACHE) {
                if (CACHE.size() >= MAX_CACHED) {
                    CACHE.clear();
                }
                CACHE.put(css, f);
            }
        }
        return f;
    }

    private static Font parseUncached(String css) {
        String s = css.trim();
        if (s.length() > 512) {
            return null;
        }
        int style = Font.PLAIN;
        String[] tokens = s.split("\\s+");
        int i = 0;
        for (; i < tokens.length; i++) {
            String t = tokens[i].toLowerCase(Locale.ROOT);
            if (t.equals("italic") || t.equals("oblique")) {
                style |= Font.ITALIC;
            } else if (t.equals("bold") || t.equals("bolder") || t.matches("[6-9]00")) {
                style |= Font.BOLD;
            } else if (!(t.equals("normal")
                    || t.equals("small-caps")
                    || t.equals("lighter")
                    || t.matches("[1-5]00"))) {
                break;
            }
        }
        if (i >= tokens.length - 1) {
            return null;
        }
        String sizeToken = tokens[i].toLowerCase(Locale.ROOT);
        int slash = sizeToken.indexOf('/');
        if (slash >= 0) {
            sizeToken = sizeToken.substring(0, slash);
        }
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("([0-9]*\\.?[0-9]+)(px|pt|em|rem)")
                        .matcher(sizeToken);
        if (!m.matches()) {
            return null;
        }
        double size = Double.parseDouble(m.group(1));
        size =
                switch (m.group(2)) {
                    case "pt" -> size * 4 / 3;
                    case "em", "rem" -> size * 16;
                    default -> size;
                };
        if (!(size > 0) || size > 4096) {
            return null;
        }
        String rest = String.join(" ", java.util.Arrays.copyOfRange(tokens, i + 1, tokens.length));
        return new Font(family(rest), style, 1).deriveFont(style, (float) size);
    }

    private static String family(String list) {
        for (String raw : list.split(",")) {
            String name = raw.trim().replaceAll("^[\"']|[\"']$", "");
            String generic = GENERIC.get(name.toLowerCase(Locale.ROOT));
            if (generic != null) {
                return generic;
            }
            if (installed().contains(name.toLowerCase(Locale.ROOT))) {
                return name;
            }
        }
        return Font.SANS_SERIF;
    }

    private static Set<String> installed() {
        Set<String> f = families;
        if (f == null) {
            Set<String> names = new java.util.HashSet<>();
            for (String n :
                    GraphicsEnvironment.getLocalGraphicsEnvironment()
                            .getAvailableFontFamilyNames(Locale.ROOT)) {
                names.add(n.toLowerCase(Locale.ROOT));
            }
            f = Set.copyOf(names);
            families = f;
        }
        return f;
    }
}
