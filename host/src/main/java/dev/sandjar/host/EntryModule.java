package dev.sandjar.host;

import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * Turns the user's code into what the run evaluates. The code is a function body. With static
 * imports, they are hoisted and the rest becomes an async arrow function whose return value is the
 * module's default export. Without any (the words {@code import} and {@code export} do not occur),
 * the body becomes a strict async function evaluated as a script and called with {@code this}
 * undefined, exactly as the body sees it inside the module, for about half the module's cost.
 * Everything sits on the user's own lines: the hoisted imports and the wrapper's opening go on line
 * 1 before the code, the imports' original places are blanked with spaces, so only columns on line
 * 1 shift (by {@link Built#line1Shift()}), and error positions are mapped back. Code with a
 * top-level {@code export} runs as written.
 */
final class EntryModule {
    static final String OPEN = "export default await (async () => {";
    static final String CLOSE = "\n})();\n";
    static final String SCRIPT_OPEN = "(async function () {\"use strict\";";
    static final String SCRIPT_CLOSE = "\n})";

    /**
     * The module to evaluate, or the syntax error that stops the run before it starts.
     *
     * @param line1Shift how many columns (UTF-8 bytes, as QuickJS counts them) the code's first
     *     line moved right
     * @param wrapped whether the code was wrapped (else it runs as the module it is)
     * @param parsed whether acorn read the code first (a syntax error is then already known)
     * @param script whether {@code source} is a script whose value is the function to call, rather
     *     than a module whose default export is the result
     */
    record Built(
            String source,
            int line1Shift,
            RunError syntaxError,
            boolean wrapped,
            boolean parsed,
            boolean script) {}

    private EntryModule() {}

    /**
     * Builds the entry. Code that cannot contain an import or export declaration (neither word
     * appears in it) is wrapped without parsing; anything else is parsed by {@code analysis}.
     */
    static Built build(String code, Supplier<CodeAnalyzer.Parsed> analysis) {
        String body = blankHashbang(code);
        if (!code.contains("import") && !code.contains("export")) {
            return new Built(
                    SCRIPT_OPEN + body + SCRIPT_CLOSE,
                    SCRIPT_OPEN.getBytes(StandardCharsets.UTF_8).length,
                    null,
                    true,
                    false,
                    true);
        }
        CodeAnalyzer.Parsed parsed = analysis.get();
        if (parsed.syntaxError() != null) {
            return new Built(null, 0, parsed.syntaxError(), false, true, false);
        }
        if (parsed.hasExports()) {
            return new Built(code, 0, null, false, true, false);
        }
        StringBuilder b = new StringBuilder(body);
        for (CodeAnalyzer.Hoisted i : parsed.imports()) {
            for (int p = i.start(); p < i.end(); p++) {
                char c = b.charAt(p);
                if (c != '\n' && c != '\r' && c != '\u2028' && c != '\u2029') {
                    b.setCharAt(p, ' ');
                }
            }
        }
        String prefix = parsed.hoisted() + OPEN;
        return new Built(
                prefix + b + CLOSE,
                prefix.getBytes(StandardCharsets.UTF_8).length,
                null,
                true,
                true,
                false);
    }

    /** A leading {@code #!} line is only valid at the very start; keep the line, drop the text. */
    private static String blankHashbang(String code) {
        if (!code.startsWith("#!")) {
            return code;
        }
        int end = 0;
        while (end < code.length() && "\n\r\u2028\u2029".indexOf(code.charAt(end)) < 0) {
            end++;
        }
        return " ".repeat(end) + code.substring(end);
    }
}
