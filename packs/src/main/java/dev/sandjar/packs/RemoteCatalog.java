package dev.sandjar.packs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Sandbox;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pack catalog of a Sandjar server, for a process that runs guests itself but holds no packs:
 * how a fleet of JVM services shares one catalog (docs/runners.md). It reads the server's pack list
 * ({@code GET /api/packs}), fetches each imported module and its dependencies by delivery id
 * ({@code GET /api/sandbox-modules/{id}}) with a bearer token, and verifies every body against its
 * {@code X-Content-Sha256} and every module's graph digest before any of it can reach a guest.
 *
 * <pre>{@code
 * RemoteCatalog remote = RemoteCatalog.builder(sandbox, URI.create("http://packs.internal:8470"))
 *         .withToken(System.getenv("SANDJAR_TOKEN"))
 *         .withCacheDirectory(Path.of("/var/cache/sandjar-modules"))
 *         .build();                                   // reads the pack list
 * CatalogResolution r = remote.resolveBody(code);     // fetches and verifies what the body imports
 * if (r.isOk()) {
 *     sandbox.run(RunRequest.builder(code).modules(r.moduleResolution()).build());
 * }
 * }</pre>
 *
 * <p>A resolution is a {@link CatalogResolution} built from the same snapshot type and served by
 * the same enforcing loader as a local {@link ModuleCatalog}'s, so what it allows, what it refuses
 * and the messages it refuses with are a local catalog's. Untrusted packs (all but the shipped ones
 * and those named with {@link Builder#trust}) get the local guard. Host and WebAssembly modules
 * arrive as their generated facades; their host side is this process's: host modules from the local
 * registry, WebAssembly binaries from a local catalog that serves the same module with the same
 * graph digest ({@link Builder#withLocalCatalog}). Without it the import is an error naming the
 * module.
 *
 * <p>Module graphs are immutable under their digest and cached by it: in memory, and in a directory
 * if one is given, re-verified whenever read from there. The pack list is read when the catalog is
 * built and again on {@link #reload()}. Thread-safe.
 *
 * @throws RemoteCatalogException from {@link Builder#build}, {@link #reload} and the resolve
 *     methods when the server's answer cannot be used
 */
public final class RemoteCatalog {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
    public static final int DEFAULT_MAX_MODULE_BYTES = 2 * 1024 * 1024;
    public static final int MAX_MODULE_BYTES_CEILING = 16 * 1024 * 1024;

    /** Modules one graph may hold: a pack's 8 MiB holds far fewer files. */
    static final int MAX_GRAPH_MODULES = 1000;

    static final int MAX_LIST_BYTES = 16 * 1024 * 1024;
    private static final int MAX_CACHED_GRAPHS = 512;
    private static final int MAX_CACHED_SNAPSHOTS = 64;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Sandbox sandbox;
    private final RemoteServer server;
    private final RemoteCache disk;
    private final ModuleCatalog local;
    private final HostModules hosts;
    private final WasmBudgets budgets;
    private final TrustPolicy trust;
    private final Map<String, Graph> graphs = new ConcurrentHashMap<>();
    private final Map<String, CatalogSnapshot> snapshots = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong generations =
            new java.util.concurrent.atomic.AtomicLong();
    private volatile Listing listing;

    private RemoteCatalog(Builder b) {
        this.sandbox = b.sandbox;
        this.server =
                new RemoteServer(
                        b.server,
                        b.token,
                        b.timeout,
                        b.maxModuleBytes,
                        MAX_LIST_BYTES,
                        b.http != null
                                ? b.http
                                : HttpClient.newBuilder()
                                        .version(HttpClient.Version.HTTP_1_1)
                                        .connectTimeout(b.timeout)
                                        .build());
        this.disk =
                b.cacheDirectory == null
                        ? null
                        : new RemoteCache(
                                b.cacheDirectory,
                                (long) MAX_GRAPH_MODULES * b.maxModuleBytes * 2 + 1024);
        this.local = b.local;
        CatalogSnapshot ls = local == null ? null : local.snapshot();
        this.hosts = ls == null ? HostModules.builtIn() : ls.hosts;
        this.budgets = ls == null ? WasmBudgets.DEFAULTS : ls.budgets;
        this.trust = new TrustPolicy(b.trusted, Map.of(), PackTrust.DEFAULT_WITHHELD);
        this.listing = readListing();
    }

    /**
     * A catalog of the server at {@code server} (its base URL, {@code http} or {@code https});
     * {@code sandbox} is the one whose parser reads delivered code.
     */
    public static Builder builder(Sandbox sandbox, URI server) {
        return new Builder(sandbox, server);
    }

    /** Reads the server's pack list again; resolutions already handed out keep what they had. */
    public synchronized void reload() {
        Listing next = readListing();
        listing = next;
        snapshots.clear();
    }

    /** Every module the server offers this token, sorted by specifier. */
    public List<ModuleSummary> summaries() {
        return listing.summaries;
    }

    /** The server's discovery findings, as its pack list states them. */
    public List<Diagnostic> diagnostics() {
        return listing.diagnostics;
    }

    /**
     * Reads the static imports of {@code code} with the sandbox's parser, fetches and verifies
     * every module they need, and resolves them as {@link ModuleCatalog#resolveBody} does.
     *
     * @throws RemoteCatalogException when the server's answer for a needed module cannot be used
     */
    public CatalogResolution resolveBody(String code) {
        List<CatalogResolution.Problem> notes = new ArrayList<>();
        List<ModuleDeclaration> declarations = ModuleCatalog.bodyImports(sandbox, code, notes);
        return resolve(declarations, notes);
    }

    /**
     * Resolves {@code declarations} as {@link ModuleCatalog#resolveForExecution} does, fetching and
     * verifying every module they need.
     *
     * @throws RemoteCatalogException when the server's answer for a needed module cannot be used
     */
    public CatalogResolution resolveForExecution(List<ModuleDeclaration> declarations) {
        return resolve(declarations, List.of());
    }

    private CatalogResolution resolve(
            List<ModuleDeclaration> declarations, List<CatalogResolution.Problem> notes) {
        Listing l = listing;
        Map<String, String> unavailable = new LinkedHashMap<>();
        Map<String, Graph> needed = new TreeMap<>();
        for (ModuleDeclaration d : declarations) {
            ModuleSummary m = l.bySpecifier.get(d.specifier());
            if (m == null || needed.containsKey(m.specifier())) {
                continue;
            }
            Graph g = graph(l, m);
            if (g.unavailable != null) {
                unavailable.put(m.specifier(), g.unavailable);
            } else {
                needed.put(m.specifier(), g);
            }
        }
        return ModuleCatalog.resolve(snapshot(l, needed), declarations, notes, unavailable);
    }

    // ---- the pack list ----

    /** The server's pack list, checked field by field. */
    private record Listing(
            long generation,
            Map<String, ModuleSummary> bySpecifier,
            List<ModuleSummary> summaries,
            List<Diagnostic> diagnostics,
            Set<String> packs) {}

    private Listing readListing() {
        byte[] body = server.packList();
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw malformed("it is not JSON");
        }
        if (root == null || !root.path("modules").isArray()) {
            throw malformed("it has no 'modules' array");
        }
        Map<String, ModuleSummary> bySpecifier = new TreeMap<>();
        Set<String> packs = new TreeSet<>();
        int i = 0;
        for (JsonNode m : root.path("modules")) {
            String where = "modules[" + i++ + "]";
            String specifier = field(m, where, "specifier");
            String pack = field(m, where, "pack");
            if (!PackNames.isValidPackageName(pack)
                    || !(specifier.equals(pack) || specifier.startsWith(pack + "/"))) {
                throw malformed(
                        where + ": '" + specifier + "' is not a module of pack '" + pack + "'");
            }
            String kind = field(m, where, "kind");
            PackManifest.Kind k = null;
            for (PackManifest.Kind c : PackManifest.Kind.values()) {
                if (c.id().equals(kind)) {
                    k = c;
                }
            }
            if (k == null) {
                throw malformed(where + ".kind '" + kind + "' is not js, host, wasm or npm");
            }
            String digest = field(m, where, "graphDigest");
            if (!RemoteServer.GRAPH_DIGEST.matcher(digest).matches()) {
                throw malformed(
                        where + ".graphDigest '" + digest + "' is not sha256: and 64 hex digits");
            }
            if (bySpecifier.containsKey(specifier)) {
                throw malformed(where + ": '" + specifier + "' is listed twice");
            }
            bySpecifier.put(
                    specifier,
                    new ModuleSummary(
                            specifier,
                            pack,
                            field(m, where, "version"),
                            k,
                            ModuleSummary.sanitize(m.path("description").asText("")),
                            digest,
                            m.path("shipped").asBoolean(false)));
            packs.add(pack);
        }
        List<Diagnostic> diagnostics = new ArrayList<>();
        for (JsonNode d : root.path("diagnostics")) {
            String pack = d.path("pack").asText("");
            diagnostics.add(
                    new Diagnostic(
                            "warning".equals(d.path("severity").asText())
                                    ? Diagnostic.Severity.WARNING
                                    : Diagnostic.Severity.ERROR,
                            d.path("code").asText(""),
                            pack,
                            d.path("where").asText(""),
                            d.path("message").asText("")));
            if (PackNames.isValidPackageName(pack)) {
                packs.add(pack);
            }
        }
        return new Listing(
                generations.incrementAndGet(),
                Collections.unmodifiableMap(bySpecifier),
                List.copyOf(bySpecifier.values()),
                List.copyOf(diagnostics),
                Collections.unmodifiableSet(packs));
    }

    private static String field(JsonNode m, String where, String name) {
        JsonNode v = m.get(name);
        if (v == null || !v.isTextual()) {
            throw malformed(where + "." + name + " is missing or not a string");
        }
        return v.asText();
    }

    private static RemoteCatalogException malformed(String what) {
        return new RemoteCatalogException(
                "GET /api/packs: the server's pack list cannot be used: " + what);
    }

    // ---- module graphs ----

    /**
     * A module's graph, fetched and verified: every node by id, the entry's id, and why it cannot
     * run here (its host side is missing), or null.
     */
    private record Graph(
            Map<String, DiscoveredPack.Node> nodes,
            Map<String, String> digests,
            String entryId,
            String unavailable) {}

    private Graph graph(Listing l, ModuleSummary m) {
        Graph g = graphs.get(m.graphDigest());
        if (g != null) {
            return g;
        }
        if (disk != null) {
            List<RemoteServer.Delivered> stored = disk.read(m.graphDigest());
            if (stored != null) {
                try {
                    g = build(l, m, stored);
                } catch (RemoteCatalogException e) {
                    disk.delete(m.graphDigest()); // corrupt or stale: fetch it again
                }
            }
        }
        if (g == null) {
            List<RemoteServer.Delivered> fetched = fetch(m);
            g = build(l, m, fetched);
            if (disk != null && g.unavailable == null) {
                disk.write(m.graphDigest(), fetched);
            }
        }
        if (graphs.size() >= MAX_CACHED_GRAPHS) {
            graphs.clear();
        }
        if (g.unavailable == null) {
            graphs.put(m.graphDigest(), g);
        }
        return g;
    }

    /** The module's delivery and every delivery its dependencies reach, entry first. */
    private List<RemoteServer.Delivered> fetch(ModuleSummary m) {
        List<RemoteServer.Delivered> out = new ArrayList<>();
        RemoteServer.Delivered entry = server.module(m.specifier());
        out.add(entry);
        Set<String> seen = new HashSet<>(Set.of(entry.graphId()));
        ArrayDeque<String> todo = new ArrayDeque<>(entry.dependencyIds());
        while (!todo.isEmpty()) {
            String id = todo.poll();
            if (!seen.add(id)) {
                continue;
            }
            if (out.size() >= MAX_GRAPH_MODULES) {
                throw new RemoteCatalogException(
                        "module '"
                                + m.specifier()
                                + "': its graph has more than "
                                + MAX_GRAPH_MODULES
                                + " modules");
            }
            RemoteServer.Delivered d = server.module(id);
            if (!d.graphId().equals(id)) {
                throw bad(id, "was answered with module '" + d.graphId() + "'");
            }
            out.add(d);
            todo.addAll(d.dependencyIds());
        }
        return out;
    }

    private static RemoteCatalogException bad(String id, String problem) {
        return new RemoteCatalogException("module '" + id + "' from the server " + problem);
    }

    /**
     * Turns deliveries into graph nodes and verifies them: each body against its SHA-256, each
     * file's imports (read with the sandbox's parser and resolved as discovery resolves them)
     * against the dependencies the server stated, and each module's graph digest against the one
     * the server stated; the entry's also against the pack list's.
     */
    private Graph build(Listing l, ModuleSummary m, List<RemoteServer.Delivered> delivered) {
        if (delivered.isEmpty() || delivered.size() > MAX_GRAPH_MODULES) {
            throw bad(
                    m.specifier(),
                    "has no graph or one of more than " + MAX_GRAPH_MODULES + " modules");
        }
        RemoteServer.Delivered entry = delivered.get(0);
        if (!entry.graphDigest().equals(m.graphDigest())) {
            throw bad(
                    m.specifier(),
                    "has graph digest "
                            + entry.graphDigest()
                            + ", but the pack list gives "
                            + m.graphDigest());
        }
        String pack = m.pack();
        Map<String, RemoteServer.Delivered> byId = new LinkedHashMap<>();
        for (RemoteServer.Delivered d : delivered) {
            if (!Digests.sha256Hex(d.source()).equals(d.sha256())) {
                throw bad(d.graphId(), "has a body whose SHA-256 is not the one stated for it");
            }
            if (byId.putIfAbsent(d.graphId(), d) != null) {
                throw bad(d.graphId(), "is in its graph twice");
            }
        }
        Map<String, DiscoveredPack.Node> nodes = new LinkedHashMap<>();
        String unavailable = null;
        for (RemoteServer.Delivered d : delivered) {
            String id = d.graphId();
            DiscoveredPack.Node node;
            if (id.endsWith("::facade")) {
                String spec = id.substring(0, id.length() - "::facade".length());
                ModuleSummary facade = l.bySpecifier.get(spec);
                if (facade == null || !facade.pack().equals(pack) || !d.dependencyIds().isEmpty()) {
                    throw bad(
                            id, "is not a facade of a module of " + pack + " the pack list names");
                }
                if (facade.kind() == PackManifest.Kind.HOST) {
                    if (d.hostModule() == null) {
                        throw bad(id, "is a host facade without an X-Sandbox-Host-Module header");
                    }
                    String refusal = hosts.refusal(d.hostModule(), pack);
                    if (refusal != null && unavailable == null) {
                        unavailable =
                                spec
                                        + " runs on the host as host module '"
                                        + d.hostModule()
                                        + "', which this process cannot run: "
                                        + refusal;
                    }
                    node =
                            new DiscoveredPack.Node(
                                    id,
                                    DiscoveredPack.NodeKind.HOST_FACADE,
                                    pack,
                                    "facade",
                                    d.source(),
                                    d.sha256(),
                                    Map.of(),
                                    spec,
                                    d.hostModule(),
                                    null,
                                    null,
                                    null);
                } else if (facade.kind() == PackManifest.Kind.WASM) {
                    DiscoveredPack.Node mine = localWasm(spec);
                    String why = null;
                    if (mine == null) {
                        why =
                                spec
                                        + " is a WebAssembly module, which runs on the host, and"
                                        + " this process has no local copy of pack "
                                        + pack
                                        + " to run it from; give the remote catalog a local"
                                        + " catalog that serves it";
                    } else if (!local.snapshot()
                            .packs
                            .get(pack)
                            .graphDigests
                            .get(mine.id())
                            .equals(d.graphDigest())) {
                        why =
                                "this process's copy of "
                                        + spec
                                        + " has graph digest "
                                        + local.snapshot()
                                                .packs
                                                .get(pack)
                                                .graphDigests
                                                .get(mine.id())
                                        + ", the server's "
                                        + d.graphDigest()
                                        + "; install the version the server has";
                    }
                    if (why != null) {
                        if (unavailable == null) {
                            unavailable = why;
                        }
                        continue;
                    }
                    node =
                            new DiscoveredPack.Node(
                                    id,
                                    DiscoveredPack.NodeKind.WASM_FACADE,
                                    pack,
                                    "facade",
                                    d.source(),
                                    d.sha256(),
                                    Map.of(),
                                    spec,
                                    null,
                                    mine.wasm(),
                                    mine.wasmFile(),
                                    mine.wasmSha256());
                } else {
                    throw bad(
                            id,
                            "is a facade, but " + spec + " is a " + facade.kind().id() + " module");
                }
            } else {
                if (!id.startsWith(pack + "::")) {
                    throw bad(id, "is not a file of pack " + pack);
                }
                String file = id.substring(pack.length() + 2);
                Map<String, String> imports =
                        d.npm() != null ? Map.of() : imports(l, pack, file, d, byId);
                if (!new HashSet<>(imports.values()).equals(new HashSet<>(d.dependencyIds()))) {
                    throw bad(
                            id,
                            "imports "
                                    + new TreeSet<>(imports.values())
                                    + ", but its X-Sandbox-Module-Dependencies header states "
                                    + new TreeSet<>(d.dependencyIds()));
                }
                node =
                        new DiscoveredPack.Node(
                                id,
                                DiscoveredPack.NodeKind.FILE,
                                pack,
                                file,
                                d.source(),
                                d.sha256(),
                                imports,
                                null,
                                null,
                                null,
                                null,
                                null,
                                d.npm());
            }
            nodes.put(id, node);
        }
        Map<String, String> digests = new LinkedHashMap<>();
        if (unavailable == null) {
            // Dependencies first, so a changed file is named rather than the modules above it.
            for (RemoteServer.Delivered d : reversed(delivered)) {
                String actual = PackDiscovery.graphDigest(nodes, d.graphId());
                if (!actual.equals(d.graphDigest())) {
                    throw bad(
                            d.graphId(),
                            "states graph digest "
                                    + d.graphDigest()
                                    + ", but its graph as delivered has "
                                    + actual);
                }
                digests.put(d.graphId(), actual);
            }
        }
        return new Graph(
                Collections.unmodifiableMap(nodes),
                Collections.unmodifiableMap(digests),
                entry.graphId(),
                unavailable);
    }

    private static <T> List<T> reversed(List<T> list) {
        List<T> out = new ArrayList<>(list);
        Collections.reverse(out);
        return out;
    }

    /**
     * A delivered file's static imports resolved as discovery resolves them: a relative path to a
     * file of its own pack, or a specifier of its own pack (to the delivery in its graph whose
     * graph digest is the one the pack list gives that specifier). Anything else is a bad answer:
     * the server's discovery would have refused the file.
     */
    private Map<String, String> imports(
            Listing l,
            String pack,
            String file,
            RemoteServer.Delivered d,
            Map<String, RemoteServer.Delivered> byId) {
        CodeAnalysis a = sandbox.analyze(d.source());
        if (a.syntaxError() != null) {
            throw bad(d.graphId(), "does not parse: " + a.syntaxError().message());
        }
        if (!a.dynamicImports().isEmpty()) {
            throw bad(d.graphId(), "contains import(), which pack code may not");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (CodeAnalysis.Import imp : a.imports()) {
            String spec = imp.specifier();
            if (out.containsKey(spec)) {
                continue;
            }
            String target = null;
            if (spec.startsWith("./") || spec.startsWith("../")) {
                String resolved = PackImports.relative(file, spec);
                target = resolved == null ? null : pack + "::" + resolved;
            } else if (spec.equals(pack) || spec.startsWith(pack + "/")) {
                ModuleSummary sibling = l.bySpecifier.get(spec);
                if (sibling != null) {
                    for (String dep : d.dependencyIds()) {
                        RemoteServer.Delivered to = byId.get(dep);
                        if (to != null && to.graphDigest().equals(sibling.graphDigest())) {
                            target = dep;
                        }
                    }
                }
            }
            if (target == null || !d.dependencyIds().contains(target)) {
                throw bad(
                        d.graphId(),
                        "imports '"
                                + spec
                                + "', which is not a module of its pack it was delivered with");
            }
            out.put(spec, target);
        }
        return out;
    }

    /** This process's node for the WebAssembly module {@code spec}, from the local catalog. */
    private DiscoveredPack.Node localWasm(String spec) {
        if (local == null) {
            return null;
        }
        CatalogSnapshot s = local.snapshot();
        CatalogSnapshot.Served served = s.specifiers.get(spec);
        if (served == null || served.entry().kind() != PackManifest.Kind.WASM) {
            return null;
        }
        return served.pack().nodes.get(served.entry().nodeId());
    }

    // ---- the snapshot a resolution runs on ----

    /**
     * A snapshot of every pack in the list (so refusals read as a local catalog's), holding the
     * nodes of the graphs fetched for this resolution.
     */
    private CatalogSnapshot snapshot(Listing l, Map<String, Graph> needed) {
        StringBuilder key = new StringBuilder(Long.toString(l.generation));
        needed.forEach((spec, g) -> key.append(' ').append(spec).append('=').append(g.entryId));
        needed.values().forEach(g -> key.append(' ').append(g.digests.get(g.entryId)));
        CatalogSnapshot cached = snapshots.get(key.toString());
        if (cached != null) {
            return cached;
        }
        Map<String, Map<String, DiscoveredPack.Node>> nodesByPack = new TreeMap<>();
        Map<String, Map<String, String>> digestsByPack = new TreeMap<>();
        Map<String, String> entryIds = new TreeMap<>();
        for (Map.Entry<String, Graph> e : needed.entrySet()) {
            String pack = l.bySpecifier.get(e.getKey()).pack();
            nodesByPack
                    .computeIfAbsent(pack, k -> new LinkedHashMap<>())
                    .putAll(e.getValue().nodes);
            digestsByPack
                    .computeIfAbsent(pack, k -> new LinkedHashMap<>())
                    .putAll(e.getValue().digests);
            entryIds.put(e.getKey(), e.getValue().entryId);
        }
        List<DiscoveredPack> packs = new ArrayList<>();
        for (String pack : l.packs) {
            Map<String, DiscoveredPack.Entry> entries = new LinkedHashMap<>();
            String version = "";
            boolean shipped = false;
            for (ModuleSummary m : l.summaries) {
                if (!m.pack().equals(pack)) {
                    continue;
                }
                version = m.version();
                shipped = m.shipped();
                String name =
                        m.specifier().equals(pack)
                                ? "."
                                : m.specifier().substring(pack.length() + 1);
                entries.put(
                        name,
                        new DiscoveredPack.Entry(
                                name,
                                m.specifier(),
                                m.kind(),
                                entryIds.getOrDefault(m.specifier(), m.specifier() + "::remote"),
                                m.description(),
                                m.graphDigest()));
            }
            List<Diagnostic> diagnostics = new ArrayList<>();
            for (Diagnostic d : l.diagnostics) {
                if (d.pack().equals(pack)) {
                    diagnostics.add(d);
                }
            }
            packs.add(
                    new DiscoveredPack(
                            pack,
                            pack,
                            version,
                            "",
                            shipped,
                            diagnostics,
                            entries,
                            Map.of(),
                            nodesByPack.getOrDefault(pack, Map.of()),
                            digestsByPack.getOrDefault(pack, Map.of()),
                            null));
        }
        CatalogSnapshot s = CatalogSnapshot.remote(sandbox, hosts, budgets, packs, trust);
        if (snapshots.size() >= MAX_CACHED_SNAPSHOTS) {
            snapshots.clear();
        }
        snapshots.put(key.toString(), s);
        return s;
    }

    /** How a remote catalog is built; every setting but the server has a default. */
    public static final class Builder {
        private final Sandbox sandbox;
        private final URI server;
        private String token;
        private ModuleCatalog local;
        private Path cacheDirectory;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int maxModuleBytes = DEFAULT_MAX_MODULE_BYTES;
        private HttpClient http;
        private final Set<String> trusted = new TreeSet<>();

        private Builder(Sandbox sandbox, URI server) {
            this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
            Objects.requireNonNull(server, "server");
            if (!("http".equals(server.getScheme()) || "https".equals(server.getScheme()))
                    || server.getHost() == null
                    || server.getRawQuery() != null
                    || server.getRawFragment() != null) {
                throw new InvalidRequestException(
                        "server '"
                                + server
                                + "' must be an http or https URL with a host and no query or"
                                + " fragment");
            }
            this.server = server;
        }

        /** The bearer token sent with every request (none by default). */
        public Builder withToken(String token) {
            Objects.requireNonNull(token, "token");
            if (token.isEmpty() || token.chars().anyMatch(c -> c <= ' ' || c >= 0x7f)) {
                throw new InvalidRequestException(
                        "the token must be non-empty printable ASCII without spaces");
            }
            this.token = token;
            return this;
        }

        /**
         * The host side of host and WebAssembly modules: this catalog's host module registry, its
         * WebAssembly budgets, and the WebAssembly binaries of the packs it serves (a module runs
         * only when its local graph digest is the server's). By default: the built-in host modules
         * and no WebAssembly.
         */
        public Builder withLocalCatalog(ModuleCatalog catalog) {
            this.local = Objects.requireNonNull(catalog, "catalog");
            return this;
        }

        /** A directory to keep fetched module graphs in across processes (none by default). */
        public Builder withCacheDirectory(Path dir) {
            this.cacheDirectory = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** How long one request may take, from 1 ms to {@link #MAX_TIMEOUT}; 30 s by default. */
        public Builder withTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.toMillis() < 1 || timeout.compareTo(MAX_TIMEOUT) > 0) {
                throw new InvalidRequestException(
                        "timeout (" + timeout + ") must be from 1 ms to " + MAX_TIMEOUT);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * The largest module body accepted, from 1 to {@value #MAX_MODULE_BYTES_CEILING} bytes;
         * {@value #DEFAULT_MAX_MODULE_BYTES} by default (a compiled npm bundle is at most 1 MiB).
         */
        public Builder withMaxModuleBytes(int bytes) {
            if (bytes < 1 || bytes > MAX_MODULE_BYTES_CEILING) {
                throw new InvalidRequestException(
                        "maxModuleBytes ("
                                + bytes
                                + ") must be from 1 to "
                                + MAX_MODULE_BYTES_CEILING);
            }
            this.maxModuleBytes = bytes;
            return this;
        }

        /** The HTTP client to use (by default one of its own, HTTP/1.1). */
        public Builder withHttpClient(HttpClient client) {
            this.http = Objects.requireNonNull(client, "client");
            return this;
        }

        /**
         * Trusts the pack {@code packName}: its modules see every capability the run grants. The
         * shipped packs are trusted; every other pack is served with the guard.
         *
         * @throws InvalidRequestException when the name is not a valid package name
         */
        public Builder trust(String packName) {
            if (packName == null || !PackNames.isValidPackageName(packName)) {
                throw new InvalidRequestException("'" + packName + "' is not a valid package name");
            }
            trusted.add(packName);
            return this;
        }

        /**
         * Reads the server's pack list.
         *
         * @throws RemoteCatalogException when it cannot be read or used
         */
        public RemoteCatalog build() {
            return new RemoteCatalog(this);
        }
    }
}
