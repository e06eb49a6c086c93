package dev.sandjar.server.cli;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.fetch.FetchConfig;
import dev.sandjar.bridges.secrets.SecretStore;
import dev.sandjar.bridges.video.VideoConfig;
import dev.sandjar.bridges.workspace.FilesystemAccess;
import dev.sandjar.bridges.workspace.WorkspaceBridge;
import dev.sandjar.bridges.workspace.WorkspaceLimits;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Limits;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxRun;
import dev.sandjar.host.ValueJson;
import dev.sandjar.packs.CatalogResolution;
import dev.sandjar.packs.Diagnostic;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.packs.ModuleSummary;
import dev.sandjar.packs.PackDocs;
import dev.sandjar.packs.Trust;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;

/**
 * The command line.
 *
 * <p>{@code sandjar run FILE.js [options]}: runs FILE through {@link Sandbox#run} with the default
 * capabilities and those the flags grant, prints the result as JSON on stdout (transport markers
 * for what JSON cannot hold) and exits 0; on failure prints {@code error: <kind>: <name>:
 * <message>} on stderr and exits 2. Console lines and progress go to stderr as they happen.
 *
 * <p>{@code --packs DIR} adds a search path whose packs are untrusted (their modules do not see the
 * run's fetch, workspace, secrets or progress); {@code --trust-packs DIR} one whose packs see every
 * capability the run has (docs/packs.md, "Trust").
 *
 * <p>{@code sandjar serve [options]}: the HTTP server ({@link ServeCommand}, docs/server.md).
 *
 * <p>{@code sandjar act} and {@code sandjar mcp}: an agent action, and Sandjar as an MCP server
 * ({@link ActCommand}, {@link McpCommand}, docs/agents.md).
 *
 * <p>{@code sandjar packs list|validate|docs NAME [--packs DIR]...}: the pack catalog's summaries,
 * diagnostics (exit 2 when any is an error) and a pack's SKILL.md. Bad usage exits 1.
 */
public final class SandjarCli {
    // The flags' bounds are the sandbox's ceilings (Limits, their one home).
    private static final long MAX_TIMEOUT_MS = Limits.CEILINGS.timeout().toMillis();
    private static final long MAX_MEMORY_MB = Limits.CEILINGS.heapBytes() >> 20;

    static final String USAGE =
            String.join(
                    "\n",
                    "usage: sandjar run FILE.js [options]",
                    "       sandjar packs list|validate [--packs DIR | --trust-packs DIR]...",
                    "       sandjar packs docs NAME [--packs DIR | --trust-packs DIR]...",
                    PacksCompileCommand.USAGE,
                    ServeCommand.USAGE,
                    NodeCommand.USAGE,
                    ValidateCommand.USAGE,
                    ActCommand.USAGE,
                    CallCommand.USAGE,
                    McpCommand.USAGE,
                    "run options (node takes them too, but --global):",
                    "  --timeout-ms N           guest CPU budget in ms (default "
                            + Limits.DEFAULTS.timeout().toMillis()
                            + ", 1.."
                            + MAX_TIMEOUT_MS
                            + ")",
                    "  --memory-mb N            guest heap limit in MiB (default "
                            + (Limits.DEFAULTS.heapBytes() >> 20)
                            + ", 1.."
                            + MAX_MEMORY_MB
                            + ")",
                    "  --global NAME=JSON       define a global from JSON (repeatable; transport"
                            + " markers allowed)",
                    "  --stats                  print the run's statistics on stderr",
                    "  --packs DIR              add a pack search path (shipped packs are always"
                            + " there); its packs' modules do not see fetch, workspace or secrets",
                    "  --trust-packs DIR        add a pack search path whose packs see every"
                            + " capability the run has",
                    "  --fetch                  grant fetch (the SSRF guard stays on)",
                    "  --allow-private-network  let fetch reach loopback and private addresses",
                    "  --workspace DIR          grant workspace over DIR",
                    "  --host-filesystem        lift workspace containment (paths are host paths)",
                    "  --video                  grant video (runs the host's ffmpeg and ffprobe)",
                    "  --secret NAME=VALUE      grant a secret (repeatable)",
                    "  --secrets-env PREFIX     grant the environment's PREFIX<NAME> variables as"
                            + " secrets",
                    "  --secret-scope A,B       the secret names the run may read",
                    "  --withhold NAME,...      withhold default capabilities ("
                            + String.join(", ", Capabilities.DEFAULTS)
                            + ")");

