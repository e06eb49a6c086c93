package dev.sandjar.packs;

import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.Sandbox;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads one pack directory into a {@link DiscoveredPack} without running any of its code: the
 * manifest, each declared file (contained, capped, no links), each JavaScript file parsed by the
 * sandbox's own parser for its imports, each WebAssembly binary checked section by section, each
 * host module checked against the registry, and SKILL.md. Every refusal becomes a diagnostic; a
 * module is withheld when anything in its graph was refused.
 */
final class PackDiscovery {
    /** The scope only the shipped packs may use. */
    static final String RESERVED_SCOPE = "@sandjar/";

    private final String label;
    private final Path dir;
    private final boolean shipped;
    private final Sandbox sandbox;
    private final HostModules hosts;
    private final PackFiles files;
    private final List<Diagnostic> diagnostics = new ArrayList<>();
    private String pack;
    private boolean packFailed;
    private final Map<String, String> badNodes = new HashMap<>();
    private final Map<String, DiscoveredPack.Node> nodes = new LinkedHashMap<>();

    private PackDiscovery(
            String label, Path dir, boolean shipped, Sandbox sandbox, HostModules hosts) {
        this.label = label;
        this.dir = dir;
        this.shipped = shipped;
        this.sandbox = sandbox;
        this.hosts = hosts;
        this.files = new PackFiles(dir);
        this.pack = label;
    }

    /** The pack in {@code dir} (a real path), or null when its package.json declares no pack. */
    static DiscoveredPack discover(
            String label, Path dir, boolean shipped, Sandbox sandbox, HostModules hosts) {
        return new PackDiscovery(label, dir, shipped, sandbox, hosts).run();
    }

    private void error(String code, String where, String message) {
        diagnostics.add(Diagnostic.error(code, pack, where, message));
    }

    private DiscoveredPack failed(String name, String version, String description) {
        return new DiscoveredPack(
                label,
                name,
                version,
                description,
                shipped,
                diagnostics,
                Map.of(),
                Map.of(),
                Map.of(),
                Map.of(),
                null);
    }

    private DiscoveredPack run() {
        byte[] json;
        try {
            json = files.read("package.json", ManifestReader.MAX_MANIFEST_BYTES);
        } catch (PackFiles.Refused e) {
            error(e.code, "package.json", e.getMessage());
            return failed(null, "", "");
        }
        ManifestReader.Read read = ManifestReader.read(label, json);
        if (!read.isSandboxPack()) {
            return null;
        }
        diagnostics.addAll(read.diagnostics());
        PackManifest m = read.manifest();
        if (read.claimedName() != null) {
            pack = read.claimedName();
        }
        if (read.claimedName() != null
                && read.claimedName().startsWith(RESERVED_SCOPE)
                && !shipped) {
            error(
                    "package-reserved",
                    "name",
                    "the " + RESERVED_SCOPE + " scope is reserved for the packs Sandjar ships");
            return failed(null, "", "");
        }
        if (m == null) {
            return failed(read.claimedName(), "", "");
        }
        return discover(m);
    }

    private DiscoveredPack discover(PackManifest m) {
        // Every authored file first: entry files, then internal ones.
        Map<String, String> jsFiles = new LinkedHashMap<>(); // file -> node id
        for (PackManifest.ModuleSpec s : m.modules()) {
            if (s instanceof PackManifest.JsEntry js) {
                jsFiles.put(js.file(), fileId(js.file()));
            }
        }
        for (String f : m.internal()) {
            jsFiles.put(f, fileId(f));
        }
        Map<String, CodeAnalysis> analyses = new LinkedHashMap<>();
        Map<String, String> sources = new HashMap<>();
        Map<String, byte[]> raw = new HashMap<>();
        for (String f : jsFiles.keySet()) {
            byte[] bytes = read(f, PackFiles.MAX_JS_BYTES);
            if (bytes == null) {
                continue;
            }
            String source = utf8(f, bytes);
            if (source == null) {
                continue;
            }
            CodeAnalysis a = analyze(f, source);
            if (a != null) {
                analyses.put(f, a);
                sources.put(f, source);
                raw.put(f, bytes);
            }
        }
        // Imports, resolved within the pack.
        Map<String, Map<String, String>> imports = new LinkedHashMap<>();
        for (var e : analyses.entrySet()) {
            imports.put(e.getKey(), imports(m, e.getKey(), e.getValue(), jsFiles));
        }
        for (var e : analyses.entrySet()) {
            String f = e.getKey();
            if (!badNodes.containsKey(fileId(f))) {
                nodes.put(
                        fileId(f),
                        new DiscoveredPack.Node(
                                fileId(f),
                                DiscoveredPack.NodeKind.FILE,
                                m.name(),
                                f,
                                sources.get(f),
                                Digests.sha256Hex(raw.get(f)),
                                imports.get(f),
                                null,
                                null,
                                null,
                                null,
                                null));
            }
        }
        cycles(imports);
        // Host and WebAssembly modules, each behind a generated facade.
        for (int i = 0; i < m.modules().size(); i++) {
            PackManifest.ModuleSpec s = m.modules().get(i);
            String where = "sandjar.sandboxModules[" + i + "]";
            if (s instanceof PackManifest.HostEntry h) {
                host(m, h, where);
            } else if (s instanceof PackManifest.WasmEntry w) {
                wasm(m, w);
            }
        }
        PackDocs docs = skill();
        if (files.totalBytes() > PackFiles.MAX_PACK_BYTES) {
            tooLarge();
        }
        return assemble(m, docs);
    }

