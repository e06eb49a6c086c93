package dev.sandjar.packs;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The sandbox half of a pack's {@code package.json}: its name and version, and the {@code sandjar}
 * field that declares the modules it offers. Immutable; read by discovery from the file, never from
 * code.
 *
 * <pre>{@code
 * {
 *   "name": "@acme/geo", "version": "1.2.0",
 *   "sandjar": {
 *     "apiVersion": 1,
 *     "sandboxModules": [
 *       { "name": ".", "kind": "js", "file": "sandbox/geo.js" },
 *       { "name": "simplify", "kind": "wasm", "file": "sandbox/simplify.wasm",
 *         "memoryPagesMax": 16, "exports": ["simplify", { "wasm": "foo-bar", "as": "fooBar" }] }
 *     ],
 *     "internal": ["sandbox/util.js"]
 *   }
 * }
 * }</pre>
 *
 * @param name the package name ({@code name} or {@code @scope/name}, npm's rules)
 * @param version the package version as written
 * @param description the package description, or empty
 * @param modules the declared modules, in manifest order
 * @param internal pack-relative JS files the pack's own modules may import and user code may not
 */
public record PackManifest(
        String name,
        String version,
        String description,
        List<ModuleSpec> modules,
        List<String> internal) {

    /** The only manifest format this library reads. */
    public static final int API_VERSION = 1;

    /** The host's ceiling for a WebAssembly memory, in 64 KiB pages (256 MiB). */
    public static final int MAX_MEMORY_PAGES = 4096;

    /** Most parameters a scalar WebAssembly export may take. */
    public static final int MAX_WASM_PARAMS = 8;

    static final int MAX_MANIFEST_BYTES = 1 << 20;
    static final int MAX_MODULES = 64;
    static final int MAX_EXPORTS = 64;
    static final int MAX_DESCRIPTION = 200;

    public PackManifest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(description, "description");
        modules = List.copyOf(modules);
        internal = List.copyOf(internal);
    }

    /** What a module is: where its code runs. */
    public enum Kind {
        /** Authored JavaScript that runs inside the guest. */
        JS,
        /** A function set Sandjar implements on the host, named by id. */
        HOST,
        /** A scalar WebAssembly module run on the host, a fresh instance per call. */
        WASM;

        public String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One declared module. */
    public sealed interface ModuleSpec permits JsEntry, HostEntry, WasmEntry {
        /** {@code "."} for the package's root module, else one path segment. */
        String name();

        Kind kind();

        /** A one-line description for summaries, or empty. */
        String description();
    }

    /** {@code "kind": "js"}: an authored ES module, {@code file} relative to the pack. */
    public record JsEntry(String name, String description, String file) implements ModuleSpec {
        @Override
        public Kind kind() {
            return Kind.JS;
        }
    }

    /** {@code "kind": "host"}: the host module registered under {@code host}. */
    public record HostEntry(String name, String description, String host) implements ModuleSpec {
        @Override
        public Kind kind() {
            return Kind.HOST;
        }
    }

    /** {@code "kind": "wasm"}: a scalar WebAssembly binary and the exports it offers. */
    public record WasmEntry(
            String name,
            String description,
            String file,
            int memoryPagesMax,
            List<WasmExport> exports)
            implements ModuleSpec {
        public WasmEntry {
            exports = List.copyOf(exports);
        }

        @Override
        public Kind kind() {
            return Kind.WASM;
        }
    }

    /**
     * One WebAssembly export: {@code wasm} is its name in the binary, {@code as} the JavaScript
     * name the facade exports it under ({@code "simplify"} is short for both).
     */
    public record WasmExport(String wasm, String as) {}

    /**
     * The import specifier of a module: the package name for {@code "."}, else {@code pkg/name}.
     */
    public static String specifier(String packageName, String moduleName) {
        return moduleName.equals(".") ? packageName : packageName + "/" + moduleName;
    }

    /** The module a manifest declares under {@code name}, if any. */
    public java.util.Optional<ModuleSpec> module(String moduleName) {
        return modules.stream().filter(m -> m.name().equals(moduleName)).findFirst();
    }

    // ---------------------------------------------------------------------------------------
    // Reading.

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

    private static final ObjectMapper JSON =
            JsonMapper.builder()
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                    .build();

    static {
        JSON.getFactory()
                .setStreamReadConstraints(
                        StreamReadConstraints.builder().maxNestingDepth(64).build());
    }

    /**
     * What reading a {@code package.json} gave: the manifest (null when any error was found, or
     * when the package has no {@code sandjar} field and so is not a sandbox pack), the name it
     * claims if one could be read, and every finding.
     */
    record Read(
            PackManifest manifest,
            String claimedName,
            boolean isSandboxPack,
            List<Diagnostic> diagnostics) {}

    /**
     * Reads {@code json}. {@code label} names the pack in diagnostics until its own name is known.
     * Never throws for what the bytes contain.
     */
    static Read read(String label, byte[] json) {
        Reader r = new Reader(label);
        return r.read(json);
    }

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

    private static final class Reader {
        private String pack;
        private final List<Diagnostic> out = new ArrayList<>();
        private boolean failed;

        Reader(String label) {
            this.pack = label;
        }

        private void error(String code, String where, String message) {
            out.add(Diagnostic.error(code, pack, where, message));
            failed = true;
        }

        Read read(byte[] bytes) {
            if (bytes.length > MAX_MANIFEST_BYTES) {
                error(
                        "manifest-unreadable",
                        "package.json",
                        "is " + bytes.length + " bytes; at most " + MAX_MANIFEST_BYTES);
                return new Read(null, null, true, out);
            }
            JsonNode root;
            try {
                root = JSON.readTree(bytes);
            } catch (IOException e) {
                error(
                        "manifest-unreadable",
                        "package.json",
                        "is not valid JSON: " + firstLine(e.getMessage()));
                return new Read(null, null, true, out);
            }
            if (root == null || !root.isObject()) {
                error("manifest-unreadable", "package.json", "must be a JSON object");
                return new Read(null, null, true, out);
            }
            String name = null;
            JsonNode n = root.get("name");
            if (n == null || !n.isTextual()) {
                error("manifest-bad-name", "name", "must be a string (the package name)");
            } else if (!isValidPackageName(n.asText())) {
                error(
                        "manifest-bad-name",
                        "name",
                        "'"
                                + n.asText()
                                + "' is not a valid package name (lower case, at most 214"
                                + " characters, optionally @scope/)");
            } else {
                name = n.asText();
                pack = name;
            }
            JsonNode sandjar = root.get("sandjar");
            if (sandjar == null) {
                return new Read(null, name, false, List.of());
            }
            String version = text(root, "version", "version", true);
            if (version != null && !VERSION.matcher(version).matches()) {
                error(
                        "manifest-invalid",
                        "version",
                        "'" + version + "' must be 1 to 64 letters, digits, '.', '+' or '-'");
            }
            String description = description(root, "description");
            if (!sandjar.isObject()) {
                error("manifest-invalid", "sandjar", "must be an object");
                return new Read(null, name, true, out);
            }
            onlyFields(sandjar, "sandjar", Set.of("apiVersion", "sandboxModules", "internal"));
            JsonNode api = sandjar.get("apiVersion");
            if (api == null || !api.isIntegralNumber() || api.asLong() != API_VERSION) {
                error(
                        "manifest-unsupported-api",
                        "sandjar.apiVersion",
                        "must be " + API_VERSION + (api == null ? "" : ", got " + api));
            }
            List<String> internal = internal(sandjar.get("internal"));
            List<ModuleSpec> modules = modules(sandjar.get("sandboxModules"), internal);
            if (failed) {
                return new Read(null, name, true, out);
            }
            return new Read(
                    new PackManifest(name, version, description, modules, internal),
                    name,
                    true,
                    out);
        }

        private List<String> internal(JsonNode node) {
            List<String> files = new ArrayList<>();
            if (node == null) {
                return files;
            }
            if (!node.isArray()) {
                error("manifest-invalid", "sandjar.internal", "must be an array of file paths");
                return files;
            }
            for (int i = 0; i < node.size(); i++) {
                String where = "sandjar.internal[" + i + "]";
                JsonNode f = node.get(i);
                if (!f.isTextual()) {
                    error("manifest-invalid", where, "must be a string");
                    continue;
                }
                String path = f.asText();
                String problem = pathProblem(path);
                if (problem != null) {
                    error("manifest-bad-path", where, "'" + path + "' " + problem);
                } else if (!isJsFile(path)) {
                    error("manifest-bad-path", where, "'" + path + "' must be a .js or .mjs file");
                } else if (files.contains(path)) {
                    error("manifest-duplicate", where, "'" + path + "' is listed twice");
                } else {
                    files.add(path);
                }
            }
            return files;
        }

        private List<ModuleSpec> modules(JsonNode node, List<String> internal) {
            List<ModuleSpec> modules = new ArrayList<>();
            String field = "sandjar.sandboxModules";
            if (node == null || !node.isArray() || node.isEmpty()) {
                error("manifest-invalid", field, "must be a non-empty array of modules");
                return modules;
            }
            if (node.size() > MAX_MODULES) {
                error(
                        "manifest-invalid",
                        field,
                        "declares " + node.size() + " modules; at most " + MAX_MODULES);
                return modules;
            }
            Set<String> names = new HashSet<>();
            Set<String> files = new HashSet<>(internal);
            for (int i = 0; i < node.size(); i++) {
                String where = field + "[" + i + "]";
                JsonNode m = node.get(i);
                if (!m.isObject()) {
                    error("manifest-invalid", where, "must be an object");
                    continue;
                }
                String name = text(m, "name", where + ".name", true);
                if (name != null) {
                    String problem = moduleNameProblem(name);
                    if (problem != null) {
                        error("manifest-bad-name", where + ".name", "'" + name + "' " + problem);
                        name = null;
                    } else if (!names.add(name)) {
                        error(
                                "manifest-duplicate",
                                where + ".name",
                                "module '" + name + "' is declared twice");
                        name = null;
                    }
                }
                String kind = text(m, "kind", where + ".kind", true);
                String description = description(m, where + ".description");
                if (kind == null) {
                    continue;
                }
                ModuleSpec spec =
                        switch (kind) {
                            case "js" -> js(m, where, name, description, files);
                            case "host" -> host(m, where, name, description);
                            case "wasm" -> wasm(m, where, name, description, files);
                            default -> {
                                error(
                                        "manifest-unknown-kind",
                                        where + ".kind",
                                        "'" + kind + "' is not a module kind (js, host or wasm)");
                                yield null;
                            }
                        };
                if (spec != null && name != null) {
                    modules.add(spec);
                }
            }
            return modules;
        }

        private ModuleSpec js(
                JsonNode m, String where, String name, String description, Set<String> files) {
            onlyFields(m, where, Set.of("name", "kind", "description", "file"));
            String file = file(m, where, files);
            if (file == null) {
                return null;
            }
            if (!isJsFile(file)) {
                error("manifest-bad-path", where + ".file", "'" + file + "' must be a .js file");
                return null;
            }
            return new JsEntry(name, description, file);
        }

        private ModuleSpec host(JsonNode m, String where, String name, String description) {
            onlyFields(m, where, Set.of("name", "kind", "description", "host"));
            String id = text(m, "host", where + ".host", true);
            if (id == null) {
                return null;
            }
            if (id.length() > 64 || !HOST_ID.matcher(id).matches()) {
                error(
                        "manifest-invalid",
                        where + ".host",
                        "'"
                                + id
                                + "' is not a host module id (lower-case words joined by '-', each"
                                + " starting with a letter)");
                return null;
            }
            return new HostEntry(name, description, id);
        }

        private ModuleSpec wasm(
                JsonNode m, String where, String name, String description, Set<String> files) {
            onlyFields(
                    m,
                    where,
                    Set.of("name", "kind", "description", "file", "memoryPagesMax", "exports"));
            String file = file(m, where, files);
            if (file != null && !file.endsWith(".wasm")) {
                error("manifest-bad-path", where + ".file", "'" + file + "' must be a .wasm file");
                file = null;
            }
            JsonNode pages = m.get("memoryPagesMax");
            int memoryPagesMax = -1;
            if (pages == null
                    || !pages.isIntegralNumber()
                    || pages.asLong() < 0
                    || pages.asLong() > MAX_MEMORY_PAGES) {
                error(
                        "manifest-invalid",
                        where + ".memoryPagesMax",
                        "must be an integer from 0 to "
                                + MAX_MEMORY_PAGES
                                + " (64 KiB pages)"
                                + (pages == null ? "" : ", got " + pages));
            } else {
                memoryPagesMax = pages.asInt();
            }
            List<WasmExport> exports = exports(m.get("exports"), where + ".exports");
            if (file == null || memoryPagesMax < 0 || exports == null) {
                return null;
            }
            return new WasmEntry(name, description, file, memoryPagesMax, exports);
        }

        private List<WasmExport> exports(JsonNode node, String where) {
            if (node == null || !node.isArray() || node.isEmpty()) {
                error("manifest-invalid", where, "must be a non-empty array of export names");
                return null;
            }
            if (node.size() > MAX_EXPORTS) {
                error(
                        "manifest-invalid",
                        where,
                        "lists " + node.size() + " exports; at most " + MAX_EXPORTS);
                return null;
            }
            List<WasmExport> exports = new ArrayList<>();
            Set<String> wasmNames = new HashSet<>();
            Set<String> jsNames = new HashSet<>();
            boolean ok = true;
            for (int i = 0; i < node.size(); i++) {
                String at = where + "[" + i + "]";
                JsonNode e = node.get(i);
                String wasmName;
                String as;
                if (e.isTextual()) {
                    wasmName = e.asText();
                    as = wasmName;
                } else if (e.isObject()) {
                    onlyFields(e, at, Set.of("wasm", "as"));
                    wasmName = text(e, "wasm", at + ".wasm", true);
                    as = text(e, "as", at + ".as", true);
                    if (wasmName == null || as == null) {
                        ok = false;
                        continue;
                    }
                    if (wasmName.isEmpty() || wasmName.length() > 256) {
                        error("manifest-invalid", at + ".wasm", "must be 1 to 256 characters");
                        ok = false;
                        continue;
                    }
                    at = at + ".as";
                } else {
                    error(
                            "manifest-invalid",
                            at,
                            "must be a name or { \"wasm\": name, \"as\": jsName }");
                    ok = false;
                    continue;
                }
                String problem = exportNameProblem(as);
                if (problem != null) {
                    error(
                            "manifest-bad-name",
                            at,
                            "'"
                                    + as
                                    + "' "
                                    + problem
                                    + (e.isTextual()
                                            ? "; map it: { \"wasm\": \""
                                                    + as
                                                    + "\", \"as\": \"jsName\" }"
                                            : ""));
                    ok = false;
                } else if (!wasmNames.add(wasmName)) {
                    error("manifest-duplicate", at, "export '" + wasmName + "' is listed twice");
                    ok = false;
                } else if (!jsNames.add(as)) {
                    error("manifest-duplicate", at, "JavaScript name '" + as + "' is used twice");
                    ok = false;
                } else {
                    exports.add(new WasmExport(wasmName, as));
                }
            }
            return ok ? exports : null;
        }

        private String file(JsonNode m, String where, Set<String> files) {
            String file = text(m, "file", where + ".file", true);
            if (file == null) {
                return null;
            }
            String problem = pathProblem(file);
            if (problem != null) {
                error("manifest-bad-path", where + ".file", "'" + file + "' " + problem);
                return null;
            }
            if (!files.add(file)) {
                error(
                        "manifest-duplicate",
                        where + ".file",
                        "'" + file + "' is already declared by another module or as internal");
                return null;
            }
            return file;
        }

        private String text(JsonNode obj, String key, String where, boolean required) {
            JsonNode v = obj.get(key);
            if (v == null) {
                if (required) {
                    error("manifest-invalid", where, "is required");
                }
                return null;
            }
            if (!v.isTextual()) {
                error("manifest-invalid", where, "must be a string");
                return null;
            }
            return v.asText();
        }

        private String description(JsonNode obj, String where) {
            JsonNode v = obj.get(where.substring(where.lastIndexOf('.') + 1));
            if (v == null) {
                return "";
            }
            if (!v.isTextual()) {
                error("manifest-invalid", where, "must be a string");
                return "";
            }
            return v.asText();
        }

        private void onlyFields(JsonNode obj, String where, Set<String> allowed) {
            Iterator<String> names = obj.fieldNames();
            while (names.hasNext()) {
                String f = names.next();
                if (!allowed.contains(f)) {
                    error(
                            "manifest-invalid",
                            where + "." + f,
                            "is not a known field (allowed: "
                                    + String.join(", ", new java.util.TreeSet<>(allowed))
                                    + ")");
                }
            }
        }
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
        if (RESERVED_MODULE_NAMES.contains(name.toLowerCase(java.util.Locale.ROOT))
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

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
