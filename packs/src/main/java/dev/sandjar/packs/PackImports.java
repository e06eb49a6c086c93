package dev.sandjar.packs;

import dev.sandjar.host.CodeAnalysis;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JavaScript half of discovering one pack, which runs none of it: each authored file is parsed
 * by the sandbox's own parser (or its findings come from the pack index, {@link PackParses});
 * syntax errors, {@code import()} and {@code require()} are refused; every static import must
 * resolve to a node of the same pack (a declared sibling file, or one of the pack's own modules by
 * its specifier); every file on an import cycle is refused. Findings go to the discovery's
 * diagnostics, and a refused file's node id to {@code badNodes} with the reason, which withholds
 * every module whose graph reaches it.
 */
final class PackImports {
    private final String pack;
    private final PackManifest m;
    private final PackParses parses;
    private final List<Diagnostic> diagnostics;
    private final Map<String, String> badNodes;

    PackImports(
            String pack,
            PackManifest m,
            PackParses parses,
            List<Diagnostic> diagnostics,
            Map<String, String> badNodes) {
        this.pack = pack;
        this.m = m;
        this.parses = parses;
        this.diagnostics = diagnostics;
        this.badNodes = badNodes;
    }

    /**
     * Parses {@code file}: null when the parser itself failed; otherwise the analysis, with the
     * file refused if it has a syntax error, {@code import()} or {@code require()}.
     */
    CodeAnalysis analyze(String file, String source) {
        CodeAnalysis a;
        try {
            a = parses.analyze(source);
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

    /**
     * Resolves each static import of {@code file} to a node id within the pack: a relative path to
     * a declared file ({@code jsFiles}: file to node id), or a specifier of the pack's own modules.
     */
    Map<String, String> imports(String file, CodeAnalysis a, Map<String, String> jsFiles) {
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
                    target = PackDiscovery.entryNode(pack, m, entry.get());
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
    void cycles(Map<String, Map<String, String>> imports) {
        Map<String, String> byId = new HashMap<>();
        imports.keySet().forEach(f -> byId.put(fileId(f), f));
        Map<String, Integer> state = new HashMap<>(); // 1 on the path, 2 done
        for (String start : imports.keySet()) {
            if (state.containsKey(fileId(start))) {
                continue;
            }
            // Iterative depth-first search; the path is the current chain of files.
            List<String> path = new ArrayList<>();
            List<Iterator<String>> its = new ArrayList<>();
            path.add(fileId(start));
            its.add(imports.get(start).values().iterator());
            state.put(fileId(start), 1);
            while (!path.isEmpty()) {
                Iterator<String> it = its.get(its.size() - 1);
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

    private void error(String code, String where, String message) {
        diagnostics.add(Diagnostic.error(code, pack, where, message));
    }

    private String fileId(String file) {
        return PackDiscovery.fileId(pack, file);
    }
}
