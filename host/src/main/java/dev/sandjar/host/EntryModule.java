package dev.sandjar.host;

import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * Turns the user's code into what the run evaluates. The code is a function body. Whether it runs
 * as a script or a module is decided by the parse, never by its text: code that is a valid body of
 * the script wrapper (it has no import or export declaration) becomes a strict async function
 * evaluated as a script and called with {@code this} undefined, exactly as the body sees it inside
 * the module, for about half the module's cost; code that cannot contain a declaration (the words
 * {@code import} and {@code export} do not occur) takes that path without being parsed. Code whose
 * top level declares imports has them hoisted and the rest becomes an async function, called with
 * {@code this} undefined, whose return value is the module's default export. Everything sits on the
 * user's own lines: the hoisted imports and the wrapper's opening go on line 1 before the code, the
 * imports' original places are blanked with spaces, so only columns on line 1 shift (by {@link
 * Built#line1Shift()}), and error positions are mapped back. Code with a top-level {@code export}
 * runs as written.
 */
final class EntryModule {
    static final String OPEN = "export default await (async function () {";
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
     * appears in it) is wrapped without parsing; anything else is parsed by {@code analysis}, and
     * runs as a script unless the parse found it needs the module.
     */
    static Built build(String code, Supplier<CodeAnalyzer.Parsed> analysis) {
        String body = blankHashbang(code);
        if (!code.contains("import") && !code.contains("export")) {
            return script(body, false);
        }
        CodeAnalyzer.Parsed parsed = analysis.get();
        if (parsed.syntaxError() != null) {
            return new Built(null, 0, parsed.syntaxError(), false, true, false);
        }
        if (parsed.script()) {
            return script(body, true);
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

    private static Built script(String body, boolean parsed) {
        return new Built(
                SCRIPT_OPEN + body + SCRIPT_CLOSE,
                SCRIPT_OPEN.getBytes(StandardCharsets.UTF_8).length,
                null,
                true,
                parsed,
                true);
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