    private SandjarCli() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        try {
            if (args.length > 0 && args[0].equals("serve")) {
                return ServeCommand.run(args, out, err);
            }
            if (args.length > 0 && args[0].equals("node")) {
                return NodeCommand.run(args, out, err);
            }
            if (args.length > 0 && args[0].equals("validate")) {
                return ValidateCommand.run(args, out, err);
            }
            if (args.length > 0 && args[0].equals("act")) {
                return ActCommand.run(args, out, err);
            }
            if (args.length > 0 && args[0].equals("call")) {
                return CallCommand.run(args, out, err);
            }
            if (args.length > 0 && args[0].equals("mcp")) {
                return McpCommand.run(args, System.in, out, err);
            }
            if (args.length > 1 && args[0].equals("packs") && args[1].equals("compile")) {
                return PacksCompileCommand.run(args, out, err);
            }
            if (args.length > 0 && args[0].equals("packs")) {
                return packs(PacksOptions.parse(args), out, err);
            }
            Options options = Options.parse(args);
            return run(options, out, err);
        } catch (IllegalArgumentException e) {
            err.println("error: usage: " + e.getMessage());
            err.println(USAGE);
            return 1;
        }
    }

    private static int run(Options options, PrintStream out, PrintStream err) {
        return run(options, out, err, null, List.of());
    }

    /**
     * A run of the file, or with {@code function} a call of that export with {@code args}; prints
     * the result as JSON on stdout (exit 0) or the error on stderr (exit 2).
     */
    static int run(
            Options options, PrintStream out, PrintStream err, String function, List<Object> args) {
        String code;
        try {
            code = Files.readString(options.file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            err.println("error: usage: cannot read " + options.file + ": " + e.getMessage());
            return 1;
        }
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build();
                Fetch fetch = options.fetch ? Fetch.create(fetchConfig(options)) : null) {
            Capabilities.Builder caps =
                    capabilities(options, fetch)
                            .progress(
                                    p ->
                                            err.println(
                                                    "[progress] "
                                                            + formatPercent(p.percent())
                                                            + (p.message() == null
                                                                    ? ""
                                                                    : " " + p.message())));
            RunRequest.Builder request = RunRequest.builder(code);
            Optional<CatalogResolution> modules = resolveImports(sandbox, options.packs, code, err);
            if (modules.isPresent()) {
                if (!modules.get().isOk()) {
                    return 2;
                }
                request.modules(modules.get().moduleResolution());
            }
            request.globals(options.globals);
            request.filename(options.file.getFileName().toString())
                    .limits(options.limits())
                    .bridges(caps.build())
                    .onLog(line -> err.println(format(line)));
            RunRequest built = request.build();
            SandboxRun started =
                    function == null
                            ? sandbox.submit(built)
                            : sandbox.submitCall(built, function, args);
            return execute(started, options.stats, out, err);
        } catch (IllegalArgumentException | InvalidRequestException e) {
            err.println("error: usage: " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println("error: internal: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return 2;
        }
    }

    /** The capabilities the options grant (progress left to the caller). */
    static Capabilities.Builder capabilities(Options options, Fetch fetch) {
        Capabilities.Builder caps =
                Capabilities.builder().withhold(options.withheld.toArray(String[]::new));
        if (fetch != null) {
            caps.fetch(fetch);
        }
        if (options.video) {
            caps.video(VideoConfig.defaults());
        }
        if (options.workspace != null) {
            caps.workspace(
                    WorkspaceBridge.create(
                            options.workspace,
                            WorkspaceLimits.defaults(),
                            options.hostFilesystem
                                    ? FilesystemAccess.HOST
                                    : FilesystemAccess.CONTAINED));
        }
        Optional<SecretStore> secrets = options.secretStore();
        if (secrets.isPresent()) {
            if (options.secretScope == null) {
                caps.secrets(secrets.get());
            } else {
                caps.secrets(secrets.get(), options.secretScope);
            }
        }
        return caps;
    }

    static FetchConfig fetchConfig(Options options) {
        return FetchConfig.builder().withAllowPrivateNetwork(options.allowPrivateNetwork).build();
    }

    /**
     * The code's imports resolved against the catalog, its warnings and errors printed on {@code
     * err}; empty when the code cannot import anything (then no catalog is read).
     */
    static Optional<CatalogResolution> resolveImports(
            Sandbox sandbox, List<PackPath> packs, String code, PrintStream err) {
        if (!code.contains("import")) {
            return Optional.empty();
        }
        CatalogResolution modules = catalog(sandbox, packs).resolveBody(code);
        for (CatalogResolution.Problem w : modules.warnings()) {
            err.println("warning: " + w);
        }
        for (CatalogResolution.Problem e : modules.errors()) {
            err.println("error: import: " + e);
        }
        return Optional.of(modules);
    }

    /** Waits for {@code result}; Ctrl-C (the JVM shutting down) meanwhile calls {@code cancel}. */
    static <T> T awaitCancellingOnExit(java.util.concurrent.Future<T> result, Runnable cancel)
            throws ExecutionException, InterruptedException {
        Thread cancelOnExit = new Thread(cancel, "sandjar-cancel");
        Runtime.getRuntime().addShutdownHook(cancelOnExit);
        try {
            return result.get();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(cancelOnExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: the work was cancelled
            }
        }
    }

    /**
     * The catalog of the shipped packs and {@code packs}, with the pack index in the user's cache
     * (docs/packs.md, "The pack index"): a later command parses only pack files that changed.
     */
    static ModuleCatalog catalog(Sandbox sandbox, List<PackPath> packs) {
        ModuleCatalog.Builder b =
                ModuleCatalog.builder(sandbox)
                        .shippedPacks(true)
                        .indexDirectory(ModuleCatalog.defaultIndexDirectory());
        packs.forEach(p -> b.searchPath(p.dir(), p.trust()));
        return b.build();
    }

    /** A search path from {@code --packs} (untrusted) or {@code --trust-packs} (trusted). */
    record PackPath(Path dir, Trust trust) {
        /** {@code args[i]} as one, if it is one of the two flags; its value is args[i + 1]. */
        static PackPath of(String flag, String[] args, int i) {
            return new PackPath(
                    directory(value(args, i + 1, flag), flag),
                    flag.equals("--trust-packs") ? Trust.TRUSTED : Trust.UNTRUSTED);
        }
    }

    private static int execute(SandboxRun run, boolean stats, PrintStream out, PrintStream err) {
        RunResult result;
        try {
            result = awaitCancellingOnExit(run.result(), run::cancel);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof InvalidRequestException bad) {
                err.println("error: usage: " + bad.getMessage());
                return 1;
            }
            err.println("error: internal: " + e.getCause());
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("error: cancelled: interrupted");
            return 2;
        }
        if (stats) {
            err.println("stats: " + result.stats().summary());
        }
        if (result.isOk()) {
            out.println(result.valueJson());
            return 0;
        }
        err.println(describe(result.error()));
        return 2;
    }

    private static int packs(PacksOptions options, PrintStream out, PrintStream err) {
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build()) {
            ModuleCatalog catalog = catalog(sandbox, options.packs);
            switch (options.command) {
                case "list" -> {
                    for (ModuleSummary s : catalog.summaries()) {
                        out.println(s.line());
                    }
                    return 0;
                }
                case "validate" -> {
                    List<Diagnostic> all = catalog.diagnostics();
                    for (Diagnostic d : all) {
                        out.println(d);
                    }
                    boolean errors = all.stream().anyMatch(Diagnostic::isError);
                    out.println(
                            all.isEmpty()
                                    ? "ok: " + catalog.summaries().size() + " modules, no problems"
                                    : (errors ? "failed: " : "ok: ")
                                            + all.size()
                                            + " diagnostic(s)");
                    return errors ? 2 : 0;
                }
                default -> {
                    Optional<PackDocs> docs = catalog.packDocs(options.name);
                    if (docs.isEmpty()) {
                        err.println(
                                "error: no SKILL.md for pack '"
                                        + options.name
                                        + "' (is it installed? see 'sandjar packs list')");
                        return 2;
                    }
                    out.println(docs.get().body());
                    return 0;
                }
            }
        }
    }

    /** Reads the code of a run, or says why not on {@code err}: null then. */
    static String readCode(Path file, PrintStream err) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            err.println("error: usage: cannot read " + file + ": " + e.getMessage());
            return null;
        }
    }

    static String describe(RunError e) {
        String where = e.line() > 0 ? " (line " + e.line() + ", column " + e.column() + ")" : "";
        return "error: "
                + e.kind().name().toLowerCase(Locale.ROOT)
                + ": "
                + e.name()
                + ": "
                + e.message()
                + (e.message().contains("line " + e.line()) ? "" : where);
    }

    private static String format(LogEntry line) {
        return "[" + line.level().name().toLowerCase(Locale.ROOT) + "] " + line.message();
    }

    static String formatPercent(double p) {
        return (p == Math.rint(p) ? String.valueOf((long) p) : String.valueOf(p)) + "%";
    }

    static final class Options {
        Path file;
        Long timeoutMs; // null: the sandbox's default
        Long memoryMb;
        boolean stats;
        final Map<String, Object> globals = new LinkedHashMap<>();
        final List<PackPath> packs = new ArrayList<>();
        boolean fetch;
        boolean allowPrivateNetwork;
        Path workspace;
        boolean hostFilesystem;
        boolean video;
        final Map<String, String> secrets = new LinkedHashMap<>();
        String secretsEnv;
        Set<String> secretScope;
        final Set<String> withheld = new LinkedHashSet<>();

        /** A verb's own flag: consumes {@code args[i]} (and its value); the index it ended at. */
        interface VerbFlag {
            /** -1 when {@code args[i]} is not this verb's. */
            int take(String[] args, int i);
        }

        static Options parse(String[] args) {
            return parse(args, "run", (a, i) -> -1);
        }

        /** {@code VERB FILE.js} with the run options, and {@code own}'s flags. */
        static Options parse(String[] args, String verb, VerbFlag own) {
            if (args.length < 2 || !args[0].equals(verb)) {
                throw new IllegalArgumentException(
                        args.length == 0 ? "no command given" : "expected '" + verb + " FILE.js'");
            }
            Options o = new Options();
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                int taken = own.take(args, i);
                if (taken >= 0) {
                    i = taken;
                    continue;
                }
                switch (a) {
                    case "--timeout-ms" -> o.timeoutMs = number(args, ++i, a, 1, MAX_TIMEOUT_MS);
                    case "--memory-mb" -> o.memoryMb = number(args, ++i, a, 1, MAX_MEMORY_MB);
                    case "--stats" -> o.stats = true;
                    case "--global" -> o.global(value(args, ++i, a));
                    case "--packs", "--trust-packs" -> o.packs.add(PackPath.of(a, args, i++));
                    case "--fetch" -> o.fetch = true;
                    case "--allow-private-network" -> o.allowPrivateNetwork = true;
                    case "--workspace" -> o.workspace = directory(value(args, ++i, a), a);
                    case "--host-filesystem" -> o.hostFilesystem = true;
                    case "--video" -> o.video = true;
                    case "--secret" -> o.secret(value(args, ++i, a));
                    case "--secrets-env" -> o.secretsEnv = value(args, ++i, a);
                    case "--secret-scope" -> o.secretScope = names(value(args, ++i, a));
                    case "--withhold" -> o.withheld.addAll(names(value(args, ++i, a)));
                    default -> {
                        if (a.startsWith("--")) {
                            throw new IllegalArgumentException("unknown option " + a);
                        }
                        if (o.file != null) {
                            throw new IllegalArgumentException("more than one file given");
                        }
                        o.file = Path.of(a);
                    }
                }
            }
            if (o.file == null) {
                throw new IllegalArgumentException("no FILE.js given");
            }
            if (o.allowPrivateNetwork && !o.fetch) {
                throw new IllegalArgumentException("--allow-private-network needs --fetch");
            }
            if (o.hostFilesystem && o.workspace == null) {
                throw new IllegalArgumentException("--host-filesystem needs --workspace DIR");
            }
            if (o.video && !VideoConfig.defaults().available()) {
                throw new IllegalArgumentException(
                        "--video needs ffmpeg and ffprobe on PATH (Debian package ffmpeg)");
            }
            if (o.secretScope != null && o.secrets.isEmpty() && o.secretsEnv == null) {
                throw new IllegalArgumentException(
                        "--secret-scope needs --secret NAME=VALUE or --secrets-env PREFIX");
            }
            if (!o.secrets.isEmpty() && o.secretsEnv != null) {
                throw new IllegalArgumentException(
                        "give secrets with --secret or --secrets-env, not both");
            }
            for (String w : o.withheld) {
                if (!Capabilities.DEFAULTS.contains(w)) {
                    throw new IllegalArgumentException(
                            "--withhold "
                                    + w
                                    + ": the default capabilities are "
                                    + Capabilities.DEFAULTS);
                }
            }
            return o;
        }

        Optional<SecretStore> secretStore() {
            if (!secrets.isEmpty()) {
                return Optional.of(SecretStore.of(secrets));
            }
            if (secretsEnv != null) {
                return Optional.of(SecretStore.fromEnvironment(secretsEnv));
            }
            return Optional.empty();
        }

        private void global(String spec) {
            int eq = spec.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--global needs NAME=JSON, got '" + spec + "'");
            }
            String name = spec.substring(0, eq);
            String json = spec.substring(eq + 1);
            Object value; // read once, here, so bad JSON is a usage error found while parsing
            try {
                value = ValueJson.read(json, "--global " + name);
                RunRequest.builder("")
                        .global(name, value)
                        .build(); // the name is one a global may have
            } catch (InvalidRequestException e) {
                throw new IllegalArgumentException(e.getMessage());
            }
            globals.put(name, value);
        }

        /** Only what the flags set: the rest falls back to the sandbox's defaults. */
        Limits limits() {
            Limits.Builder b = Limits.builder();
            if (timeoutMs != null) {
                b.timeout(Duration.ofMillis(timeoutMs));
            }
            if (memoryMb != null) {
                b.heapBytes(memoryMb << 20);
            }
            return b.build();
        }

        private void secret(String spec) {
            int eq = spec.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--secret needs NAME=VALUE");
            }
            secrets.put(spec.substring(0, eq), spec.substring(eq + 1));
        }
    }

    static final class PacksOptions {
        String command;
        String name;
        final List<PackPath> packs = new ArrayList<>();

        static PacksOptions parse(String[] args) {
            PacksOptions o = new PacksOptions();
            if (args.length < 2 || !List.of("list", "validate", "docs").contains(args[1])) {
                throw new IllegalArgumentException("expected 'packs list|validate|docs NAME'");
            }
            o.command = args[1];
            for (int i = 2; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--packs") || a.equals("--trust-packs")) {
                    o.packs.add(PackPath.of(a, args, i++));
                } else if (a.startsWith("--")) {
                    throw new IllegalArgumentException("unknown option " + a);
                } else if (o.command.equals("docs") && o.name == null) {
                    o.name = a;
                } else {
                    throw new IllegalArgumentException("unexpected argument '" + a + "'");
                }
            }
            if (o.command.equals("docs") && o.name == null) {
                throw new IllegalArgumentException("packs docs needs a pack NAME");
            }
            return o;
        }
    }

    static Set<String> names(String list) {
        Set<String> out = new LinkedHashSet<>();
        for (String n : list.split(",", -1)) {
            if (!n.isBlank()) {
                out.add(n.trim());
            }
        }
        return out;
    }

    static Path directory(String text, String flag) {
        Path p = Path.of(text);
        if (!Files.isDirectory(p)) {
            throw new IllegalArgumentException(flag + " " + text + ": not a directory");
        }
        return p;
    }

    static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    static long number(String[] args, int i, String flag, long min, long max) {
        String text = value(args, i, flag);
        long v;
        try {
            v = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs a number, got '" + text + "'");
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(
                    flag + " (" + v + ") must be between " + min + " and " + max);
        }
        return v;
    }
}
