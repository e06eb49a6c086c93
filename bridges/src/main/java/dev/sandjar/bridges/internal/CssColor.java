package dev.sandjar.bridges.internal;

import java.awt.Color;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CSS colors as the image options and the canvas take them: {@code #rgb}, {@code #rgba}, {@code
 * #rrggbb}, {@code #rrggbbaa}, {@code rgb(r, g, b)}, {@code rgba(r, g, b, a)} (also the
 * space-separated form with {@code / a}), and the basic named colors plus {@code transparent}. Not
 * API.
 */
public final class CssColor {
    private static final Pattern RGB =
            Pattern.compile(
                    "rgba?\\(\\s*([0-9.]+%?)\\s*[, ]\\s*([0-9.]+%?)\\s*[,"
                            + " ]\\s*([0-9.]+%?)\\s*(?:[,/]\\s*([0-9.]+%?)\\s*)?\\)");

    private static final Map<String, Integer> NAMED =
            Map.ofEntries(
                    Map.entry("black", 0x000000),
                    Map.entry("white", 0xFFFFFF),
                    Map.entry("red", 0xFF0000),
                    Map.entry("green", 0x008000),
                    Map.entry("lime", 0x00FF00),
                    Map.entry("blue", 0x0000FF),
                    Map.entry("yellow", 0xFFFF00),
                    Map.entry("cyan", 0x00FFFF),
                    Map.entry("aqua", 0x00FFFF),
                    Map.entry("magenta", 0xFF00FF),
                    Map.entry("fuchsia", 0xFF00FF),
                    Map.entry("gray", 0x808080),
                    Map.entry("grey", 0x808080),
                    Map.entry("silver", 0xC0C0C0),
                    Map.entry("maroon", 0x800000),
                    Map.entry("olive", 0x808000),
                    Map.entry("navy", 0x000080),
                    Map.entry("purple", 0x800080),
                    Map.entry("teal", 0x008080),
                    Map.entry("orange", 0xFFA500),
                    Map.entry("pink", 0xFFC0CB),
                    Map.entry("brown", 0xA52A2A),
                    Map.entry("gold", 0xFFD700),
                    Map.entry("indigo", 0x4B0082),
                    Map.entry("violet", 0xEE82EE),
                    Map.entry("steelblue", 0x4682B4),
                    Map.entry("tomato", 0xFF6347),
                    Map.entry("coral", 0xFF7F50),
                    Map.entry("crimson", 0xDC143C),
                    Map.entry("darkgray", 0xA9A9A9),
                    Map.entry("darkgrey", 0xA9A9A9),
                    Map.entry("lightgray", 0xD3D3D3),
                    Map.entry("lightgrey", 0xD3D3D3),
                    Map.entry("darkblue", 0x00008B),
                    Map.entry("darkgreen", 0x006400),
                    Map.entry("darkred", 0x8B0000),
                    Map.entry("skyblue", 0x87CEEB),
                    Map.entry("seagreen", 0x2E8B57),
                    Map.entry("slategray", 0x708090),
                    Map.entry("whitesmoke", 0xF5F5F5));

    private CssColor() {}

    /** The color {@code text} names, or null when it is not a color this parser knows. */
    public static Color parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.equals("transparent")) {
            return new Color(0, 0, 0, 0);
        }
        Integer named = NAMED.get(s);
        if (named != null) {
            return new Color(named);
        }
        if (s.startsWith("#")) {
            return hex(s.substring(1));
        }
        Matcher m = RGB.matcher(s);
        if (m.matches()) {
            int r = channel(m.group(1));
            int g = channel(m.group(2));
            int b = channel(m.group(3));
            int a = m.group(4) == null ? 255 : alpha(m.group(4));
            if (r < 0 || g < 0 || b < 0 || a < 0) {
                return null;
            }
            return new Color(r, g, b, a);
        }
        return null;
    }

    private static Color hex(String h) {
        if (!h.matches("[0-9a-f]+")) {
            return null;
        }
        return switch (h.length()) {
            case 3, 4 -> {
                int[] c = new int[4];
                c[3] = 255;
                for (int i = 0; i < h.length(); i++) {
                    c[i] = Integer.parseInt(h.substring(i, i + 1), 16) * 17;
                }
                yield new Color(c[0], c[1], c[2], c[3]);
            }
            case 6 -> new Color(Integer.parseInt(h, 16));
            case 8 ->
                    new Color(
                            Integer.parseInt(h.substring(0, 2), 16),
                            Integer.parseInt(h.substring(2, 4), 16),
                            Integer.parseInt(h.substring(4, 6), 16),
                            Integer.parseInt(h.substring(6, 8), 16));
            default -> null;
        };
    }

    private static int channel(String v) {
        try {
            double d =
                    v.endsWith("%")
                            ? Double.parseDouble(v.substring(0, v.length() - 1)) * 2.55
                            : Double.parseDouble(v);
            return (int) Math.round(Math.max(0, Math.min(255, d)));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static int alpha(String v) {
        try {
            double d =
                    v.endsWith("%")
                            ? Double.parseDouble(v.substring(0, v.length() - 1)) / 100
                            : Double.parseDouble(v);
            return (int) Math.round(Math.max(0, Math.min(1, d)) * 255);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
