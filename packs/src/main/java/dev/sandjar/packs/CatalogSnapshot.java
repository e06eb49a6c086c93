package dev.sandjar.packs;

import dev.sandjar.host.Sandbox;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Everything one discovery pass found, frozen: the packs by name, every diagnostic, and indexes
 * from specifier and graph id to what serves them. A catalog swaps snapshots on reload; a
 * resolution keeps the snapshot it was made from, so a run in flight never sees half of a reload.
 */
final class CatalogSnapshot {
    /** Pack directories one search path may hold. */
    static final int MAX_PACKS_PER_PATH = 1000;

    /** A served module and the pack that serves it. */
    record Served(DiscoveredPack pack, DiscoveredPack.Entry entry) {}

    /** A served graph node and its pack. */
    record Located(DiscoveredPack pack, DiscoveredPack.Node node) {}

    /** A search path and how far its packs are trusted. */
    record SearchPath(Path dir, Trust trust) {}

    final HostModules hosts;
    final WasmBudgets budgets;
    final List<Diagnostic> diagnostics;
    final Map<String, DiscoveredPack> packs; // by name; unique claims only
    final Set<String> duplicated;
    final Map<String, Served> specifiers;
    final Map<String, Located> nodes;
    final List<ModuleSummary> summaries;
    final Set<String> trusted; // served packs whose modules see the run's capabilities
    private final Map<String, String> guarded; // node id -> source an untrusted pack serves

    private CatalogSnapshot(
            PackParses parses,
            HostModules hosts,
            WasmBudgets budgets,
            List<DiscoveredPack> found,
            Set<DiscoveredPack> fromTrustedPaths,
            TrustPolicy policy,
            List<Diagnostic> searchDiagnostics) {
        this.hosts = hosts;
        this.budgets = budgets;
        Map<String, List<DiscoveredPack>> byName = new LinkedHashMap<>();
        for (DiscoveredPack p : found) {
            if (p.name != null) {
                byName.computeIfAbsent(p.name, k -> new ArrayList<>()).add(p);
            }
        }
        List<Diagnostic> diags = new ArrayList<>(searchDiagnostics);
        Map<String, DiscoveredPack> unique = new TreeMap<>();
        Set<String> dup = new TreeSet<>();
        for (DiscoveredPack p : found) {
            List<DiscoveredPack> claims = p.name == null ? List.of(p) : byName.get(p.name);
            if (claims.size() > 1) {
                List<String> where = claims.stream().map(c -> c.label).toList();
                DiscoveredPack refused =
                        p.refused(
                                Diagnostic.error(
                                        "package-duplicate",
                                        p.name,
                                        "",
                                        "is claimed by "
                                                + claims.size()
                                                + " pack directories ("
                                                + String.join(", ", where)
                                                + "); none of them is served until only one"
                                                + " remains"),
                                "the package name is claimed twice");
                diags.addAll(refused.diagnostics);
                dup.add(p.name);
                continue;
            }
            diags.addAll(p.diagnostics);
            if (p.name != null) {
                unique.put(p.name, p);
            }
        }
        Map<String, Served> specs = new TreeMap<>();
        Map<String, Located> index = new LinkedHashMap<>();
        List<ModuleSummary> sums = new ArrayList<>();
        for (DiscoveredPack p : unique.values()) {
            for (DiscoveredPack.Entry e : p.entries.values()) {
                specs.put(e.specifier(), new Served(p, e));
                String description = e.description().isEmpty() ? p.description : e.description();
                sums.add(
                        new ModuleSummary(
                                e.specifier(),
                                p.name,
                                p.version,
                                e.kind(),
                                ModuleSummary.sanitize(description),
                                e.graphDigest(),
                                p.shipped));
            }
            p.nodes.values().forEach(n -> index.put(n.id(), new Located(p, n)));
        }
        Set<String> trust = new TreeSet<>();
        Map<String, String> guards = new java.util.HashMap<>();
        for (DiscoveredPack p : unique.values()) {
            if (p.shipped
                    || fromTrustedPaths.contains(p)
                    || policy.trustedPacks().contains(p.name)) {
                trust.add(p.name);
                continue;
            }
            Set<String> withheld = policy.withheldFrom(p.name);
            for (DiscoveredPack.Node n : p.nodes.values()) {
                if (n.kind() == DiscoveredPack.NodeKind.FILE) {
                    guards.put(
                            n.id(),
                            n.npm() != null
                                    ? PackTrust.guardUnparsed(n.source(), withheld)
                                    : parses.guard(n.source(), withheld));
                }
            }
        }
        this.trusted = Collections.unmodifiableSet(trust);
        this.guarded = Map.copyOf(guards);
        this.diagnostics = List.copyOf(diags);
        this.packs = Collections.unmodifiableMap(unique);
        this.duplicated = Collections.unmodifiableSet(dup);
        this.specifiers = Collections.unmodifiableMap(specs);
        this.nodes = Collections.unmodifiableMap(index);
        sums.sort(java.util.Comparator.comparing(ModuleSummary::specifier));
        this.summaries = List.copyOf(sums);
    }