    private void tooLarge() {
        if (!packFailed) {
            error(
                    "pack-too-large",
                    "",
                    "ships over "
                            + PackFiles.MAX_PACK_BYTES
                            + " bytes of manifest, code, WebAssembly and docs ("
                            + files.totalBytes()
                            + " read so far)");
            packFailed = true;
        }
    }

    private DiscoveredPack assemble(PackManifest m, PackDocs docs) {
        Map<String, DiscoveredPack.Entry> entries = new LinkedHashMap<>();
        Map<String, String> withheld = new LinkedHashMap<>();
        Set<String> served = new LinkedHashSet<>();
        for (PackManifest.ModuleSpec s : m.modules()) {
            String specifier = PackManifest.specifier(m.name(), s.name());
            String node = entryNode(m, s);
            if (packFailed) {
                withheld.put(s.name(), "the pack was refused");
                continue;
            }
            String reason = null;
            for (String id : DiscoveredPack.closure(nodes, node)) {
                if (badNodes.containsKey(id)) {
                    reason = badNodes.get(id);
                    break;
                }
                if (!nodes.containsKey(id)) {
                    reason = id + " is unavailable";
                    break;
                }
            }
            if (reason != null) {
                withheld.put(s.name(), reason);
                continue;
            }
            served.addAll(DiscoveredPack.closure(nodes, node));
            entries.put(
                    s.name(),
                    new DiscoveredPack.Entry(
                            s.name(), specifier, s.kind(), node, s.description(), null));
        }
        Map<String, DiscoveredPack.Node> servedNodes = new LinkedHashMap<>();
        Map<String, String> digests = new LinkedHashMap<>();
        for (String id : served) {
            servedNodes.put(id, nodes.get(id));
            digests.put(id, graphDigest(nodes, id));
        }
        Map<String, DiscoveredPack.Entry> withDigests = new LinkedHashMap<>();
        entries.forEach(
                (n, e) ->
                        withDigests.put(
                                n,
                                new DiscoveredPack.Entry(
                                        e.name(),
                                        e.specifier(),
                                        e.kind(),
                                        e.nodeId(),
                                        e.description(),
                                        digests.get(e.nodeId()))));
        return new DiscoveredPack(
                label,
                m.name(),
                m.version(),
                m.description(),
                shipped,
                diagnostics,
                withDigests,
                withheld,
                servedNodes,
                digests,
                docs);
    }

    /**
     * The graph digest of {@code id}: SHA-256 over the sorted digest lines of every node it reaches
     * (its normalized id and content hash, a facade's generator version, WASM bytes).
     */
    static String graphDigest(Map<String, DiscoveredPack.Node> nodes, String id) {
        TreeSet<String> lines = new TreeSet<>();
        for (String n : DiscoveredPack.closure(nodes, id)) {
            lines.add(nodes.get(n).digestLine());
        }
        return "sha256:" + Digests.sha256Hex(String.join("\n", lines) + "\n");
    }

    private String fileId(String file) {
        return pack + "::" + file;
    }

    private String entryNode(PackManifest m, PackManifest.ModuleSpec s) {
        return s instanceof PackManifest.JsEntry js
                ? fileId(js.file())
                : PackManifest.specifier(m.name(), s.name()) + "::facade";
    }

    private byte[] read(String file, int cap) {
        if (packFailed) {
            return null;
        }
        try {
            byte[] bytes = files.read(file, cap);
            if (files.totalBytes() > PackFiles.MAX_PACK_BYTES) {
                tooLarge();
                return null;
            }
            return bytes;
        } catch (PackFiles.Refused e) {
            error(e.code, file, e.getMessage());
            badNodes.put(fileId(file), file + " was refused (" + e.code + ")");
            return null;
        }
    }

