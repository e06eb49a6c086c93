package dev.sandjar.packs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What discovery found in one pack directory: its diagnostics, the modules it serves, the ones it
 * withholds and why, and the module graph of what it serves. Immutable.
 */
final class DiscoveredPack {
    enum NodeKind {
        FILE,
        HOST_FACADE,
        WASM_FACADE
    }

    /**
     * One module of the graph: an authored file, or a generated facade.
     *
     * @param id the module id: {@code <pack>::<file>} for files, {@code <specifier>::facade} for
     *     facades; the name the loader gives the module and the id delivery serves it under
     * @param file the pack-relative file for FILE nodes; {@code facade} otherwise
     * @param imports for FILE nodes: each static import specifier and the node id it resolves to
     * @param entrySpecifier for facades: the specifier the facade serves
     * @param npm for a compiled npm bundle: the package, version, integrity and compiler descriptor
     *     it was compiled from, which join its digest line; null otherwise
     */
    record Node(
            String id,
            NodeKind kind,
            String pack,
            String file,
            String source,
            String sha256,
            Map<String, String> imports,
            String entrySpecifier,
            String hostId,
            WasmCheck.Checked wasm,
            String wasmFile,
            String wasmSha256,
            String npm) {
        Node {
            imports = Collections.unmodifiableMap(new LinkedHashMap<>(imports));
        }

        Node(
                String id,
                NodeKind kind,
                String pack,
                String file,
                String source,
                String sha256,
                Map<String, String> imports,
                String entrySpecifier,
                String hostId,
                WasmCheck.Checked wasm,
                String wasmFile,
                String wasmSha256) {
            this(
                    id,
                    kind,
                    pack,
                    file,
                    source,
                    sha256,
                    imports,
                    entrySpecifier,
                    hostId,
                    wasm,
                    wasmFile,
                    wasmSha256,
                    null);
        }

        /** The line this node contributes to every graph digest it is part of. */
        String digestLine() {
            return switch (kind) {
                case FILE -> "js " + id + " sha256:" + sha256 + (npm == null ? "" : " npm:" + npm);
                case HOST_FACADE ->
                        "host-facade "
                                + id
                                + " "
                                + Facades.GENERATOR_VERSION
                                + " host:"
                                + hostId
                                + " sha256:"
                                + sha256;
                case WASM_FACADE ->
                        "wasm-facade "
                                + id
                                + " "
                                + Facades.GENERATOR_VERSION
                                + " sha256:"
                                + sha256
                                + " wasm:"
                                + pack
                                + "::"
                                + wasmFile
                                + " sha256:"
                                + wasmSha256;
            };
        }
    }

    /** A served module. */
    record Entry(
            String name,
            String specifier,
            PackManifest.Kind kind,
            String nodeId,
            String description,
            String graphDigest) {}

    final String label;
    final String name;
    final String version;
    final String description;
    final boolean shipped;
    final List<Diagnostic> diagnostics;
    final Map<String, Entry> entries;
    final Map<String, String> withheld;
    final Map<String, Node> nodes;
    final Map<String, String> graphDigests;
    final PackDocs docs;

    DiscoveredPack(
            String label,
            String name,
            String version,
            String description,
            boolean shipped,
            List<Diagnostic> diagnostics,
            Map<String, Entry> entries,
            Map<String, String> withheld,
            Map<String, Node> nodes,
            Map<String, String> graphDigests,
            PackDocs docs) {
        this.label = label;
        this.name = name;
        this.version = version;
        this.description = description;
        this.shipped = shipped;
        this.diagnostics = List.copyOf(diagnostics);
        this.entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
        this.withheld = Collections.unmodifiableMap(new LinkedHashMap<>(withheld));
        this.nodes = Collections.unmodifiableMap(new LinkedHashMap<>(nodes));
        this.graphDigests = Collections.unmodifiableMap(new LinkedHashMap<>(graphDigests));
        this.docs = docs;
    }

    /** This pack with nothing served, every module withheld for {@code reason}. */
    DiscoveredPack refused(Diagnostic why, String reason) {
        List<Diagnostic> d = new ArrayList<>(diagnostics);
        d.add(why);
        Map<String, String> w = new LinkedHashMap<>(withheld);
        entries.keySet().forEach(n -> w.put(n, reason));
        return new DiscoveredPack(
                label,
                name,
                version,
                description,
                shipped,
                d,
                Map.of(),
                w,
                Map.of(),
                Map.of(),
                docs);
    }

    /** The name diagnostics use: the package name, else the directory label. */
    String display() {
        return name != null ? name : label;
    }

    /** The node ids {@code start} reaches, itself included, in discovery order. */
    static List<String> closure(Map<String, Node> nodes, String start) {
        List<String> out = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>();
        todo.add(start);
        while (!todo.isEmpty()) {
            String id = todo.poll();
            if (!seen.add(id)) {
                continue;
            }
            out.add(id);
            Node n = nodes.get(id);
            if (n != null) {
                todo.addAll(n.imports().values());
            }
        }
        return out;
    }
}