    /**
     * The source the loader serves for a pack node: a file of an untrusted pack with its guard
     * (PackTrust), anything else as written.
     */
    String servedSource(DiscoveredPack.Node node) {
        return guarded.getOrDefault(node.id(), node.source());
    }

    /** Whether {@code node} is a file of an untrusted pack, served with its guard. */
    boolean isGuarded(DiscoveredPack.Node node) {
        return guarded.containsKey(node.id());
    }

    /**
     * A snapshot of packs a remote catalog built from a server's pack list and the module graphs it
     * fetched and verified. Nothing is trusted by search path: the shipped packs and the policy's
     * trusted packs are trusted, and every other pack's files are served with the guard.
     */
    static CatalogSnapshot remote(
            Sandbox sandbox,
            HostModules hosts,
            WasmBudgets budgets,
            List<DiscoveredPack> packs,
            TrustPolicy policy) {
        return new CatalogSnapshot(
                new PackParses(sandbox, null), hosts, budgets, packs, Set.of(), policy, List.of());
    }

    /** A search pass over {@code roots} (each a pack directory or a directory of packs). */
    static CatalogSnapshot discover(
            PackParses parses,
            List<SearchPath> roots,
            Path shippedRoot,
            HostModules hosts,
            WasmBudgets budgets,
            TrustPolicy policy) {
        List<DiscoveredPack> found = new ArrayList<>();
        List<Diagnostic> diags = new ArrayList<>();
        if (shippedRoot != null) {
            scan(parses, shippedRoot, true, hosts, found, diags);
        }
        Set<DiscoveredPack> fromTrusted =
                Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (SearchPath root : roots) {
            int before = found.size();
            scan(parses, root.dir(), false, hosts, found, diags);
            if (root.trust() == Trust.TRUSTED) {
                fromTrusted.addAll(found.subList(before, found.size()));
            }
        }
        return new CatalogSnapshot(parses, hosts, budgets, found, fromTrusted, policy, diags);
    }

    private static void scan(
            PackParses parses,
            Path root,
            boolean shipped,
            HostModules hosts,
            List<DiscoveredPack> found,
            List<Diagnostic> diags) {
        Path real;
        try {
            real = root.toRealPath();
        } catch (IOException e) {
            diags.add(
                    Diagnostic.error(
                            "search-path", root.toString(), "", "does not exist or is unreadable"));
            return;
        }
        if (!Files.isDirectory(real)) {
            diags.add(Diagnostic.error("search-path", root.toString(), "", "is not a directory"));
            return;
        }
        if (Files.exists(real.resolve("package.json"), LinkOption.NOFOLLOW_LINKS)) {
            Path name = real.getFileName();
            add(parses, name == null ? "." : name.toString(), real, shipped, hosts, found);
            return;
        }
        List<Candidate> candidates = new ArrayList<>();
        try {
            for (Path child : sorted(real)) {
                String name = child.getFileName().toString().replace("/", "");
                if (name.startsWith(".")) {
                    continue;
                }
                if (name.startsWith("@") && Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
                    for (Path inner : sorted(child)) {
                        String label = name + "/" + inner.getFileName().toString().replace("/", "");
                        candidate(label, inner, candidates, diags);
                    }
                } else {
                    candidate(name, child, candidates, diags);
                }
            }
        } catch (IOException e) {
            diags.add(Diagnostic.error("search-path", root.toString(), "", "cannot be listed"));
            return;
        }
        if (candidates.size() > MAX_PACKS_PER_PATH) {
            diags.add(
                    Diagnostic.error(
                            "search-path",
                            root.toString(),
                            "",
                            "holds "
                                    + candidates.size()
                                    + " pack directories; at most "
                                    + MAX_PACKS_PER_PATH
                                    + " are read"));
            candidates = candidates.subList(0, MAX_PACKS_PER_PATH);
        }
        for (Candidate c : candidates) {
            add(parses, c.label(), c.dir(), shipped, hosts, found);
        }
    }