    private String utf8(String file, byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            error("js-encoding", file, "is not valid UTF-8");
            badNodes.put(fileId(file), file + " was refused (js-encoding)");
            return null;
        }
    }

    private CodeAnalysis analyze(String file, String source) {
        CodeAnalysis a;
        try {
            a = sandbox.analyze(source);
        } catch (RuntimeException e) {
            error("js-unanalyzable", file, "could not be parsed: " + e.getMessage());
            badNodes.put(fileId(file), file + " was refused (js-unanalyzable)");
            return null;
        }
        boolean bad = false;
        if (a.syntaxError() != null) {
            error(
                    "js-syntax",
                    at(file, a.syntaxError().line(), a.syntaxError().column()),
                    a.syntaxError().message());
            bad = true;
        }
        for (CodeAnalysis.Position p : a.dynamicImports()) {
            error(
                    "js-dynamic-import",
                    at(file, p.line(), p.column()),
                    "calls import(); pack modules may only import statically");
            bad = true;
        }
        for (CodeAnalysis.Position p : a.requireCalls()) {
            error(
                    "js-require",
                    at(file, p.line(), p.column()),
                    "calls require(); the sandbox has no CommonJS, use a static import");
            bad = true;
        }
        if (bad) {
            badNodes.put(fileId(file), file + " was refused");
        }
        return a;
    }

    private static String at(String file, int line, int column) {
        return line > 0 ? file + ":" + line + ":" + column : file;
    }

    /** Resolves each static import of {@code file} to a node id within the pack. */
    private Map<String, String> imports(
            PackManifest m, String file, CodeAnalysis a, Map<String, String> jsFiles) {
        Map<String, String> out = new LinkedHashMap<>();
        for (CodeAnalysis.Import imp : a.imports()) {
            String spec = imp.specifier();
            if (out.containsKey(spec)) {
                continue;
            }
            String where = at(file, imp.line(), imp.column());
            String target = null;
            String problem;
            if (spec.startsWith("./") || spec.startsWith("../")) {
                String resolved = relative(file, spec);
                if (resolved == null) {
                    problem = "'" + spec + "' leaves the pack or is not a plain relative path";
                } else if (!jsFiles.containsKey(resolved)) {
                    error(
                            "js-undeclared-file",
                            where,
                            "imports '"
                                    + spec
                                    + "' ("
                                    + resolved
                                    + "), which is neither a module file nor listed in"
                                    + " sandjar.internal");
                    badNodes.put(fileId(file), file + " was refused (js-undeclared-file)");
                    continue;
                } else {
                    target = jsFiles.get(resolved);
                    problem = null;
                }
            } else if (spec.equals(m.name()) || spec.startsWith(m.name() + "/")) {
                String name = spec.equals(m.name()) ? "." : spec.substring(m.name().length() + 1);
                var entry = m.module(name);
                if (entry.isEmpty()) {
                    problem = "'" + spec + "' is not a module of " + m.name();
                } else {
                    target = entryNode(m, entry.get());
                    problem = null;
                }
            } else if (spec.startsWith("node:")) {
                problem = "'" + spec + "' is a Node built-in; the sandbox has none";
            } else {
                problem =
                        "'"
                                + spec
                                + "' is outside the pack; a pack module imports only its own"
                                + " pack's files and modules";
            }
            if (problem != null) {
                error("js-import-outside-pack", where, problem);
                badNodes.put(fileId(file), file + " was refused (js-import-outside-pack)");
                continue;
            }
            out.put(spec, target);
        }
        return out;
    }

    /** {@code spec} relative to the directory of {@code file}, or null if it leaves the pack. */
    static String relative(String file, String spec) {
        if (spec.contains("%")
                || spec.contains("\\")
                || spec.contains("?")
                || spec.contains("#")
                || spec.contains("//")
                || spec.contains(":")) {
            return null;
        }
        List<String> parts = new ArrayList<>(List.of(file.split("/")));
        parts.remove(parts.size() - 1);
        for (String seg : spec.split("/", -1)) {
            if (seg.equals(".")) {
                continue;
            }
            if (seg.equals("..")) {
                if (parts.isEmpty()) {
                    return null;
                }
                parts.remove(parts.size() - 1);
            } else if (seg.isEmpty()) {
                return null;
            } else {
                parts.add(seg);
            }
        }
        return parts.isEmpty() ? null : String.join("/", parts);
    }

    /** Refuses every file on an import cycle. */
    private void cycles(Map<String, Map<String, String>> imports) {
        Map<String, String> byId = new HashMap<>();
        imports.keySet().forEach(f -> byId.put(fileId(f), f));
        Map<String, Integer> state = new HashMap<>(); // 1 on the path, 2 done
        for (String start : imports.keySet()) {
            if (state.containsKey(fileId(start))) {
                continue;
            }
            // Iterative depth-first search; the path is the current chain of files.
            List<String> path = new ArrayList<>();
            List<java.util.Iterator<String>> its = new ArrayList<>();
            path.add(fileId(start));
            its.add(imports.get(start).values().iterator());
            state.put(fileId(start), 1);
            while (!path.isEmpty()) {
                java.util.Iterator<String> it = its.get(its.size() - 1);
                if (!it.hasNext()) {
                    state.put(path.remove(path.size() - 1), 2);
                    its.remove(its.size() - 1);
                    continue;
                }
                String next = it.next();
                String nextFile = byId.get(next);
                if (nextFile == null) {
                    continue; // a facade or an unreadable file: not part of a cycle
                }
                Integer s = state.get(next);
                if (s == null) {
                    state.put(next, 1);
                    path.add(next);
                    its.add(imports.get(nextFile).values().iterator());
                } else if (s == 1) {
                    List<String> cycle =
                            new ArrayList<>(path.subList(path.indexOf(next), path.size()));
                    cycle.add(next);
                    List<String> names = cycle.stream().map(byId::get).toList();
                    error(
                            "js-cycle",
                            names.get(0),
                            "is on an import cycle: " + String.join(" -> ", names));
                    for (String id : cycle) {
                        badNodes.putIfAbsent(id, byId.get(id) + " is on an import cycle");
                    }
                }
            }
        }
    }

    private void host(PackManifest m, PackManifest.HostEntry h, String where) {
        String specifier = PackManifest.specifier(m.name(), h.name());
        String id = specifier + "::facade";
        String refusal = hosts.refusal(h.host(), m.name());
        if (refusal != null) {
            error(
                    hosts.find(h.host()).isPresent() ? "host-pinned" : "host-unknown",
                    where + ".host",
                    refusal);
            badNodes.put(id, "host module '" + h.host() + "' was refused");
            return;
        }
        HostModule hm = hosts.find(h.host()).orElseThrow();
        String source =
                Facades.generate(
                        "host module \"" + hm.id() + "\" as " + specifier,
                        Facades.hostBridgeName(hm.id()),
                        List.copyOf(hm.exports().keySet()));
        nodes.put(
                id,
                new DiscoveredPack.Node(
                        id,
                        DiscoveredPack.NodeKind.HOST_FACADE,
                        m.name(),
                        "facade",
                        source,
                        Digests.sha256Hex(source),
                        Map.of(),
                        specifier,
                        hm.id(),
                        null,
                        null,
                        null));
    }

    private void wasm(PackManifest m, PackManifest.WasmEntry w) {
        String specifier = PackManifest.specifier(m.name(), w.name());
        String id = specifier + "::facade";
        byte[] bytes = read(w.file(), PackFiles.MAX_WASM_BYTES);
        if (bytes == null) {
            badNodes.put(id, w.file() + " was refused");
            return;
        }
        List<WasmCheck.Problem> problems = new ArrayList<>();
        WasmCheck.Checked checked = WasmCheck.check(bytes, w, problems);
        for (WasmCheck.Problem p : problems) {
            error(p.code(), w.file(), p.message());
        }
        if (checked == null) {
            badNodes.put(id, w.file() + " was refused (" + problems.get(0).code() + ")");
            return;
        }
        String source =
                Facades.generate(
                        "WebAssembly " + w.file() + " as " + specifier,
                        Facades.wasmBridgeName(specifier),
                        checked.functions().stream().map(WasmCheck.Function::as).toList());
        nodes.put(
                id,
                new DiscoveredPack.Node(
                        id,
                        DiscoveredPack.NodeKind.WASM_FACADE,
                        m.name(),
                        "facade",
                        source,
                        Digests.sha256Hex(source),
                        Map.of(),
                        specifier,
                        null,
                        checked,
                        w.file(),
                        Digests.sha256Hex(bytes)));
    }

    /** SKILL.md: warning-grade, never withholds a module. */
    private PackDocs skill() {
        if (!files.exists("SKILL.md")) {
            return null;
        }
        byte[] bytes;
        try {
            bytes = files.read("SKILL.md", PackFiles.MAX_SKILL_BYTES);
        } catch (PackFiles.Refused e) {
            diagnostics.add(
                    Diagnostic.warning(
                            e.code.equals("file-too-large") ? "skill-too-large" : "skill-invalid",
                            pack,
                            "SKILL.md",
                            e.getMessage() + "; the pack's docs are unavailable"));
            return null;
        }
        try {
            String text =
                    StandardCharsets.UTF_8
                            .newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(bytes))
                            .toString();
            return PackDocs.parse(pack, text);
        } catch (CharacterCodingException | IllegalArgumentException e) {
            diagnostics.add(
                    Diagnostic.warning(
                            "skill-invalid",
                            pack,
                            "SKILL.md",
                            (e instanceof CharacterCodingException
                                            ? "is not valid UTF-8"
                                            : e.getMessage())
                                    + "; the pack's docs are unavailable"));
            return null;
        }
    }
}
