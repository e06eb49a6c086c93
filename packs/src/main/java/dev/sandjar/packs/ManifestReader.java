package dev.sandjar.packs;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.sandjar.packs.PackManifest.HostEntry;
import dev.sandjar.packs.PackManifest.JsEntry;
import dev.sandjar.packs.PackManifest.ModuleSpec;
import dev.sandjar.packs.PackManifest.NpmEntry;
import dev.sandjar.packs.PackManifest.WasmEntry;
import dev.sandjar.packs.PackManifest.WasmExport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a {@code package.json} into a {@link PackManifest}, checking every field and naming each
 * problem by its manifest path ({@code sandjar.sandboxModules[2].exports[0]}). Strict where a typo
 * could hide: duplicate keys, trailing tokens, unknown fields inside {@code sandjar} and inside a
 * module are errors; other top-level {@code package.json} fields are left alone. Never throws for
 * what the bytes contain: every finding is a {@link Diagnostic}. One instance reads one manifest.
 */
final class ManifestReader {
    static final int MAX_MANIFEST_BYTES = 1 << 20;
    static final int MAX_MODULES = 64;
    static final int MAX_EXPORTS = 64;
    static final int MAX_DESCRIPTION = 200;

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
        return new ManifestReader(label).read(json);
    }

    /** The pack as diagnostics name it: the label, then the package name once read. */
    private String pack;

    private final List<Diagnostic> out = new ArrayList<>();
    private boolean failed;

    private ManifestReader(String label) {
        this.pack = label;
    }

    private void error(String code, String where, String message) {
        out.add(Diagnostic.error(code, pack, where, message));
        failed = true;
    }

    private Read read(byte[] bytes) {
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
        } else if (!PackNames.isValidPackageName(n.asText())) {
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
        if (version != null && !PackNames.isValidVersion(version)) {
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
        if (api == null || !api.isIntegralNumber() || api.asLong() != PackManifest.API_VERSION) {
            error(
                    "manifest-unsupported-api",
                    "sandjar.apiVersion",
                    "must be " + PackManifest.API_VERSION + (api == null ? "" : ", got " + api));
        }
        List<String> internal = internal(sandjar.get("internal"));
        List<ModuleSpec> modules = modules(sandjar.get("sandboxModules"), internal);
        if (failed) {
            return new Read(null, name, true, out);
        }
        return new Read(
                new PackManifest(name, version, description, modules, internal), name, true, out);
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
            String problem = PackNames.pathProblem(path);
            if (problem != null) {
                error("manifest-bad-path", where, "'" + path + "' " + problem);
            } else if (!PackNames.isJsFile(path)) {
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
                String problem = PackNames.moduleNameProblem(name);
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
                        case "npm" -> npm(m, where, name, description, files);
                        default -> {
                            error(
                                    "manifest-unknown-kind",
                                    where + ".kind",
                                    "'" + kind + "' is not a module kind (js, host, wasm or npm)");
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
        if (!PackNames.isJsFile(file)) {
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
        if (!PackNames.isValidHostId(id)) {
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

    private ModuleSpec npm(
            JsonNode m, String where, String name, String description, Set<String> files) {
        onlyFields(
                m,
                where,
                Set.of(
                        "name",
                        "kind",
                        "description",
                        "package",
                        "version",
                        "subpath",
                        "conditions",
                        "bundle",
                        "bundleSha256",
                        "integrity",
                        "compiler"));
        String pkg = text(m, "package", where + ".package", true);
        if (pkg != null && !PackNames.isValidPackageName(pkg)) {
            error(
                    "manifest-bad-name",
                    where + ".package",
                    "'" + pkg + "' is not an npm package name");
            pkg = null;
        }
        String version = text(m, "version", where + ".version", true);
        if (version != null && !NPM_VERSION.matcher(version).matches()) {
            error(
                    "manifest-invalid",
                    where + ".version",
                    "'" + version + "' must be an exact version such as 1.2.3 (no ranges)");
            version = null;
        }
        String subpath = text(m, "subpath", where + ".subpath", false);
        if (subpath != null && PackNames.pathProblem(subpath) != null) {
            error(
                    "manifest-bad-path",
                    where + ".subpath",
                    "'" + subpath + "' " + PackNames.pathProblem(subpath));
            subpath = null;
        }
        List<String> conditions = new ArrayList<>();
        JsonNode c = m.get("conditions");
        if (c != null) {
            if (!c.isArray() || c.size() > 8) {
                error(
                        "manifest-invalid",
                        where + ".conditions",
                        "must be an array of at most 8 names");
            } else {
                for (int i = 0; i < c.size(); i++) {
                    if (!c.get(i).isTextual() || !CONDITION.matcher(c.get(i).asText()).matches()) {
                        error(
                                "manifest-invalid",
                                where + ".conditions[" + i + "]",
                                "must be a lower-case condition name");
                    } else {
                        conditions.add(c.get(i).asText());
                    }
                }
            }
        }
        String bundle = null;
        String sha = null;
        String integrity = null;
        String compiler = null;
        if (m.has("bundle")) {
            bundle = text(m, "bundle", where + ".bundle", true);
            if (bundle != null && PackNames.pathProblem(bundle) != null) {
                error(
                        "manifest-bad-path",
                        where + ".bundle",
                        "'" + bundle + "' " + PackNames.pathProblem(bundle));
                bundle = null;
            } else if (bundle != null && !PackNames.isJsFile(bundle)) {
                error(
                        "manifest-bad-path",
                        where + ".bundle",
                        "'" + bundle + "' must be a .js file");
                bundle = null;
            } else if (bundle != null && !files.add(bundle)) {
                error(
                        "manifest-duplicate",
                        where + ".bundle",
                        "'" + bundle + "' is already declared by another module or as internal");
                bundle = null;
            }
            sha = text(m, "bundleSha256", where + ".bundleSha256", true);
            if (sha != null && !sha.matches("[0-9a-f]{64}")) {
                error(
                        "manifest-invalid",
                        where + ".bundleSha256",
                        "must be 64 lower-case hex digits");
                sha = null;
            }
            integrity = text(m, "integrity", where + ".integrity", true);
            compiler = text(m, "compiler", where + ".compiler", true);
        } else {
            for (String f : List.of("bundleSha256", "integrity", "compiler")) {
                if (m.has(f)) {
                    error(
                            "manifest-invalid",
                            where + "." + f,
                            "belongs to a compiled module; 'bundle' is missing");
                }
            }
        }
        if (pkg == null || version == null) {
            return null;
        }
        return new NpmEntry(
                name,
                description,
                pkg,
                version,
                subpath,
                conditions,
                bundle,
                sha,
                integrity,
                compiler);
    }

    private static final java.util.regex.Pattern NPM_VERSION =
            java.util.regex.Pattern.compile(
                    "[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?");
    private static final java.util.regex.Pattern CONDITION =
            java.util.regex.Pattern.compile("[a-z][a-z0-9-]{0,31}");

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
                || pages.asLong() > PackManifest.MAX_MEMORY_PAGES) {
            error(
                    "manifest-invalid",
                    where + ".memoryPagesMax",
                    "must be an integer from 0 to "
                            + PackManifest.MAX_MEMORY_PAGES
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
            String problem = PackNames.exportNameProblem(as);
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
        String problem = PackNames.pathProblem(file);
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
                                + String.join(", ", new TreeSet<>(allowed))
                                + ")");
            }
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