    /** A directory with a package.json, and the name diagnostics use for it until it has one. */
    private record Candidate(String label, Path dir) {}

    private static void candidate(
            String label, Path dir, List<Candidate> candidates, List<Diagnostic> diags) {
        if (Files.isSymbolicLink(dir)) {
            if (Files.isDirectory(dir)) {
                diags.add(
                        Diagnostic.error(
                                "file-symlink",
                                label,
                                "",
                                "the pack directory is a symbolic link; links are not followed"));
            }
            return;
        }
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                && Files.exists(dir.resolve("package.json"), LinkOption.NOFOLLOW_LINKS)) {
            candidates.add(new Candidate(label, dir));
        }
    }

    private static void add(
            PackParses parses,
            String label,
            Path dir,
            boolean shipped,
            HostModules hosts,
            List<DiscoveredPack> found) {
        Path real;
        try {
            real = dir.toRealPath();
        } catch (IOException e) {
            return; // gone since it was listed
        }
        DiscoveredPack p = PackDiscovery.discover(label, real, shipped, parses, hosts);
        if (p != null) {
            found.add(p);
        }
    }

    private static List<Path> sorted(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                out.add(p);
                if (out.size() > 4 * MAX_PACKS_PER_PATH) {
                    break;
                }
            }
        }
        out.sort(null);
        return out;
    }

    /**
     * Why {@code specifier} is not served, for a message that names what to do: install a pack,
     * remove a duplicate, fix a refused pack, or import a public module instead of a path.
     */
    String explain(String specifier) {
        return why(specifier).message();
    }

    /** Why a specifier is not served; {@code refused} when a pack offers it but is withheld. */
    record Why(String message, boolean refused) {}

    Why why(String specifier) {
        String message = reason(specifier);
        DiscoveredPack p = packs.get(PackNames.packageOf(specifier));
        boolean refused =
                duplicated.contains(PackNames.packageOf(specifier))
                        || (p != null
                                && (p.withheld.containsKey(name(p, specifier))
                                        || (p.entries.isEmpty() && p.withheld.isEmpty())));
        return new Why(message, refused);
    }

    private static String name(DiscoveredPack p, String specifier) {
        return specifier.equals(p.name) ? "." : specifier.substring(p.name.length() + 1);
    }

    private String reason(String specifier) {
        if (specifier.isEmpty()) {
            return "an empty specifier names no module";
        }
        if (specifier.startsWith("node:")) {
            return "Node built-in modules are not available in the sandbox";
        }
        if (specifier.startsWith("/")
                || specifier.startsWith(".")
                || specifier.contains("\\")
                || specifier.contains("%")
                || specifier.contains("::")
                || specifier.contains(":")) {
            return "only pack specifiers can be imported, not paths, URLs or internal module ids";
        }
        String pkg = PackNames.packageOf(specifier);
        if (!PackNames.isValidPackageName(pkg)) {
            return "'" + pkg + "' is not a valid package name";
        }
        if (duplicated.contains(pkg)) {
            return "pack "
                    + pkg
                    + " is installed in more than one place, so neither copy is served; remove"
                    + " one";
        }
        DiscoveredPack p = packs.get(pkg);
        if (p == null) {
            return "no installed pack provides it; install the pack " + pkg;
        }
        String name = specifier.equals(pkg) ? "." : specifier.substring(pkg.length() + 1);
        if (p.entries.containsKey(name)) {
            return "it is not declared for this run";
        }
        if (p.withheld.containsKey(name)) {
            return "pack " + pkg + " withholds it: " + p.withheld.get(name);
        }
        if (p.entries.isEmpty() && p.withheld.isEmpty()) {
            String first =
                    p.diagnostics.stream()
                            .filter(Diagnostic::isError)
                            .map(Diagnostic::toString)
                            .findFirst()
                            .orElse("its manifest is invalid");
            return "pack " + pkg + " was refused: " + first;
        }
        // Sorted, so a remote catalog (which knows the specifiers, not the manifest's order)
        // says the same.
        List<String> offered =
                p.entries.keySet().stream()
                        .map(n -> PackManifest.specifier(pkg, n))
                        .sorted()
                        .toList();
        return "pack "
                + pkg
                + " has no public module '"
                + name
                + "'"
                + (name.contains("/") || name.endsWith(".js")
                        ? " (files inside a pack cannot be imported)"
                        : "")
                + "; it offers: "
                + String.join(", ", offered);
    }
}
