package dev.sandjar.packs.compile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.Limits;
import dev.sandjar.host.ModuleResolution;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.Diagnostic;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Sandjar's npm compiler (docs/packs.md, "The npm compiler"): one npm package, installed by the npm
 * client with its integrity checked, into one ES module a pack can serve. In order:
 *
 * <ol>
 *   <li>bundle with esbuild ({@code format: esm}, {@code platform: neutral}, the pinned conditions
 *       and main fields, no externals, no minification); what cannot be resolved is refused, a Node
 *       built-in by name ({@code npm-module-requires-builtin});
 *   <li>cap the bundle's size ({@link #MAX_BUNDLE_BYTES});
 *   <li>scan it with the sandbox's own parser: no imports left, no {@code require()}, no {@code
 *       import()}, no free reference to a global the sandbox does not have unless the code
 *       feature-detects it with {@code typeof};
 *   <li>the admission probe: import the bundle in the real engine, in a run with no capabilities,
 *       the default limits and a {@link #PROBE_DEADLINE} deadline.
 * </ol>
 *
 * Each way to fall short is a named {@link Diagnostic}. Admitted bundles are cached by content
 * ({@link Cache}). Not thread-safe; one compiler per build or command.
 */
public final class NpmCompiler {
    /** The compiler's contract version: in every cache key and every compiled module's digest. */
    public static final String VERSION = "sandjar-npm/1";

    /** The largest bundle admitted. */
    public static final int MAX_BUNDLE_BYTES = 1 << 20;

    /** How long the admission probe lets the bundle's top level run. */
    public static final Duration PROBE_DEADLINE = Duration.ofSeconds(5);

    /**
     * esbuild's custom conditions; it adds {@code import} (or {@code require}) and {@code default}
     * itself, so the effective set is {@code import, module, default}.
     */
    static final List<String> CONDITIONS = List.of("module");

    static final List<String> MAIN_FIELDS = List.of("module", "main");

    /**
     * Node's name for the global object is read as the standard one, as browser bundlers do: a
     * library that finds its global object through {@code global} (lodash) would otherwise fall
     * back to {@code Function('return this')()}, which the sandbox refuses.
     */
    static final Map<String, String> DEFINE = Map.of("global", "globalThis");

    /** Node's built-in modules: an import of one is refused by name. */
    static final Set<String> NODE_BUILTINS =
            Set.of(
                    "assert",
                    "async_hooks",
                    "buffer",
                    "child_process",
                    "cluster",
                    "console",
                    "constants",
                    "crypto",
                    "dgram",
                    "diagnostics_channel",
                    "dns",
                    "domain",
                    "events",
                    "fs",
                    "http",
                    "http2",
                    "https",
                    "inspector",
                    "module",
                    "net",
                    "os",
                    "path",
                    "perf_hooks",
                    "process",
                    "punycode",
                    "querystring",
                    "readline",
                    "repl",
                    "stream",
                    "string_decoder",
                    "sys",
                    "timers",
                    "tls",
                    "trace_events",
                    "tty",
                    "url",
                    "util",
                    "v8",
                    "vm",
                    "wasi",
                    "worker_threads",
                    "zlib");

    /**
     * Globals an ordinary run has beyond the bare realm: the standard bridges that stay inside the
     * run (docs/bridges.md). The probe's capability-free run lacks them, so a module that needs one
     * at its top level still fails the probe.
     */
    static final Set<String> RUN_GLOBALS =
            Set.of("console", "crypto", "TextEncoder", "TextDecoder");

    /**
     * Globals only Node has: a module that uses one without a {@code typeof} check is written for
     * Node, and is refused.
     */
    static final Set<String> NODE_GLOBALS =
            Set.of(
                    "process",
                    "Buffer",
                    "require",
                    "module",
                    "exports",
                    "__dirname",
                    "__filename",
                    "global",
                    "setImmediate",
                    "clearImmediate");

    /** One npm module to compile. */
    public record Request(
            String pack,
            String npmPackage,
            String version,
            String subpath,
            List<String> conditions) {
        public Request {
            Objects.requireNonNull(pack, "pack");
            Objects.requireNonNull(npmPackage, "npmPackage");
            Objects.requireNonNull(version, "version");
            conditions = List.copyOf(conditions);
        }

        /** What esbuild bundles: the package, or one of its subpath exports. */
        public String entry() {
            return subpath == null ? npmPackage : npmPackage + "/" + subpath;
        }
    }

    /**
     * What compiling one request gave: the bundle when admitted (null when refused), its SHA-256,
     * the lockfile integrity of the package, the compiler descriptor that joins the graph digest,
     * and every diagnostic (warnings too).
     */
    public record Outcome(
            Request request,
            String bundle,
            String bundleSha256,
            String integrity,
            String compiler,
            List<Diagnostic> diagnostics,
            boolean cached) {
        public Outcome {
            diagnostics = List.copyOf(diagnostics);
        }

        public boolean admitted() {
            return bundle != null;
        }
    }

    private final Sandbox sandbox;
    private final Cache cache;
    private final PrintStream log;
    private final Duration warmUp;
    private Set<String> realmGlobals;

    /**
     * {@code sandbox} parses and probes (its default limits apply to the probe); {@code cacheRoot}
     * is where admitted bundles are kept, or null for none; {@code log} gets one line per step.
     */
    public NpmCompiler(Sandbox sandbox, Path cacheRoot, PrintStream log) {
        this(sandbox, cacheRoot, log, WARM_UP);
    }

    /** As above, with the warm-up before a timed-out probe's second try (tests shorten it). */
    NpmCompiler(Sandbox sandbox, Path cacheRoot, PrintStream log, Duration warmUp) {
        this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
        this.cache = new Cache(cacheRoot);
        this.log = Objects.requireNonNull(log, "log");
        this.warmUp = Objects.requireNonNull(warmUp, "warmUp");
    }

    /** The default cache directory: {@code ~/.cache/sandjar/npm} (or under XDG_CACHE_HOME). */
    public static Path defaultCacheRoot() {
        return Cache.defaultRoot();
    }

    /**
     * Fetches {@code name@version} with the npm client into {@code workDir} (a private directory;
     * {@code --ignore-scripts}, integrity from the lockfile) and compiles it.
     */
    public Outcome compileFromRegistry(String name, String version, Path workDir)
            throws CompileException {
        NpmTree tree = NpmTree.install(workDir, name, version);
        return compile(tree, List.of(new Request(name, name, version, null, List.of()))).get(0);
    }

    /**
     * Writes an admitted outcome as a pack of its own, {@code outRoot/<package name>}, whose one
     * module is imported by the package's name. Returns the pack's directory.
     */
    public static Path writePack(Path outRoot, Outcome o) throws IOException {
        if (!o.admitted()) {
            throw new IllegalArgumentException(o.request().entry() + " was not admitted");
        }
        return PackOutput.writeSingle(outRoot, o);
    }

    /** Deletes a directory tree, ignoring failures (a temporary directory left behind). */
    public static void deleteQuietly(Path dir) {
        try {
            Cache.deleteTree(dir);
        } catch (IOException ignored) {
            // left behind
        }
    }

    /** The options that decide a bundle, as JSON: part of every cache key and descriptor. */
    static ObjectNode options(Request r) {
        ObjectNode o = NpmTree.JSON.createObjectNode();
        o.put("format", "esm");
        o.put("platform", "neutral");
        ArrayNode c = o.putArray("conditions");
        CONDITIONS.forEach(c::add);
        r.conditions().forEach(c::add);
        ArrayNode m = o.putArray("mainFields");
        MAIN_FIELDS.forEach(m::add);
        ObjectNode d = o.putObject("define");
        new java.util.TreeMap<>(DEFINE).forEach(d::put);
        o.put("minify", false);
        o.put("maxBundleBytes", MAX_BUNDLE_BYTES);
        o.put("probeDeadlineMs", PROBE_DEADLINE.toMillis());
        return o;
    }

    /** The compiler descriptor a compiled module records and its graph digest includes. */
    static String descriptor(Request r) {
        return VERSION
                + " esbuild/"
                + NpmTree.ESBUILD_VERSION
                + " options:sha256:"
                + Cache.sha256Hex(options(r).toString());
    }

    /** The cache key of {@code r} in {@code tree}. */
    static String key(NpmTree tree, Request r) {
        StringBuilder b = new StringBuilder();
        b.append(descriptor(r)).append('\n');
        b.append("entry ").append(r.entry()).append('\n');
        b.append("esbuild ").append(String.join(";", tree.closure("esbuild"))).append('\n');
        for (String line : tree.closure(r.npmPackage())) {
            b.append(line).append('\n');
        }
        return Cache.sha256Hex(b.toString());
    }

    /** The cached outcome of {@code r} in {@code tree}, or null. */
    Outcome cached(NpmTree tree, Request r) {
        Cache.Entry e = cache.get(key(tree, r));
        if (e == null) {
            return null;
        }
        List<Diagnostic> warnings = new ArrayList<>();
        for (JsonNode w : e.meta().path("warnings")) {
            warnings.add(
                    new Diagnostic(
                            Diagnostic.Severity.WARNING,
                            w.path("code").asText(),
                            r.pack(),
                            w.path("where").asText(),
                            w.path("message").asText()));
        }
        return new Outcome(
                r,
                e.bundle(),
                e.meta().path("bundleSha256").asText(),
                e.meta().path("integrity").asText(),
                descriptor(r),
                warnings,
                true);
    }

    /**
     * Compiles every request against the installed {@code tree}: cached ones from the cache, the
     * rest bundled in one esbuild process, then each scanned and probed.
     */
    List<Outcome> compile(NpmTree tree, List<Request> requests) throws CompileException {
        Map<Integer, Outcome> done = new LinkedHashMap<>();
        List<Integer> todo = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            Request r = requests.get(i);
            String installed = tree.installedVersion(r.npmPackage());
            if (installed == null || !installed.equals(r.version())) {
                done.put(
                        i,
                        refused(
                                r,
                                tree,
                                List.of(
                                        error(
                                                r,
                                                "npm-module-unresolved",
                                                "",
                                                r.npmPackage()
                                                        + "@"
                                                        + r.version()
                                                        + " is not installed"
                                                        + (installed == null
                                                                ? ""
                                                                : " (" + installed + " is)")))));
                continue;
            }
            Outcome hit = cached(tree, r);
            if (hit != null) {
                log.println("cached  " + r.pack() + " (" + r.entry() + "@" + r.version() + ")");
                done.put(i, hit);
            } else {
                todo.add(i);
            }
        }
        if (!todo.isEmpty()) {
            List<Request> misses = todo.stream().map(requests::get).toList();
            List<Bundled> bundled = bundle(tree, misses);
            for (int k = 0; k < todo.size(); k++) {
                Request r = misses.get(k);
                Outcome o = admit(tree, r, bundled.get(k));
                log.println(
                        (o.admitted() ? "admitted " : "refused ")
                                + r.pack()
                                + " ("
                                + r.entry()
                                + "@"
                                + r.version()
                                + (o.admitted() ? ", " + o.bundle().length() + " chars" : "")
                                + ")");
                done.put(todo.get(k), o);
            }
        }
        List<Outcome> out = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            out.add(done.get(i));
        }
        return out;
    }

    /** What esbuild gave for one request, and the analysis of its bundle (null when too large). */
    record Bundled(String source, List<Diagnostic> diagnostics, JsonNode analysis) {}

    private List<Bundled> bundle(NpmTree tree, List<Request> requests) throws CompileException {
        Path work;
        try {
            work = Files.createTempDirectory("sandjar-bundle");
        } catch (IOException e) {
            throw new CompileException("cannot create a temporary directory: " + e.getMessage());
        }
        try {
            Path script = work.resolve("bundle.mjs");
            try (InputStream in = NpmCompiler.class.getResourceAsStream("bundle.mjs")) {
                if (in == null) {
                    throw new CompileException("bundle.mjs is missing from the sandjar-packs jar");
                }
                Files.write(script, in.readAllBytes());
            }
            ObjectNode spec = NpmTree.JSON.createObjectNode();
            spec.put("toolDir", tree.toolDir.toAbsolutePath().toString());
            spec.put("projectDir", tree.projectDir.toAbsolutePath().toString());
            ObjectNode opts = spec.putObject("options");
            ArrayNode c = opts.putArray("conditions");
            CONDITIONS.forEach(c::add);
            ArrayNode m = opts.putArray("mainFields");
            MAIN_FIELDS.forEach(m::add);
            ObjectNode define = opts.putObject("define");
            DEFINE.forEach(define::put);
            ArrayNode jobs = spec.putArray("jobs");
            for (int i = 0; i < requests.size(); i++) {
                Request r = requests.get(i);
                ObjectNode j = jobs.addObject();
                j.put("id", i);
                j.put("entry", r.entry());
                j.put("out", work.resolve("out").resolve(i + ".js").toString());
                ArrayNode jc = j.putArray("conditions");
                r.conditions().forEach(jc::add);
            }
            ObjectNode analysis = spec.putObject("analysis");
            analysis.put("acorn", SandboxAnalysis.extract("acorn.js", work).toString());
            analysis.put("analyzer", SandboxAnalysis.extract("analyzer.js", work).toString());
            ArrayNode wrappers = analysis.putArray("wrappers");
            SandboxAnalysis.WRAPPERS.forEach(wrappers::add);
            analysis.put("maxChars", MAX_BUNDLE_BYTES);
            Path jobsFile = work.resolve("jobs.json");
            Files.writeString(jobsFile, spec.toString());
            String stdout =
                    NpmTree.run(
                            tree.projectDir,
                            List.of("node", script.toString(), jobsFile.toString()),
                            "bundling with esbuild");
            JsonNode results = NpmTree.JSON.readTree(stdout).path("results");
            List<Bundled> out = new ArrayList<>();
            for (int i = 0; i < requests.size(); i++) {
                Request r = requests.get(i);
                JsonNode res = results.get(i);
                List<Diagnostic> diags = new ArrayList<>();
                for (JsonNode e : res.path("errors")) {
                    diags.add(bundleError(r, e));
                }
                for (JsonNode w : res.path("warnings")) {
                    diags.add(
                            new Diagnostic(
                                    Diagnostic.Severity.WARNING,
                                    "npm-module-bundle-warning",
                                    r.pack(),
                                    where(w),
                                    w.path("text").asText()));
                }
                String source = null;
                if (res.path("ok").asBoolean()) {
                    source =
                            Files.readString(
                                    work.resolve("out").resolve(i + ".js"), StandardCharsets.UTF_8);
                }
                JsonNode a = res.get("analysis");
                out.add(new Bundled(source, diags, a == null || a.isNull() ? null : a));
            }
            return out;
        } catch (IOException e) {
            throw new CompileException("bundling failed: " + e.getMessage());
        } finally {
            try {
                Cache.deleteTree(work);
            } catch (IOException ignored) {
                // a temporary directory left behind
            }
        }
    }

    private static String where(JsonNode m) {
        String file = m.path("file").asText("");
        int line = m.path("line").asInt(0);
        return file.isEmpty()
                ? ""
                : line > 0 ? file + ":" + line + ":" + m.path("column").asInt() : file;
    }

    /** esbuild's error as a named diagnostic: an unresolvable Node built-in names the module. */
    private static Diagnostic bundleError(Request r, JsonNode e) {
        String text = e.path("text").asText();
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("Could not resolve \"([^\"]+)\"").matcher(text);
        if (m.find()) {
            String spec = m.group(1);
            String builtin = builtin(spec);
            if (builtin != null) {
                return error(
                        r,
                        "npm-module-requires-builtin",
                        where(e),
                        "needs the Node built-in '"
                                + builtin
                                + "', which the sandbox does not have");
            }
            return error(
                    r,
                    "npm-module-unresolved",
                    where(e),
                    "imports '" + spec + "', which is not installed or not resolvable");
        }
        return error(r, "npm-module-bundle-failed", where(e), text);
    }

    /** The Node built-in {@code spec} names ({@code fs} for {@code node:fs/promises}), or null. */
    static String builtin(String spec) {
        String s = spec.startsWith("node:") ? spec.substring(5) : spec;
        String head = s.contains("/") ? s.substring(0, s.indexOf('/')) : s;
        return spec.startsWith("node:") || NODE_BUILTINS.contains(head) ? head : null;
    }

    private Outcome admit(NpmTree tree, Request r, Bundled b) throws CompileException {
        List<Diagnostic> diags = new ArrayList<>(b.diagnostics());
        if (b.source() == null) {
            return refused(r, tree, diags);
        }
        byte[] bytes = b.source().getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_BUNDLE_BYTES) {
            diags.add(
                    error(
                            r,
                            "npm-module-too-large",
                            "",
                            "bundles to "
                                    + bytes.length
                                    + " bytes; at most "
                                    + MAX_BUNDLE_BYTES
                                    + " (1 MiB)"));
            return refused(r, tree, diags);
        }
        scan(r, b.analysis(), diags);
        if (diags.stream().anyMatch(Diagnostic::isError)) {
            return refused(r, tree, diags);
        }
        probe(r, b.source(), diags);
        if (diags.stream().anyMatch(Diagnostic::isError)) {
            return refused(r, tree, diags);
        }
        String sha = Cache.sha256Hex(bytes);
        String integrity = tree.integrity(r.npmPackage());
        ObjectNode meta = NpmTree.JSON.createObjectNode();
        meta.put("package", r.npmPackage());
        meta.put("version", r.version());
        meta.put("entry", r.entry());
        meta.put("integrity", integrity);
        meta.put("compiler", descriptor(r));
        meta.put("bundleSha256", sha);
        ArrayNode w = meta.putArray("warnings");
        for (Diagnostic d : diags) {
            ObjectNode o = w.addObject();
            o.put("code", d.code());
            o.put("where", d.where());
            o.put("message", d.message());
        }
        try {
            cache.put(key(tree, r), b.source(), meta);
        } catch (IOException e) {
            log.println("warning: cannot write the npm cache: " + e.getMessage());
        }
        return new Outcome(r, b.source(), sha, integrity, descriptor(r), diags, false);
    }

    private static Outcome refused(Request r, NpmTree tree, List<Diagnostic> diags) {
        return new Outcome(r, null, null, null, descriptor(r), diags, false);
    }

    private static Diagnostic error(Request r, String code, String where, String message) {
        return new Diagnostic(Diagnostic.Severity.ERROR, code, r.pack(), where, message);
    }

    private static Diagnostic warning(Request r, String code, String where, String message) {
        return new Diagnostic(Diagnostic.Severity.WARNING, code, r.pack(), where, message);
    }

    /**
     * The scan: the bundle's imports, calls and free references, as the sandbox's own analysis
     * ({@link SandboxAnalysis}) read them.
     */
    private void scan(Request r, JsonNode a, List<Diagnostic> diags) {
        if (a == null || a.has("failed")) {
            diags.add(
                    error(
                            r,
                            "npm-module-scan-rejected",
                            "bundle",
                            "the sandbox's analysis failed: "
                                    + (a == null ? "no result" : a.path("failed").asText())));
            return;
        }
        JsonNode syntax = a.get("syntaxError");
        if (syntax != null && !syntax.isNull()) {
            diags.add(
                    error(
                            r,
                            "npm-module-scan-rejected",
                            at(syntax.path("line").asInt(), syntax.path("column").asInt()),
                            "the bundle does not parse: " + syntax.path("message").asText()));
            return;
        }
        for (JsonNode imp : a.path("imports")) {
            String specifier = imp.path("specifier").asText();
            String builtin = builtin(specifier);
            String where = at(imp.path("line").asInt(), imp.path("column").asInt());
            diags.add(
                    builtin != null
                            ? error(
                                    r,
                                    "npm-module-requires-builtin",
                                    where,
                                    "imports the Node built-in '"
                                            + builtin
                                            + "', which the sandbox does not have")
                            : error(
                                    r,
                                    "npm-module-unresolved",
                                    where,
                                    "still imports '"
                                            + specifier
                                            + "'; a compiled module imports nothing"));
        }
        for (JsonNode p : a.path("dynamicImports")) {
            diags.add(
                    error(
                            r,
                            "npm-module-dynamic-import",
                            at(p.path("line").asInt(), p.path("column").asInt()),
                            "calls import(), which the sandbox always refuses"));
        }
        for (JsonNode p : a.path("requires")) {
            diags.add(
                    error(
                            r,
                            "npm-module-require",
                            at(p.path("line").asInt(), p.path("column").asInt()),
                            "calls require(); the sandbox has no CommonJS loader"));
        }
        JsonNode references = a.get("references");
        if (references == null || references.isNull()) {
            diags.add(
                    error(
                            r,
                            "npm-module-scan-rejected",
                            "bundle",
                            "nests too deeply for the scope walk; its references cannot be"
                                    + " checked"));
            return;
        }
        List<CodeAnalysis.Reference> refsIn = new ArrayList<>();
        for (JsonNode ref : references) {
            refsIn.add(
                    new CodeAnalysis.Reference(
                            ref.path("name").asText(),
                            ref.path("line").asInt(),
                            ref.path("column").asInt(),
                            null,
                            false,
                            null,
                            false,
                            ref.path("reachable").asBoolean(true),
                            ref.path("typeof").asBoolean(false)));
        }
        Set<String> have = realmGlobals();
        Map<String, List<CodeAnalysis.Reference>> byName = new LinkedHashMap<>();
        for (CodeAnalysis.Reference ref : refsIn) {
            if (!have.contains(ref.name())) {
                byName.computeIfAbsent(ref.name(), k -> new ArrayList<>()).add(ref);
            }
        }
        for (var e : byName.entrySet()) {
            List<CodeAnalysis.Reference> refs = e.getValue();
            boolean detected = refs.stream().anyMatch(CodeAnalysis.Reference::typeofOperand);
            CodeAnalysis.Reference first =
                    refs.stream().filter(x -> !x.typeofOperand()).findFirst().orElse(refs.get(0));
            String uses = refs.size() == 1 ? "1 use" : refs.size() + " uses";
            String where = at(first.line(), first.column());
            if (detected) {
                diags.add(
                        warning(
                                r,
                                "npm-module-feature-detects",
                                where,
                                "uses the global '"
                                        + e.getKey()
                                        + "' ("
                                        + uses
                                        + ") after a typeof check; the sandbox does not have it"));
            } else if (refs.stream().noneMatch(CodeAnalysis.Reference::reachable)) {
                continue; // only in code after a return or throw
            } else if (NODE_GLOBALS.contains(e.getKey())) {
                diags.add(
                        error(
                                r,
                                "npm-module-forbidden-global",
                                where,
                                "uses the Node global '"
                                        + e.getKey()
                                        + "' ("
                                        + uses
                                        + ") without a typeof check; the sandbox does not have"
                                        + " it"));
            } else {
                // A standard or browser global the sandbox lacks (Intl, atob, setTimeout, ...):
                // the probe ran the top level without it, so only the calls that reach it fail.
                diags.add(
                        warning(
                                r,
                                "npm-module-missing-global",
                                where,
                                "uses the global '"
                                        + e.getKey()
                                        + "' ("
                                        + uses
                                        + "), which the sandbox does not have; the import works"
                                        + " (the probe ran it) but a call that reaches it throws"
                                        + " ReferenceError"));
            }
        }
    }

    private static String at(int line, int column) {
        return line > 0 ? "bundle:" + line + ":" + column : "bundle";
    }

    /** The global names of a capability-free run's realm, read from the engine once. */
    private Set<String> realmGlobals() {
        if (realmGlobals == null) {
            RunResult r =
                    sandbox.run(
                            RunRequest.builder(
                                            "const names = new Set();\n"
                                                    + "for (let o = globalThis; o; o ="
                                                    + " Object.getPrototypeOf(o))\n"
                                                    + "  Object.getOwnPropertyNames(o).forEach((n)"
                                                    + " => names.add(n));\n"
                                                    + "return [...names];")
                                    .build());
            Set<String> names = new TreeSet<>();
            try {
                NpmTree.JSON.readTree(r.valueJson()).forEach(n -> names.add(n.asText()));
            } catch (IOException e) {
                throw new IllegalStateException("cannot read the realm's globals", e);
            }
            names.add("globalThis");
            names.addAll(RUN_GLOBALS);
            realmGlobals = Set.copyOf(names);
        }
        return realmGlobals;
    }

    /**
     * The admission probe: the bundle imported in a capability-free run under a short deadline. A
     * JVM that has not compiled the engine yet runs it several times slower, so a probe that runs
     * out of time is tried once more after {@link #WARM_UP} (once per compiler), and only a second
     * timeout refuses the bundle.
     */
    private void probe(Request r, String source, List<Diagnostic> diags) {
        RunResult result = probeOnce(r, source);
        if (!result.isOk() && result.error().kind() == RunError.Kind.TIMEOUT && !warmedUp) {
            log.println("warming the engine up before probing " + r.pack() + " again");
            sandbox.warmUp(warmUp);
            warmedUp = true;
            result = probeOnce(r, source);
        }
        if (!result.isOk()) {
            RunError e = result.error();
            String why =
                    switch (e.kind()) {
                        case TIMEOUT ->
                                "its top level did not finish within "
                                        + PROBE_DEADLINE.toSeconds()
                                        + " s";
                        case MEMORY -> "its top level ran out of the guest heap";
                        case STACK -> "its top level overflowed the guest stack";
                        default -> "importing it failed: " + e.name() + ": " + e.message();
                    };
            diags.add(error(r, "npm-module-probe-failed", "", why));
        }
    }

    /** How long the engine is warmed up before a timed-out probe is tried again. */
    static final Duration WARM_UP = Duration.ofSeconds(20);

    private boolean warmedUp;

    private RunResult probeOnce(Request r, String source) {
        String specifier = r.entry();
        String id = "npm:" + r.entry() + "@" + r.version();
        ModuleResolution only =
                (importer, spec) -> {
                    if (importer.equals(id) || !spec.equals(specifier)) {
                        throw new ModuleResolution.Refused(
                                "the admission probe serves only the bundle");
                    }
                    return new ModuleResolution.Module(id, source);
                };
        String quoted = NpmTree.JSON.getNodeFactory().textNode(specifier).toString();
        return sandbox.run(
                RunRequest.builder(
                                "import * as probed from "
                                        + quoted
                                        + ";\nreturn Object.keys(probed).length;")
                        .limits(Limits.builder().timeout(PROBE_DEADLINE).build())
                        .modules(only)
                        .build());
    }
}
