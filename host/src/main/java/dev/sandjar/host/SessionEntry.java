package dev.sandjar.host;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns a session call's code into the two scripts that run it (docs/sessions.md, "How a call
 * runs"). The declarations script, evaluated at global scope, declares the call's new top-level
 * names as global bindings ({@code let} for let, const, class and function names; {@code var} for
 * var) and evaluates to a binder for its function declarations. The body is the code as the
 * analyzer rewrote it (each declaration an assignment to its global) inside the usual async
 * wrapper, so {@code return} and {@code await} work as in a run, and its function declarations are
 * handed to the binder as the call starts. Names an earlier call declared are not declared again: a
 * later {@code let x = 2} assigns the same binding, as in a REPL.
 */
final class SessionEntry {
    static final String BINDER = "__sandjar$bind";
    static final String OPEN = "(async function (" + BINDER + ") {\"use strict\";";
    static final String PARSE_OPEN = "(async function () {\"use strict\";";
    static final String CLOSE = "\n})";
    static final String DECLARATIONS_FILE = "sandjar:session-declarations";

    /**
     * What the call evaluates.
     *
     * @param declarations the global script that declares the new names and evaluates to the binder
     * @param body the script whose value is the call's async function (taking the binder)
     * @param line1Shift UTF-8 bytes the body's first line moved right
     * @param declared the names the declarations script declares, with their kind
     */
    record Built(String declarations, String body, int line1Shift, Map<String, String> declared) {}

    private SessionEntry() {}

    static Built build(CodeAnalyzer.SessionPlan plan, Map<String, String> known) {
        Map<String, String> fresh = new LinkedHashMap<>();
        for (String v : plan.vars()) {
            if (!known.containsKey(v)) {
                fresh.put(v, "var");
            }
        }
        for (String n : plan.lexical()) {
            if (!known.containsKey(n) && !fresh.containsKey(n)) {
                fresh.put(n, "let");
            }
        }
        for (String f : plan.functions()) {
            if (!known.containsKey(f) && !fresh.containsKey(f)) {
                fresh.put(f, "let");
            }
        }
        StringBuilder d = new StringBuilder("\"use strict\";\n");
        fresh.forEach((name, kind) -> d.append(kind).append(' ').append(name).append(";\n"));
        d.append("(function (fns) {");
        for (String f : plan.functions()) {
            d.append(' ').append(f).append(" = fns.").append(f).append(';');
        }
        d.append(" })");
        String open = OPEN;
        if (!plan.functions().isEmpty()) {
            open += " " + BINDER + "({" + String.join(", ", plan.functions()) + "});";
        }
        return new Built(
                d.toString(),
                open + plan.code() + CLOSE,
                open.getBytes(StandardCharsets.UTF_8).length,
                fresh);
    }
}
