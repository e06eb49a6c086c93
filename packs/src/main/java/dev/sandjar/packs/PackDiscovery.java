package dev.sandjar.packs;

import dev.sandjar.host.CodeAnalysis;
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
 * sandbox's own parser for its imports ({@link PackImports}), each WebAssembly binary checked
 * section by section, each host module checked against the registry, and SKILL.md. Every refusal
 * becomes a diagnostic; a module is withheld when anything in its graph was refused.
 */
final class PackDiscovery {
    /** The scope only the shipped packs may use. */
    static final String RESERVED_SCOPE = "@sandjar/";

    private final String label;
    private final Path dir;
    private final boolean shipped;
    private final PackParses parses;
    private final HostModules hosts;
    private final PackFiles files;
    private final List<Diagnostic> diagnostics = new ArrayList<>();
    private String pack;
    private boolean packFailed;
    private final Map<String, String> badNodes = new HashMap<>();
    private final Map<String, DiscoveredPack.Node> nodes = new LinkedHashMap<>();

    private PackDiscovery(
            String label, Path dir, boolean shipped, PackParses parses, HostModules hosts) {
        this.label = label;
        this.dir = dir;
        this.shipped = shipped;
        this.parses = parses;
        this.hosts = hosts;
        this.files = new PackFiles(dir);
        this.pack = label;
    }

    /** The pack in {@code dir} (a real path), or null when its package.json declares no pack. */
    static DiscoveredPack discover(
            String label, Path dir, boolean shipped, PackParses parses, HostModules hosts) {
        return new PackDiscovery(label, dir, shipped, parses, hosts).run();
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
        PackImports importCheck = new PackImports(pack, m, parses, diagnostics, badNodes);
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
            CodeAnalysis a = importCheck.analyze(f, source);
            if (a != null) {
                analyses.put(f, a);
                sources.put(f, source);
                raw.put(f, bytes);
            }
        }
        // Imports, resolved within the pack.
        Map<String, Map<String, String>> imports = new LinkedHashMap<>();
        for (var e : analyses.entrySet()) {
            imports.put(e.getKey(), importCheck.imports(e.getKey(), e.getValue(), jsFiles));
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
        importCheck.cycles(imports);
        // Host and WebAssembly modules, each behind a generated facade.
        for (int i = 0; i < m.modules().size(); i++) {
            PackManifest.ModuleSpec s = m.modules().get(i);
            String where = "sandjar.sandboxModules[" + i + "]";
            if (s instanceof PackManifest.HostEntry h) {
                host(m, h, where);
            } else if (s instanceof PackManifest.WasmEntry w) {
                wasm(m, w);
            } else if (s instanceof PackManifest.NpmEntry n) {
                npm(m, n, where);
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
            String node = entryNode(pack, m, s);
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

    /** The node id of a pack file: {@code <pack>::<file>}. */
    static String fileId(String pack, String file) {
        return pack + "::" + file;
    }

    /**
     * The node a module's specifier leads to: its file, its compiled npm bundle, or its generated
     * facade.
     */
    static String entryNode(String pack, PackManifest m, PackManifest.ModuleSpec s) {
        if (s instanceof PackManifest.NpmEntry n) {
            return n.isCompiled()
                    ? fileId(pack, n.bundle())
                    : PackManifest.specifier(m.name(), s.name()) + "::npm";
        }
        return s instanceof PackManifest.JsEntry js
                ? fileId(pack, js.file())
                : PackManifest.specifier(m.name(), s.name()) + "::facade";
    }

    private String fileId(String file) {
        return fileId(pack, file);
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

    /**
     * A compiled npm module: its bundle, checked against the SHA-256 the compiler recorded and
     * capped at the compiler's own bound. The compiler already scanned and probed it; it is not
     * parsed again here. It imports nothing, so the loader serves it no import at all, which is
     * what enforces that (a bundle edited to import something fails to link).
     */
    private void npm(PackManifest m, PackManifest.NpmEntry n, String where) {
        String id = entryNode(pack, m, n);
        if (!n.isCompiled()) {
            error(
                    "npm-not-compiled",
                    where,
                    "names "
                            + n.npmPackage()
                            + "@"
                            + n.npmVersion()
                            + " but has no compiled bundle; compile the pack with Sandjar's npm"
                            + " compiler (sandjar packs compile)");
            badNodes.put(id, "it is not compiled");
            return;
        }
        byte[] bytes = read(n.bundle(), PackFiles.MAX_NPM_BUNDLE_BYTES);
        if (bytes == null) {
            badNodes.putIfAbsent(id, n.bundle() + " was refused");
            return;
        }
        String sha = Digests.sha256Hex(bytes);
        if (!sha.equals(n.bundleSha256())) {
            error(
                    "npm-bundle-changed",
                    n.bundle(),
                    "has SHA-256 "
                            + sha
                            + " but the compiler recorded "
                            + n.bundleSha256()
                            + "; compile the pack again");
            badNodes.put(id, n.bundle() + " changed after it was compiled");
            return;
        }
        String source = utf8(n.bundle(), bytes);
        if (source == null) {
            return;
        }
        nodes.put(
                id,
                new DiscoveredPack.Node(
                        id,
                        DiscoveredPack.NodeKind.FILE,
                        m.name(),
                        n.bundle(),
                        source,
                        sha,
                        Map.of(),
                        null,
                        null,
                        null,
                        null,
                        null,
                        n.npmPackage()
                                + "@"
                                + n.npmVersion()
                                + (n.subpath() == null ? "" : "/" + n.subpath())
                                + " integrity:"
                                + n.integrity()
                                + " compiler:"
                                + n.compiler()));
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
