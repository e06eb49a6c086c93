package dev.sandjar.packs;

import dev.sandjar.host.CodeAnalysis;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The guard an untrusted pack's JavaScript file is served with, written on the file's first line so
 * every line keeps its number: an import of the guard module (trusted code that runs before any
 * untrusted code of the run), and module-scope declarations that shadow each withheld global the
 * file could name:
 *
 * <pre>{@code
 * import "sandjar-packs::guard"; import { safeGlobal as globalThis } from "sandjar-packs::guard";
 * const fetch = undefined, getSecret = undefined; // then the file's own first line
 * }</pre>
 *
 * The file's own free references to those names resolve to the shadows, never to the realm's
 * globals. What else could reach the global object from strict module code, and why it does not, is
 * in docs/packs.md ("Trust"); the hole this does not close (shared built-ins a module can patch) is
 * there too.
 *
 * <p>A name is shadowed only where it can be named: the file's text contains it, or contains a
 * {@code \}{@code u} escape (which can spell any identifier). A file that declares a withheld name
 * at its own top level already shadows the global with its own binding; the guard would collide
 * with it (a redeclaration is a syntax error), so the parser is asked, and such names are left to
 * the file.
 */
final class PackTrust {
    /**
     * The capability globals withheld from untrusted packs by default: the standard bridges'
     * globals that reach outside the run (network, files, secrets, the caller's progress listener,
     * the host's ffmpeg), and the media ones, whose refs read workspace paths and https: URLs when
     * the run has those grants and whose handles are the run's. Pure ones (console, which writes to
     * the run's own bounded log; crypto, format, sleep and the guest helpers) give a module nothing
     * it could not compute, and stay visible.
     */
    static final Set<String> DEFAULT_WITHHELD =
            Set.of(
                    "fetch",
                    "workspace",
                    "getSecret",
                    "secrets",
                    "progress",
                    "video",
                    "media",
                    "image",
                    "createCanvas",
                    "audio");

    /** Names for the global object, always withheld; the guard gives them the safe global. */
    static final List<String> GLOBAL_OBJECT_NAMES = List.of("globalThis", "self", "global");

    /**
     * The standard built-ins (ECMAScript's global object and QuickJS's additions) the safe global
     * exposes; each only if the realm has it.
     */
    static final List<String> STANDARD_GLOBALS =
            List.of(
                    "AggregateError",
                    "Array",
                    "ArrayBuffer",
                    "Atomics",
                    "BigInt",
                    "BigInt64Array",
                    "BigUint64Array",
                    "Boolean",
                    "DataView",
                    "Date",
                    "Error",
                    "EvalError",
                    "FinalizationRegistry",
                    "Float16Array",
                    "Float32Array",
                    "Float64Array",
                    "Function",
                    "Infinity",
                    "Int16Array",
                    "Int32Array",
                    "Int8Array",
                    "Iterator",
                    "JSON",
                    "Map",
                    "Math",
                    "NaN",
                    "Number",
                    "Object",
                    "Promise",
                    "Proxy",
                    "RangeError",
                    "ReferenceError",
                    "Reflect",
                    "RegExp",
                    "Set",
                    "SharedArrayBuffer",
                    "String",
                    "Symbol",
                    "SyntaxError",
                    "TypeError",
                    "URIError",
                    "Uint16Array",
                    "Uint32Array",
                    "Uint8Array",
                    "Uint8ClampedArray",
                    "WeakMap",
                    "WeakRef",
                    "WeakSet",
                    "decodeURI",
                    "decodeURIComponent",
                    "encodeURI",
                    "encodeURIComponent",
                    "escape",
                    "isFinite",
                    "isNaN",
                    "parseFloat",
                    "parseInt",
                    "queueMicrotask",
                    "undefined",
                    "unescape");

    /**
     * The specifier and module name of the guard module: not a pack specifier, a file id or a
     * facade id, so nothing else can name it; the loader serves it to guarded files only.
     */
    static final String GUARD_MODULE = "sandjar-packs::guard";

    private static final String QUOTED_GUARD = "\"" + GUARD_MODULE + "\"";

    /** Redeclarations are the parser's "Identifier 'x' has already been declared". */
    private static final Pattern REDECLARED = Pattern.compile("Identifier '([^']+)' has already");

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

