package dev.sandjar.host;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The values one run must not show, and the text they become when masked ({@link #MASK}), as CI
 * systems mask secrets in build logs. Each value is masked as itself and in the forms a script most
 * often prints it in: base64 (standard and URL-safe alphabets, with and without padding, and at the
 * two other byte alignments it takes inside a longer encoded text such as an HTTP basic
 * credential), hex (lower and upper case) and URL encoding (form encoding and {@code
 * encodeURIComponent}'s), each line of a multi-line value too.
 *
 * <p>Masking guards against accidents, not against a guest that means to leak a value: a script can
 * print it reversed, split, or encoded in any other way. Values (and forms) shorter than {@link
 * #MIN_CHARS} are not masked: masking {@code "a"} or {@code "ok"} would destroy every log line
 * while hiding nothing a guess could not find.
 *
 * <p>Thread-safe: values are added on the engine thread, text is masked wherever the log or the
 * result is built.
 */
final class Redactions {
    /** What a masked value becomes. */
    static final String MASK = "***";

    /** The shortest value (and encoded form) that is masked. */
    static final int MIN_CHARS = 4;

    /** Values added at most; past it a value is refused, so masking stays cheap per line. */
    static final int MAX_VALUES = 1_000;

    private final Set<String> values = new LinkedHashSet<>(); // under this
    private volatile String[] forms = new String[0]; // longest first: a form inside another waits

    /**
     * Adds a value to mask from now on. Returns false when it is too short to mask or the run
     * already masks {@link #MAX_VALUES} values.
     */
    synchronized boolean add(String value) {
        if (value == null || value.length() < MIN_CHARS) {
            return false;
        }
        if (values.contains(value)) {
            return true;
        }
        if (values.size() >= MAX_VALUES) {
            return false;
        }
        values.add(value);
        Set<String> all = new LinkedHashSet<>(Arrays.asList(forms));
        for (String v : withLines(value)) {
            for (String f : forms(v)) {
                if (f.length() >= MIN_CHARS) {
                    all.add(f);
                }
            }
        }
        String[] sorted = all.toArray(String[]::new);
        Arrays.sort(sorted, Comparator.comparingInt(String::length).reversed());
        forms = sorted;
        return true;
    }

    /** {@code text} with every form of every value replaced by {@link #MASK}. */
    String apply(String text) {
        String[] fs = forms;
        if (fs.length == 0 || text == null || text.length() < MIN_CHARS) {
            return text;
        }
        String out = text;
        for (String f : fs) {
            if (out.contains(f)) {
                out = out.replace(f, MASK);
            }
        }
        return out;
    }

    /** The error with its name, message and stack masked. */
    RunError apply(RunError e) {
        if (forms.length == 0) {
            return e;
        }
        return new RunError(
                e.kind(),
                apply(e.name()),
                apply(e.message()),
                apply(e.stack()),
                e.line(),
                e.column());
    }

    private static List<String> withLines(String value) {
        List<String> out = new ArrayList<>();
        out.add(value);
        String[] lines = value.split("\r\n|\r|\n");
        if (lines.length > 1) {
            out.addAll(Arrays.asList(lines));
        }
        return out;
    }

    /** The value and its encoded forms; the caller drops those too short to mask. */
    static Set<String> forms(String value) {
        Set<String> out = new LinkedHashSet<>();
        out.add(value);
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        for (Base64.Encoder encoder : List.of(Base64.getEncoder(), Base64.getUrlEncoder())) {
            String padded = encoder.encodeToString(bytes);
            out.add(padded);
            out.add(stripPadding(padded));
            // Inside a longer encoding the value starts 1 or 2 bytes into a 3-byte group: the
            // characters that only the value's bits decide are the same whatever surrounds it.
            for (int shift = 1; shift <= 2; shift++) {
                byte[] shifted = new byte[shift + bytes.length];
                System.arraycopy(bytes, 0, shifted, shift, bytes.length);
                String encoded = stripPadding(encoder.encodeToString(shifted));
                int first = (shift * 8 + 5) / 6; // past every character holding a prefix bit
                int last = (shifted.length * 8) / 6; // before a character the next byte shares
                if (last - first >= MIN_CHARS) {
                    out.add(encoded.substring(first, last));
                }
            }
            // The unshifted value followed by more bytes: its last, shared character differs.
            int whole = (bytes.length * 8) / 6;
            if (whole >= MIN_CHARS) {
                out.add(padded.substring(0, whole));
            }
        }
        String hex = HexFormat.of().formatHex(bytes);
        out.add(hex);
        out.add(hex.toUpperCase(java.util.Locale.ROOT));
        String form = URLEncoder.encode(value, StandardCharsets.UTF_8);
        out.add(form);
        // encodeURIComponent: %20 for a space, and !'()*~ left as they are.
        out.add(
                form.replace("+", "%20")
                        .replace("%21", "!")
                        .replace("%27", "'")
                        .replace("%28", "(")
                        .replace("%29", ")")
                        .replace("%7E", "~"));
        return out;
    }

    private static String stripPadding(String base64) {
        int end = base64.length();
        while (end > 0 && base64.charAt(end - 1) == '=') {
            end--;
        }
        return base64.substring(0, end);
    }
}
