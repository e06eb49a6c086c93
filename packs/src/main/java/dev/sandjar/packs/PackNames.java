package dev.sandjar.packs;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The naming rules of packs, shared by the manifest reader, the host module registry and the
 * catalog: package names (npm's rules), versions, module names, specifiers, host module ids,
 * JavaScript export names and pack-relative file paths. Each check answers with the reason a name
 * breaks its rule, or null, so callers phrase their own diagnostics.
 */
final class PackNames {
    private static final Pattern PACKAGE_NAME =
            Pattern.compile("(@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*");
    private static final Pattern VERSION = Pattern.compile("[0-9A-Za-z.+-]{1,64}");
    private static final Pattern MODULE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern HOST_ID = Pattern.compile("[a-z][a-z0-9]*(-[a-z][a-z0-9]*)*");
    private static final Pattern EXPORT_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,63}");
    private static final Pattern PATH_SEGMENT = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]*");

    /** Names no module may take: they read as something other than a module. */
    private static final Set<String> RESERVED_MODULE_NAMES =
            Set.of("node_modules", "package.json", "internal", "facade", "__proto__");

    /** Words a JavaScript export may not be named (and {@code default}, the namespace). */
    static final Set<String> RESERVED_WORDS =
            Set.of(
                    "await",
                    "break",
                    "case",
                    "catch",
                    "class",
                    "const",
                    "continue",
                    "debugger",
                    "default",
                    "delete",
                    "do",
                    "else",
                    "enum",
                    "export",
                    "extends",
                    "false",
                    "finally",
                    "for",
                    "function",
                    "if",
                    "implements",
                    "import",
                    "in",
                    "instanceof",
                    "interface",
                    "let",
                    "new",
                    "null",
                    "package",
                    "private",
                    "protected",
                    "public",
                    "return",
                    "static",
                    "super",
                    "switch",
                    "this",
                    "throw",
                    "true",
                    "try",
                    "typeof",
                    "var",
                    "void",
                    "while",
                    "with",
                    "yield",
                    "eval",
                    "arguments",
                    "undefined",
                    "NaN",
                    "Infinity",
                    "then",
                    "constructor",
                    "prototype",
                    "__proto__");

    private PackNames() {}

    /** A pack-relative file path as the manifest may write it, or why not. */
    static String pathProblem(String path) {
        if (path.isEmpty()) {
            return "is empty";
        }
        if (path.length() > 256) {
            return "is longer than 256 characters";
        }
        if (path.startsWith("/") || path.contains("\\") || path.contains(":")) {
            return "must be a relative path with '/' separators";
        }
        for (String seg : path.split("/", -1)) {
            if (seg.equals("..")) {
                return "must not leave the pack ('..')";
            }
            if (seg.isEmpty() || seg.equals(".")) {
                return "must be normalized (no empty or '.' segments)";
            }
            if (!PATH_SEGMENT.matcher(seg).matches()) {
                return "segment '"
                        + seg
                        + "' must be letters, digits, '.', '_' or '-' (not starting with '.' or"
                        + " '-')";
            }
        }
        return null;
    }

    static boolean isJsFile(String path) {
        return path.endsWith(".js") || path.endsWith(".mjs");
    }

    static boolean isValidPackageName(String name) {
        return name.length() <= 214 && PACKAGE_NAME.matcher(name).matches();
    }

    /** 1 to 64 of {@code [0-9A-Za-z.+-]}. */
    static boolean isValidVersion(String version) {
        return VERSION.matcher(version).matches();
    }

    /**
     * A host module id: lower-case words joined by '-', each starting with a letter, at most 64.
     */
    static boolean isValidHostId(String id) {
        return id.length() <= 64 && HOST_ID.matcher(id).matches();
    }

    /**
     * The import specifier of a module: the package name for {@code "."}, else {@code pkg/name}.
     */
    static String specifier(String packageName, String moduleName) {
        return moduleName.equals(".") ? packageName : packageName + "/" + moduleName;
    }

    /** The package a specifier would come from: {@code @a/b/c} → {@code @a/b}, {@code x/y} → x. */
    static String packageOf(String specifier) {
        int slash = specifier.indexOf('/');
        if (specifier.startsWith("@")) {
            if (slash < 0) {
                return specifier;
            }
            int second = specifier.indexOf('/', slash + 1);
            return second < 0 ? specifier : specifier.substring(0, second);
        }
        return slash < 0 ? specifier : specifier.substring(0, slash);
    }

    static String moduleNameProblem(String name) {
        if (name.equals(".")) {
            return null;
        }
        if (name.contains("/") || name.contains("\\")) {
            return "must be one path segment (no separators)";
        }
        if (name.equals("..") || name.startsWith(".")) {
            return "must not start with '.' (only \".\" alone names the root module)";
        }
        if (!MODULE_NAME.matcher(name).matches()) {
            return "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or"
                    + " digit";
        }
        if (RESERVED_MODULE_NAMES.contains(name.toLowerCase(Locale.ROOT))
                || name.endsWith(".js")
                || name.endsWith(".mjs")
                || name.endsWith(".wasm")
                || name.endsWith(".json")) {
            return "is reserved (it reads as a file or a package path)";
        }
        return null;
    }

    static String exportNameProblem(String name) {
        if (!EXPORT_NAME.matcher(name).matches()) {
            return "is not a JavaScript name this library exports (a letter, then letters, digits"
                    + " or '_', at most 64)";
        }
        if (RESERVED_WORDS.contains(name)) {
            return "is a reserved word";
        }
        return null;
    }
}