    private PackTrust() {}

    /** Whether {@code name} can be withheld: a plain identifier that is not a standard global. */
    static boolean isWithholdable(String name) {
        return IDENTIFIER.matcher(name).matches()
                && !PackNames.RESERVED_WORDS.contains(name)
                && !STANDARD_GLOBALS.contains(name);
    }

    /**
     * {@code source} as an untrusted pack serves it: with the guard on its first line. The guard
     * always imports the guard module; it declares shadows only for the names the file can name.
     */
    static String guard(
            Function<String, CodeAnalysis> parser, String source, Set<String> withheld) {
        Set<String> names = namable(source, withheld);
        // Each round drops one name the file declares itself; the parser reports the first only.
        for (int round = 0; round <= withheld.size() + GLOBAL_OBJECT_NAMES.size(); round++) {
            if (names.isEmpty()) {
                return prefix(names) + source; // declares nothing: cannot collide
            }
            String guarded = prefix(names) + source;
            CodeAnalysis a = parser.apply(guarded);
            if (a.syntaxError() == null) {
                return guarded;
            }
            Matcher m = REDECLARED.matcher(a.syntaxError().message());
            if (!m.find() || !names.remove(m.group(1))) {
                // Not a collision with the guard: serve it guarded, and the run reports the error.
                return guarded;
            }
        }
        return prefix(names) + source;
    }

    /**
     * {@link #guard} without the parse, for a compiled npm bundle (up to 1 MiB, which the analysis
     * engine cannot read within its time limit): every name the file can name is shadowed. A bundle
     * that declares one of them at its top level then fails to load with a redeclaration error,
     * naming it, instead of being left unguarded for that name.
     */
    static String guardUnparsed(String source, Set<String> withheld) {
        return prefix(namable(source, withheld)) + source;
    }

    /** The withheld and global-object names {@code source} can name. */
    private static Set<String> namable(String source, Set<String> withheld) {
        boolean escapes = source.contains("\\u");
        Set<String> names = new LinkedHashSet<>();
        for (String n : withheld) {
            if (escapes || source.contains(n)) {
                names.add(n);
            }
        }
        for (String n : GLOBAL_OBJECT_NAMES) {
            if (escapes || source.contains(n)) {
                names.add(n);
            }
        }
        return names;
    }

    private static String prefix(Set<String> names) {
        StringBuilder s = new StringBuilder("import " + QUOTED_GUARD + "; ");
        List<String> global = new ArrayList<>();
        List<String> shadows = new ArrayList<>();
        for (String n : names) {
            if (GLOBAL_OBJECT_NAMES.contains(n)) {
                global.add("safeGlobal as " + n);
            } else {
                shadows.add(n + " = undefined");
            }
        }
        if (!global.isEmpty()) {
            s.append("import { ")
                    .append(String.join(", ", global))
                    .append(" } from ")
                    .append(QUOTED_GUARD)
                    .append("; ");
        }
        if (!shadows.isEmpty()) {
            s.append("const ").append(String.join(", ", shadows)).append("; ");
        }
        return s.toString();
    }

    /**
     * The guard module every guarded file imports first: trusted code, evaluated once per run
     * before any untrusted pack code. It locks {@code Error.prepareStackTrace} (QuickJS-ng's call
     * sites hand out every frame's function, bridges' guest functions included) and exports the
     * safe global.
     */
    static final String GUARD_SOURCE = guardSource();

    private static String guardSource() {
        StringBuilder s =
                new StringBuilder(
                        "// Generated by Sandjar: the guard of untrusted pack code (docs/packs.md,"
                                + " \"Trust\").\n"
                                + "Error.prepareStackTrace = undefined;\n"
                                + "Object.defineProperty(Error, \"prepareStackTrace\", { value:"
                                + " undefined, writable: false, enumerable: false, configurable:"
                                + " false });\n"
                                + "export const safeGlobal = Object.freeze({\n");
        for (String n : STANDARD_GLOBALS) {
            s.append("  ")
                    .append(n)
                    .append(": typeof ")
                    .append(n)
                    .append(" === \"undefined\" ? undefined : ")
                    .append(n)
                    .append(",\n");
        }
        return s.append("});\n").toString();
    }
}
