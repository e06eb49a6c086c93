package dev.sandjar.packs;

import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Sandbox;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The sandbox modules this process offers: every pack found on the search paths (Sandjar's shipped
 * packs, then the caller's directories), discovered without running any pack code. Build one and
 * share it; it is thread-safe.
 *
 * <pre>{@code
 * ModuleCatalog catalog = ModuleCatalog.builder(sandbox).searchPath(Path.of("packs")).build();
 * CatalogResolution r = catalog.resolveBody(code);      // the body's imports are its declaration
 * if (r.isOk()) {
 *     sandbox.run(RunRequest.builder(code).modules(r.moduleResolution()).build());
 * }
 * }</pre>
 *
 * <p>Each discovery pass produces an immutable snapshot. {@link #reload()} swaps in a new one;
 * resolutions already handed out keep the snapshot they were made from, so runs in flight are
 * unaffected.
 */
public final class ModuleCatalog {
    private final Sandbox sandbox;
    private final List<CatalogSnapshot.SearchPath> searchPaths;
    private final TrustPolicy trust;
    private final boolean shipped;
    private final HostModules hosts;
    private final WasmBudgets budgets;
    private final Path indexDirectory; // null: no pack index
    private volatile CatalogSnapshot snapshot;

    private ModuleCatalog(Builder b) {
        this.sandbox = b.sandbox;
        this.searchPaths = List.copyOf(b.searchPaths);
        this.trust = new TrustPolicy(b.trusted, b.grants, b.withheld);
        this.shipped = b.shipped;
        this.hosts = b.hosts;
        this.budgets = b.budgets;
        this.indexDirectory = b.indexDirectory;
        this.snapshot = discover();
    }

    /** {@code sandbox} is the one whose parser reads pack code (nothing of it runs). */
    public static Builder builder(Sandbox sandbox) {
        return new Builder(sandbox);
    }

    private CatalogSnapshot discover() {
        Path shippedRoot = shipped ? ShippedPacks.root() : null;
        PackIndex index =
                indexDirectory == null
                        ? null
                        : PackIndex.open(
                                indexDirectory, PackIndex.configuration(shippedRoot, searchPaths));
        PackParses parses = new PackParses(sandbox, index);
        CatalogSnapshot s =
                CatalogSnapshot.discover(parses, searchPaths, shippedRoot, hosts, budgets, trust);
        parses.save();
        return s;
    }

    /**
     * Discovers every search path again and swaps the result in atomically. Reloads run one at a
     * time; readers never wait for one.
     */
    public synchronized void reload() {
        CatalogSnapshot next = discover();
        snapshot = next;
    }

    /** The current snapshot (a remote catalog reads host and WASM modules' host side from it). */
    CatalogSnapshot snapshot() {
        return snapshot;
    }

    /** Every importable module, sorted by specifier. */
    public List<ModuleSummary> summaries() {
        return snapshot.summaries;
    }

    /** Every finding of the last discovery: refusals (errors) and warnings, by pack. */
    public List<Diagnostic> diagnostics() {
        return snapshot.diagnostics;
    }

    /**
     * How far a served pack is trusted: {@link Trust#TRUSTED} for the shipped packs, packs of a
     * trusted search path and packs trusted by name; {@link Trust#UNTRUSTED} for the rest. Empty
     * for a pack this catalog does not serve.
     */
    public Optional<Trust> trustOf(String packName) {
        CatalogSnapshot s = snapshot;
        if (!s.packs.containsKey(packName)) {
            return Optional.empty();
        }
        return Optional.of(s.trusted.contains(packName) ? Trust.TRUSTED : Trust.UNTRUSTED);
    }

    /** A pack's SKILL.md, if it has a valid one. Third-party text; see {@link PackDocs}. */
    public Optional<PackDocs> packDocs(String packName) {
        DiscoveredPack p = snapshot.packs.get(packName);
        return p == null ? Optional.empty() : Optional.ofNullable(p.docs);
    }

    /**
     * Resolves {@code declarations} against the installed packs. A specifier nothing serves is an
     * error naming the pack to install (or why the installed one is withheld); a version or digest
     * that differs from the declaration's is a warning.
     */
    public CatalogResolution resolveForExecution(List<ModuleDeclaration> declarations) {
        return resolve(snapshot, declarations, List.of(), Map.of());
    }

    /**
     * {@code declarations} against {@code s}; {@code notes} start the warnings, and a specifier in
     * {@code unavailable} is an error with that message even when {@code s} serves it (a remote
     * module whose host side this process lacks).
     */
    static CatalogResolution resolve(
            CatalogSnapshot s,
            List<ModuleDeclaration> declarations,
            List<CatalogResolution.Problem> notes,
            Map<String, String> unavailable) {
        Map<String, CatalogSnapshot.Served> declared = new LinkedHashMap<>();
        List<ModuleSummary> modules = new ArrayList<>();
        List<CatalogResolution.Problem> errors = new ArrayList<>();
        List<CatalogResolution.Problem> warnings = new ArrayList<>(notes);
        for (ModuleDeclaration d : declarations) {
            if (declared.containsKey(d.specifier())) {
                continue;
            }
            CatalogSnapshot.Served served = s.specifiers.get(d.specifier());
            if (served != null && unavailable.containsKey(d.specifier())) {
                errors.add(
                        new CatalogResolution.Problem(
                                d.specifier(), unavailable.get(d.specifier())));
                continue;
            }
            if (served == null) {
                errors.add(new CatalogResolution.Problem(d.specifier(), s.explain(d.specifier())));
                continue;
            }
            declared.put(d.specifier(), served);
            DiscoveredPack p = served.pack();
            if (d.expectedVersion() != null && !d.expectedVersion().equals(p.version)) {
                warnings.add(
                        new CatalogResolution.Problem(
                                d.specifier(),
                                "recorded with "
                                        + p.name
                                        + " "
                                        + d.expectedVersion()
                                        + "; "
                                        + p.version
                                        + " is installed and is what runs"));
            }
            if (d.expectedDigest() != null
                    && !d.expectedDigest().equals(served.entry().graphDigest())) {
                warnings.add(
                        new CatalogResolution.Problem(
                                d.specifier(),
                                "its code changed since it was recorded (graph digest "
                                        + served.entry().graphDigest()
                                        + ")"));
            }
            s.summaries.stream()
                    .filter(m -> m.specifier().equals(d.specifier()))
                    .findFirst()
                    .ifPresent(modules::add);
        }
        return new CatalogResolution(s, declared, modules, errors, warnings);
    }

    /**
     * Reads the static imports of {@code code} with the sandbox's parser and resolves them: the
     * body's imports are its declaration. Code that does not parse resolves to nothing (the run
     * reports the syntax error); a dynamic {@code import()} is a warning, since the sandbox refuses
     * it when it runs.
     */
    public CatalogResolution resolveBody(String code) {
        CatalogSnapshot s = snapshot;
        List<CatalogResolution.Problem> notes = new ArrayList<>();
        List<ModuleDeclaration> declarations = bodyImports(sandbox, code, notes);
        return resolve(s, declarations, notes, Map.of());
    }

    /**
     * The static imports of {@code code}, read with the sandbox's parser, as declarations; each
     * dynamic {@code import()} adds a warning to {@code notes}. Code that does not parse declares
     * nothing (the run reports the syntax error).
     */
    static List<ModuleDeclaration> bodyImports(
            Sandbox sandbox, String code, List<CatalogResolution.Problem> notes) {
        if (!code.contains("import")) {
            return List.of(); // no import can be in it: skip the parser
        }
        CodeAnalysis a = sandbox.analyze(code);
        if (a.syntaxError() != null) {
            return List.of();
        }
        for (CodeAnalysis.Position p : a.dynamicImports()) {
            notes.add(
                    new CatalogResolution.Problem(
                            "import()",
                            "line "
                                    + p.line()
                                    + ", column "
                                    + p.column()
                                    + ": dynamic import() is refused when the code runs; import"
                                    + " statically"));
        }
        return a.specifiers().stream().map(ModuleDeclaration::of).toList();
    }

    /**
     * The source of one module for a client that runs the guest elsewhere, by opaque id: a public
     * specifier, or a graph id from a delivery's {@code dependencyIds}. Only modules this catalog
     * serves are delivered; a WebAssembly module's binary is {@link #authorizeWasm}'s.
     *
     * @throws ModuleDeliveryException NOT_FOUND for an id nothing serves, REFUSED for a module the
     *     catalog withholds
     */
    public ModuleDelivery authorizeDelivery(String moduleId) {
        CatalogSnapshot.Located located = locate(moduleId);
        DiscoveredPack.Node n = located.node();
        return new ModuleDelivery(
                moduleId,
                n.id(),
                located.pack().name,
                n.file(),
                n.source(),
                ModuleDelivery.MEDIA_TYPE,
                located.pack().graphDigests.get(n.id()),
                n.sha256(),
                List.copyOf(new java.util.LinkedHashSet<>(n.imports().values())),
                n.hostId(),
                n.npm());
    }

    /**
     * The node this catalog serves under {@code moduleId} (a public specifier or a graph id).
     *
     * @throws ModuleDeliveryException NOT_FOUND, or REFUSED for a module the catalog withholds
     */
    private CatalogSnapshot.Located locate(String moduleId) {
        Objects.requireNonNull(moduleId, "moduleId");
        CatalogSnapshot s = snapshot;
        CatalogSnapshot.Served served = s.specifiers.get(moduleId);
        CatalogSnapshot.Located located =
                s.nodes.get(served != null ? served.entry().nodeId() : moduleId);
        if (located == null) {
            CatalogSnapshot.Why why = s.why(moduleId);
            throw new ModuleDeliveryException(
                    why.refused()
                            ? ModuleDeliveryException.Reason.REFUSED
                            : ModuleDeliveryException.Reason.NOT_FOUND,
                    "'" + moduleId + "' cannot be delivered: " + why.message());
        }
        return located;
    }

    /**
     * The binary of a WebAssembly module, for a runner that calls the module itself (the browser
     * runner), by the module's public specifier or its facade's graph id. Only modules this catalog
     * serves are delivered.
     *
     * @throws ModuleDeliveryException NOT_FOUND for an id that names no WebAssembly module this
     *     catalog serves, REFUSED for one the catalog withholds
     */
    public WasmDelivery authorizeWasm(String moduleId) {
        CatalogSnapshot.Located located = locate(moduleId);
        DiscoveredPack.Node n = located.node();
        if (n.kind() != DiscoveredPack.NodeKind.WASM_FACADE) {
            throw new ModuleDeliveryException(
                    ModuleDeliveryException.Reason.NOT_FOUND,
                    "'" + moduleId + "' is not a WebAssembly module");
        }
        List<WasmDelivery.Function> functions = new ArrayList<>();
        for (WasmCheck.Function f : n.wasm().functions()) {
            functions.add(
                    new WasmDelivery.Function(
                            f.as(),
                            f.wasm(),
                            f.params().stream().map(WasmCheck.Scalar::wat).toList(),
                            f.result() == null ? "void" : f.result().wat()));
        }
        return new WasmDelivery(
                n.entrySpecifier(),
                located.pack().name,
                n.id(),
                located.pack().graphDigests.get(n.id()),
                n.wasmSha256(),
                n.wasm().bytes(),
                functions);
    }

    /**
     * {@code $XDG_CACHE_HOME/sandjar/packs}, else {@code ~/.cache/sandjar/packs}: where the command
     * line keeps its pack index.
     */
    public static Path defaultIndexDirectory() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base =
                xdg != null && !xdg.isBlank()
                        ? Path.of(xdg)
                        : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("sandjar").resolve("packs");
    }

    public static final class Builder {
        private final Sandbox sandbox;
        private final List<CatalogSnapshot.SearchPath> searchPaths = new ArrayList<>();
        private final java.util.Set<String> trusted = new java.util.TreeSet<>();
        private final Map<String, java.util.Set<String>> grants = new LinkedHashMap<>();
        private java.util.Set<String> withheld = PackTrust.DEFAULT_WITHHELD;
        private boolean shipped = true;
        private HostModules hosts = HostModules.builtIn();
        private WasmBudgets budgets = WasmBudgets.DEFAULTS;
        private Path indexDirectory;

        private Builder(Sandbox sandbox) {
            this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
        }

        /**
         * A directory of packs (each a subdirectory with a package.json, scoped ones under {@code
         * @scope/}), or one pack directory. Searched in the order added, after the shipped packs.
         * Its packs are {@link Trust#UNTRUSTED} unless trusted by name ({@link #trust}).
         */
        public Builder searchPath(Path dir) {
            return searchPath(dir, Trust.UNTRUSTED);
        }

        /**
         * A search path as {@link #searchPath(Path)}, whose packs are all {@code trust}: {@link
         * Trust#TRUSTED} lets their modules see every capability the run grants.
         */
        public Builder searchPath(Path dir, Trust trust) {
            searchPaths.add(
                    new CatalogSnapshot.SearchPath(
                            Objects.requireNonNull(dir, "dir"),
                            Objects.requireNonNull(trust, "trust")));
            return this;
        }

        /**
         * Trusts the pack named {@code packName} wherever it is found: its modules see every
         * capability the run grants.
         *
         * @throws InvalidRequestException when the name is not a valid package name
         */
        public Builder trust(String packName) {
            trusted.add(packageName(packName));
            return this;
        }

        /**
         * Lets the untrusted pack {@code packName} see the withheld globals in {@code globals} (for
         * example {@code Set.of("fetch")}), and no other. Grants add up; they mean nothing for a
         * trusted pack, which sees everything.
         *
         * @throws InvalidRequestException when the name is not a valid package name, or a global is
         *     not one this catalog withholds
         */
        public Builder grant(String packName, java.util.Set<String> globals) {
            String pack = packageName(packName);
            for (String g : Objects.requireNonNull(globals, "globals")) {
                if (!withheld.contains(g)) {
                    throw new InvalidRequestException(
                            "grant("
                                    + pack
                                    + "): '"
                                    + g
                                    + "' is not a withheld global; withheld: "
                                    + new java.util.TreeSet<>(withheld));
                }
            }
            grants.computeIfAbsent(pack, k -> new java.util.TreeSet<>()).addAll(globals);
            return this;
        }

        /**
         * The capability globals untrusted packs do not see, replacing the default ({@code fetch},
         * {@code workspace}, {@code getSecret}, {@code secrets}, {@code progress}). Name the
         * globals of every bridge of your own that reaches outside the run: a global not listed
         * here is visible to every pack. {@code globalThis}, {@code self} and {@code global} are
         * always replaced by a frozen object of the standard built-ins and need not be listed. Call
         * it before {@link #grant}.
         *
         * @throws InvalidRequestException when a name is not an identifier, or is a standard
         *     built-in (which a pack may always use)
         */
        public Builder withheldGlobals(java.util.Set<String> globals) {
            java.util.Set<String> names = new java.util.TreeSet<>();
            for (String g : Objects.requireNonNull(globals, "globals")) {
                if (g == null || !PackTrust.isWithholdable(g)) {
                    throw new InvalidRequestException(
                            "withheldGlobals: '"
                                    + g
                                    + "' must be an identifier that is not a reserved word or a"
                                    + " standard built-in");
                }
                if (!PackTrust.GLOBAL_OBJECT_NAMES.contains(g)) {
                    names.add(g);
                }
            }
            this.withheld = java.util.Set.copyOf(names);
            return this;
        }

        private static String packageName(String packName) {
            if (packName == null || !PackNames.isValidPackageName(packName)) {
                throw new InvalidRequestException("'" + packName + "' is not a valid package name");
            }
            return packName;
        }

        /** Whether Sandjar's shipped packs are included (they are by default). */
        public Builder shippedPacks(boolean include) {
            this.shipped = include;
            return this;
        }

        /** The host module registry; {@link HostModules#builtIn()} by default. */
        public Builder hostModules(HostModules registry) {
            this.hosts = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Budgets for pack WebAssembly; {@link WasmBudgets#DEFAULTS} (the ceilings) by default. */
        public Builder wasmBudgets(WasmBudgets b) {
            this.budgets = Objects.requireNonNull(b, "budgets");
            return this;
        }

        /**
         * Keeps the pack index in {@code dir} (made if missing): what the sandbox's parser found in
         * each pack file, by the file's SHA-256, so a discovery in a later process parses only the
         * files that are new or changed. Every file is still read and checked; the index is
         * authenticated with a key in the same directory, and one that fails the check is ignored
         * and rebuilt (docs/packs.md, "The pack index"). Without it (the default) every discovery
         * parses every file. {@link #defaultIndexDirectory()} is the command line's.
         */
        public Builder indexDirectory(Path dir) {
            this.indexDirectory = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** Discovers every search path now. */
        public ModuleCatalog build() {
            return new ModuleCatalog(this);
        }
    }
}
