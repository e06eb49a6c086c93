package dev.sandjar.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.host.Sandbox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The whole comparison, as {@code bench/run.sh} starts it: the JMH benchmarks, the Node script (the
 * same wasm on V8), cold starts and memory probes in new JVMs, then {@code latest.md}.
 *
 * <p>usage: {@code BenchMain quick|full OUTPUT.md WORK_DIR [NODE_MODULES_DIR]}
 */
public final class BenchMain {
    /** docs/jvm-flags.md: without them QuickJS's interpreter loop is never JIT-compiled. */
    static final List<String> JIT_FLAGS = Sandbox.jvmFlags();

    /**
     * docs/jvm-flags.md: on JDK 24 and later the engine's memory, global 0 and interruption checks
     * take {@code Unsafe} only with this flag, which {@code ./sandjar} passes and the docs
     * recommend; without it a JDK 25 bench would measure the portable path.
     */
    static final String UNSAFE_FLAG = "--sun-misc-unsafe-memory-access=allow";

    /**
     * What every fork and probe runs with: the JIT flags, on JDK 24 and later {@link #UNSAFE_FLAG}
     * (forks run on this JVM's java), and the heap and stack.
     */
    static final List<String> FORK_FLAGS =
            concat(
                    concat(
                            JIT_FLAGS,
                            Runtime.version().feature() >= 24 ? List.of(UNSAFE_FLAG) : List.of()),
                    List.of("-Xss4m", "-Xms1g", "-Xmx4g"));

    private static final TypeReference<Map<String, Double>> NUMBERS = new TypeReference<>() {};
    private static final TypeReference<Map<String, Object>> PROOF = new TypeReference<>() {};

    private final BenchMode mode;
    private final Path work;
    private final Path nodeModules;
    private final Path nodeScripts;
    private final List<String> notes = new ArrayList<>();

    /** Medians by table, then system: milliseconds (or runs/s, or bytes). */
    private final Map<String, Map<String, Double>> tables = new LinkedHashMap<>();

    /** Each fork's number, by table and system, where there was more than one fork. */
    private final Map<String, Map<String, List<Double>>> perFork = new LinkedHashMap<>();

    /** Seconds each step of the comparison took, in order. */
    private final Map<String, Double> durations = new LinkedHashMap<>();

    private final Map<String, String> unsupported = new LinkedHashMap<>();

    /** The systems that start on this JDK, and why the others do not. */
    private final List<String> systems = new ArrayList<>();

    private final Map<String, String> broken = new LinkedHashMap<>();
    private final Map<String, Double> sandjarPhases = new LinkedHashMap<>();

    /** {@link CliSpeed}'s numbers, empty when it did not run. */
    private final Map<String, Double> cliSpeed = new LinkedHashMap<>();

    /** Why the command line's speed check failed, or null. */
    private String cliFailure;

    private String graalImplementation = "n/a";

    /**
     * The GraalJS (JIT) column's JVMs, or null when it cannot run here ({@link #broken} says why).
     */
    private GraalJit graalJit;

    /** {@link GraalJit}'s proof: the runtime, its JDK and fib(25) with and without compiling. */
    private final Map<String, Object> graalJitProof = new LinkedHashMap<>();

    private String loadBefore = "?";
    private String loadAfter = "?";
    private int cores = Runtime.getRuntime().availableProcessors();
    private String cpu = cpuModel();
    private String jdk =
            System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");

    private BenchMain(BenchMode mode, Path work, Path nodeModules, Path nodeScripts) {
        this.mode = mode;
        this.work = work;
        this.nodeModules = nodeModules;
        this.nodeScripts = nodeScripts;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("render")) {
            render(Path.of(args[1]), Path.of(args[2]));
            return;
        }
        if (args.length < 3) {
            System.err.println("usage: BenchMain quick|full OUTPUT.md WORK_DIR [NODE_MODULES_DIR]");
            System.exit(2);
        }
        BenchMode mode = BenchMode.of(args[0]);
        Path out = Path.of(args[1]);
        Path work = Path.of(args[2]);
        Files.createDirectories(work);
        Path nodeModules = args.length > 3 ? Path.of(args[3]) : null;
        Path scripts = Path.of(System.getProperty("sandjar.bench.node", "bench/node"));
        BenchMain main = new BenchMain(mode, work, nodeModules, scripts);
        if (mode == BenchMode.SMOKE && !Workloads.tiny()) {
            throw new IllegalArgumentException("smoke mode runs with -Dsandjar.bench.size=tiny");
        }
        Instant started = Instant.now();
        main.loadBefore = loadAverage();
        main.runAll();
        main.loadAfter = loadAverage();
        main.save(work.resolve("results.json"), started);
        String md = main.report(started);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, md, StandardCharsets.UTF_8);
        System.out.println("wrote " + out);
        if (main.cliFailure != null) {
            System.err.println(main.cliFailure);
            System.exit(1);
        }
    }

    /** Everything the report is made of, so {@code render} can remake it without a rerun. */
    private void save(Path file, Instant started) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", mode.name());
        m.put("started", started.toString());
        m.put("cores", cores);
        m.put("cpu", cpu);
        m.put("jdk", jdk);
        m.put("loadBefore", loadBefore);
        m.put("loadAfter", loadAfter);
        m.put("graalImplementation", graalImplementation);
        m.put("graalJitProof", graalJitProof);
        m.put("notes", notes);
        m.put("tables", tables);
        m.put("unsupported", unsupported);
        m.put("broken", broken);
        m.put("sandjarPhases", sandjarPhases);
        m.put("cliSpeed", cliSpeed);
        m.put("perFork", perFork);
        m.put("durations", durations);
        Files.writeString(file, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(m));
    }

    /** usage: {@code BenchMain render WORK_DIR/results.json OUTPUT.md} */
    @SuppressWarnings("unchecked")
    private static void render(Path results, Path out) throws IOException {
        Map<String, Object> m = Json.MAPPER.readValue(results.toFile(), Map.class);
        BenchMode mode = BenchMode.of((String) m.get("mode"));
        BenchMain b = new BenchMain(mode, results.getParent(), null, null);
        b.cores = ((Number) m.get("cores")).intValue();
        b.cpu = (String) m.get("cpu");
        b.jdk = (String) m.get("jdk");
        b.loadBefore = (String) m.get("loadBefore");
        b.loadAfter = (String) m.get("loadAfter");
        b.graalImplementation = (String) m.get("graalImplementation");
        b.graalJitProof.putAll((Map<String, Object>) m.getOrDefault("graalJitProof", Map.of()));
        b.notes.addAll((List<String>) m.get("notes"));
        ((Map<String, Map<String, Number>>) m.get("tables"))
                .forEach((t, v) -> v.forEach((sys, x) -> b.put(t, sys, x.doubleValue())));
        b.unsupported.putAll((Map<String, String>) m.get("unsupported"));
        b.broken.putAll((Map<String, String>) m.get("broken"));
        ((Map<String, Number>) m.get("sandjarPhases"))
                .forEach((k, v) -> b.sandjarPhases.put(k, v.doubleValue()));
        ((Map<String, Map<String, List<Number>>>) m.getOrDefault("perFork", Map.of()))
                .forEach(
                        (t, v) ->
                                v.forEach(
                                        (sys, x) ->
                                                b.perFork
                                                        .computeIfAbsent(
                                                                t, k -> new LinkedHashMap<>())
                                                        .put(
                                                                sys,
                                                                x.stream()
                                                                        .map(Number::doubleValue)
                                                                        .toList())));
        ((Map<String, Number>) m.getOrDefault("durations", Map.of()))
                .forEach((k, v) -> b.durations.put(k, v.doubleValue()));
        ((Map<String, Number>) m.getOrDefault("cliSpeed", Map.of()))
                .forEach((k, v) -> b.cliSpeed.put(k, v.doubleValue()));
        Files.writeString(
                out, b.report(Instant.parse((String) m.get("started"))), StandardCharsets.UTF_8);
        System.out.println("wrote " + out);
    }

    private void runAll() throws Exception {
        for (String name : JsSystem.NAMES) {
            try (JsSystem js = JsSystem.create(name, 1)) {
                js.eval(Workloads.body("trivial"));
                if (js.bytesUnsupported() != null) {
                    unsupported.put(name, js.bytesUnsupported());
                }
                if (js instanceof GraalSystem g) {
                    graalImplementation = g.implementation();
                }
                systems.add(name);
            } catch (Throwable e) { // e.g. GraalJS 23.1 on JDK 25: NoSuchMethodError in Truffle
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                broken.put(
                        name,
                        "does not start on this JDK ("
                                + root.getClass().getSimpleName()
                                + ": "
                                + root.getMessage()
                                + ")");
                notes.add(LABEL.get(name) + " " + broken.get(name) + ".");
            }
        }
        step("GraalJS (JIT): is the optimizing runtime on", this::graalJit);
        Path samples = work.resolve("setup-samples.csv");
        Files.deleteIfExists(samples);
        if (!hasNode()) {
            notes.add("The Node peer was not run: no node_modules directory was given.");
        }
        step("JMH: one JVM per system and fork, and V8 after each round", () -> forks(samples));
        readSetupSamples(samples);
        step("cold starts", this::coldStarts);
        step("command line against the library", this::cliSpeed);
        step("memory", this::memory);
    }

    private interface Step {
        void run() throws Exception;
    }

    /** Runs a step of the comparison and records how long it took, for the report's header. */
    private void step(String what, Step step) throws Exception {
        System.out.println("== " + what + " (" + Instant.now() + ")");
        long t0 = System.nanoTime();
        step.run();
        durations.put(what, (System.nanoTime() - t0) / 1e9);
    }

    // -------------------------------------------------------------------------------------
    // JMH

    /**
     * Every system's benchmarks in one new JVM ({@link SystemFork}), the mode's number of times,
     * systems interleaved so drift in the machine's load hits each alike, and after each round the
     * same wasm on V8 in a new Node process ({@link #nodePass}). With several forks a table's
     * number is the median of the forks' numbers; each fork's number is kept too.
     *
     * <p>V8 runs once per round, not once after all of them, because the ratios to it are targets
     * and this shared machine changes speed over an hour: a single Node run at the end measured fib
     * at 12.1 ms in one full run and 20.0 in the one before, while Rhino's forks in one run spread
     * from 41.5 to 64.1 ms (docs/performance.md, "Caveats").
     */
    private void forks(Path samples) throws IOException, InterruptedException {
        Map<String, Map<String, List<Double>>> byFork = new LinkedHashMap<>();
        for (int fork = 1; fork <= mode.forks(); fork++) {
            for (String s : systems) {
                Path file = work.resolve("fork-" + s + "-" + fork + ".json");
                Files.deleteIfExists(file);
                List<String> cmd =
                        javaCommand(
                                s,
                                List.of("-Dsandjar.bench.samples=" + samples.toAbsolutePath()),
                                SystemFork.class.getName(),
                                mode.name(),
                                s,
                                "" + fork,
                                work.toString());
                System.out.println("   " + s + ", fork " + fork + " (" + Instant.now() + ")");
                Process p =
                        new ProcessBuilder(cmd)
                                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                                .redirectError(ProcessBuilder.Redirect.INHERIT)
                                .start();
                if (!p.waitFor(30, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                }
                if (!Files.exists(file)) {
                    notes.add(
                            LABEL.get(s)
                                    + ": fork "
                                    + fork
                                    + " failed; see "
                                    + work.resolve("jmh-" + s + "-" + fork + ".log"));
                    continue;
                }
                Map<String, Double> got = Json.MAPPER.readValue(file.toFile(), NUMBERS);
                got.forEach(
                        (table, v) ->
                                byFork.computeIfAbsent(table, k -> new LinkedHashMap<>())
                                        .computeIfAbsent(s, k -> new ArrayList<>())
                                        .add(v));
            }
            if (hasNode()) {
                System.out.println("   v8, round " + fork + " (" + Instant.now() + ")");
                nodePass(fork)
                        .forEach(
                                (table, v) ->
                                        byFork.computeIfAbsent(table, k -> new LinkedHashMap<>())
                                                .computeIfAbsent("v8", k -> new ArrayList<>())
                                                .add(v));
            }
        }
        byFork.forEach(
                (table, bySystem) ->
                        bySystem.forEach(
                                (s, v) -> {
                                    if (table.startsWith("sharedWarmup")) {
                                        return;
                                    }
                                    put(table, s, medianOf(v));
                                    if (v.size() > 1) {
                                        perFork.computeIfAbsent(table, k -> new LinkedHashMap<>())
                                                .put(s, v);
                                    }
                                }));
        Map<String, List<Double>> warm = byFork.getOrDefault("sharedWarmupSeconds", Map.of());
        Map<String, List<Double>> warmRuns = byFork.getOrDefault("sharedWarmupRuns", Map.of());
        StringBuilder w = new StringBuilder();
        warm.forEach(
                (s, v) -> {
                    if (w.length() > 0) {
                        w.append("; ");
                    }
                    w.append(LABEL.get(s))
                            .append(String.format(Locale.ROOT, " %.0f s", medianOf(v)))
                            .append(
                                    String.format(
                                            Locale.ROOT,
                                            " (%.0f runs)",
                                            medianOf(warmRuns.getOrDefault(s, List.of()))));
                });
        if (w.length() > 0) {
            notes.add("Shared warm-up per JVM, median of the forks: " + w + ".");
        }
    }

    private void put(String table, String system, double value) {
        tables.computeIfAbsent(table, k -> new LinkedHashMap<>()).put(system, value);
    }

    private void readSetupSamples(Path file) throws IOException {
        if (!Files.exists(file)) {
            notes.add("No setup samples were recorded (did SetupBench fail?).");
            return;
        }
        Map<String, List<long[]>> bySystem = new TreeMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] f = line.split(",", -1);
            long[] v = new long[f.length - 1];
            for (int i = 1; i < f.length; i++) {
                v[i - 1] = f[i].isEmpty() ? -1 : Long.parseLong(f[i]);
            }
            bySystem.computeIfAbsent(f[0], k -> new ArrayList<>()).add(v);
        }
        for (var e : bySystem.entrySet()) {
            String system = e.getKey();
            List<long[]> rows = e.getValue();
            // columns: latency, cpu, runtime, context, bridges, prelude, setup, setupCpu
            if (system.equals("sandjar")) {
                put("setup", system, median(rows, 6) / 1e6);
                put("setupCpu", system, median(rows, 7) / 1e6);
                sandjarPhases.put("runtime", median(rows, 2) / 1e6);
                sandjarPhases.put("context", median(rows, 3) / 1e6);
                sandjarPhases.put("bridges (codec, bridges' guest code)", median(rows, 4) / 1e6);
                sandjarPhases.put("prelude (hardening, globals)", median(rows, 5) / 1e6);
                sandjarPhases.put("setup, elapsed", median(rows, 6) / 1e6);
                sandjarPhases.put("setup, engine-thread CPU", median(rows, 7) / 1e6);
                sandjarPhases.put("whole run, engine-thread CPU", median(rows, 1) / 1e6);
                sandjarPhases.put("samples", (double) rows.size());
            } else {
                // A peer's setup cannot be split from its trivial statement: its whole run.
                put("setup", system, median(rows, 0) / 1e6);
                put("setupCpu", system, median(rows, 1) / 1e6);
            }
            put("trivialCpu", system, median(rows, 1) / 1e6);
        }
    }

    private static double median(List<long[]> rows, int col) {
        long[] v = rows.stream().mapToLong(r -> r[col]).filter(x -> x >= 0).sorted().toArray();
        return v.length == 0 ? Double.NaN : v[v.length / 2];
    }

    // -------------------------------------------------------------------------------------
    // Node

    /**
     * One run of the Node peer ({@code bench/node/bench.mjs}) in a new process: its numbers by
     * table, or none (with a note) when it failed.
     */
    private Map<String, Double> nodePass(int round) throws IOException, InterruptedException {
        Map<String, Object> input = new LinkedHashMap<>();
        Map<String, String> bodies = new LinkedHashMap<>();
        for (String w : List.of("trivial", "fib", "strings", "json", "regex", "rows", "bytes")) {
            bodies.put(w, Workloads.body(w));
        }
        input.put("bodies", bodies);
        input.put("compute", Workloads.COMPUTE);
        input.put("rows", Workloads.rows());
        input.put("byteCount", Workloads.byteCount());
        input.put("warmupMs", mode.nodeWarmupMs());
        input.put("measureMs", mode.nodeMeasureMs());
        Path in = work.resolve("node-input.json");
        Files.writeString(in, Json.write(input));
        Process p =
                new ProcessBuilder(
                                "node",
                                nodeScripts.resolve("bench.mjs").toString(),
                                nodeModules.toString(),
                                in.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            notes.add("The Node peer failed in round " + round + "; see the harness's output.");
            return Map.of();
        }
        Files.writeString(work.resolve("node-results-" + round + ".json"), out);
        JsonNode r = Json.MAPPER.readTree(out);
        Map<String, Double> got = new LinkedHashMap<>();
        got.put("trivial", r.get("trivial").get("median").asDouble());
        got.put("trivialCpu", r.get("trivial").get("cpu").asDouble());
        got.put("setup", r.get("trivial").get("median").asDouble());
        got.put("setupCpu", r.get("trivial").get("cpu").asDouble());
        for (String w : Workloads.COMPUTE) {
            got.put(w, r.get(w).get("median").asDouble());
        }
        got.put("rows", r.get("rows").get("median").asDouble());
        got.put("bytes", r.get("bytes").get("median").asDouble());
        if (round == 1) {
            notes.add(
                    "Node "
                            + r.get("version").asText()
                            + " (V8), quickjs-emscripten-core 0.32.0, run after each round of"
                            + " forks.");
        }
        return got;
    }

    // -------------------------------------------------------------------------------------
    // Cold starts and memory, each in new processes

    private List<String> javaCommand(String system, String mainClass, String... args) {
        return javaCommand(system, List.of(), mainClass, args);
    }

    /**
     * A new JVM for {@code system}: this JVM's java and class path with the fork flags, except for
     * GraalJS (JIT), whose JVMs run on their own JDK with their own jars ({@link GraalJit}).
     */
    private List<String> javaCommand(
            String system, List<String> jvmArgs, String mainClass, String... args) {
        List<String> flags = new ArrayList<>(FORK_FLAGS);
        if (system.equals(JsSystem.SANDJAR_NO_FLAGS)) {
            flags.removeAll(JIT_FLAGS);
            flags.remove(UNSAFE_FLAG);
        }
        flags.add("-Dsandjar.bench.size=" + (Workloads.tiny() ? "tiny" : "full"));
        flags.addAll(jvmArgs);
        if (system.equals(GraalJit.SYSTEM)) {
            return graalJit.command(flags, mainClass, Arrays.asList(args));
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(flags);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(Arrays.asList(args));
        return cmd;
    }

    /**
     * Whether the GraalJS (JIT) column runs: its JVM setup exists, and {@link GraalJit}'s probe
     * shows Truffle's optimizing runtime on and compiling fib(25) to at least {@link
     * GraalJit#MIN_SPEEDUP} times its interpreter's speed. Otherwise the column is empty and says
     * why.
     */
    private void graalJit() throws IOException, InterruptedException {
        String why;
        try {
            graalJit = GraalJit.fromProperties();
            List<String> cmd =
                    javaCommand(
                            GraalJit.SYSTEM, GraalJit.class.getName(), "" + mode.jitProofSeconds());
            Path err = work.resolve("graaljs-jit-probe.err");
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectError(ProcessBuilder.Redirect.to(err.toFile()))
                            .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
            }
            if (out.isBlank()) {
                List<String> lines = Files.readAllLines(err);
                why =
                        "its JVM did not start ("
                                + String.join(" ", lines.subList(0, Math.min(3, lines.size())))
                                + "; command: "
                                + String.join(" ", cmd)
                                + ")";
            } else {
                // Its last line: the JSON (a JVM may print warnings first).
                String json = out.strip().lines().reduce((a, b) -> b).orElseThrow();
                graalJitProof.putAll(Json.MAPPER.readValue(json, PROOF));
                graalJitProof.put("version", graalJit.version());
                why = GraalJit.verdict(graalJitProof);
            }
        } catch (IllegalStateException e) {
            why = e.getMessage();
        }
        if (why == null) {
            systems.add(GraalJit.SYSTEM);
        } else {
            graalJit = null;
            broken.put(GraalJit.SYSTEM, "not measured: " + why);
            String note = LABEL.get(GraalJit.SYSTEM) + " " + broken.get(GraalJit.SYSTEM);
            notes.add(note.endsWith(".") ? note : note + ".");
        }
    }

    private static String runProcess(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("failed (" + p.exitValue() + "): " + cmd);
        }
        return out.trim();
    }

    private void coldStarts() throws IOException, InterruptedException {
        Map<String, List<Double>> firstResult = new LinkedHashMap<>();
        List<String> all = new ArrayList<>(systems);
        boolean node = hasNode();
        if (node) {
            all.add("v8");
        }
        for (int i = 0; i < mode.coldRuns(); i++) {
            for (String s : all) { // round robin, so drift hits every system alike
                List<String> cmd =
                        s.equals("v8")
                                ? List.of(
                                        "node",
                                        nodeScripts.resolve("cold.mjs").toString(),
                                        nodeModules.toString())
                                : javaCommand(s, ColdStart.class.getName(), s);
                Instant t0 = Instant.now();
                String out = runProcess(cmd);
                String[] f = out.split(" ");
                if (!f[0].equals("2")) {
                    throw new IllegalStateException(s + " cold start printed " + out);
                }
                double startMicros = t0.getEpochSecond() * 1e6 + t0.getNano() / 1e3;
                double atMicros =
                        s.equals("v8") ? Double.parseDouble(f[1]) * 1e3 : Double.parseDouble(f[1]);
                firstResult
                        .computeIfAbsent(s, k -> new ArrayList<>())
                        .add((atMicros - startMicros) / 1e3);
            }
        }
        firstResult.forEach((s, v) -> put("cold", s, medianOf(v)));
    }

    /**
     * {@link CliSpeed}: fib(25) in a loop through {@code ./sandjar run} and through the library in
     * a new JVM. The report is written either way; then the harness exits 1 when the command line's
     * steady state is over {@link CliSpeed#LIMIT} times the library's (not in smoke mode, whose
     * loop is too short for C2), or when the check could not run.
     */
    private void cliSpeed() {
        CliSpeed.Result r;
        try {
            r = CliSpeed.measure(Path.of("."), mode.cliSeconds(), mode.cliDraws(), work);
        } catch (Exception e) {
            cliFailure = "FAIL: the command line's speed check could not run: " + e;
            notes.add(cliFailure);
            return;
        }
        cliSpeed.putAll(r.numbers());
        if (r.cli().get(0).archive() == null) {
            notes.add(
                    "The command line ran without its CDS archive or AOT cache (./sandjar could not"
                            + " make one):"
                            + " the speed check did not cover the archive.");
        }
        if (!r.ok() && mode != BenchMode.SMOKE) {
            cliFailure = r.failure();
        }
    }

    private void memory() throws IOException, InterruptedException {
        int small = 1;
        int large = 9;
        int busyThreads = 4;
        for (String s : systems) {
            if (s.equals(JsSystem.SANDJAR_NO_FLAGS)) {
                continue; // the same heap as Sandjar's: the flags change what the JIT compiles
            }
            String[] idle =
                    runProcess(
                                    javaCommand(
                                            s,
                                            MemoryProbe.class.getName(),
                                            "idle",
                                            s,
                                            "" + small,
                                            "" + (large - small)))
                            .split("\n");
            long[] a = twoLongs(idle[0]);
            long[] b = twoLongs(idle[1]);
            put("idleHeap", s, (b[0] - a[0]) / (double) (large - small));
            put("idleRss", s, (b[1] - a[1]) / (double) (large - small));
            long[] busy =
                    twoLongs(
                            runProcess(
                                    javaCommand(
                                            s,
                                            MemoryProbe.class.getName(),
                                            "busy",
                                            s,
                                            "" + busyThreads,
                                            "" + mode.busySeconds())));
            put("busyHeap", s, (double) busy[0]);
            put("busyRss", s, (double) busy[1]);
        }
        if (hasNode()) {
            nodeMemory(small, large, busyThreads);
        }
        notes.add(
                "Memory per idle instance = (with "
                        + large
                        + " held - with "
                        + small
                        + " held) / "
                        + (large - small)
                        + ", heap used after GC and resident set size, both counts in one process"
                        + " per system (Sandjar's further instances in a second pool). Busy ="
                        + " peaks while "
                        + busyThreads
                        + " threads run the json workload for "
                        + mode.busySeconds()
                        + " s (heap used is sampled without GC, so it includes garbage).");
    }

    /**
     * The V8 column of the memory table, from {@code node/memory.mjs} in new processes: the same
     * differences as the JVM probes, with heap = V8's heap used plus external memory (where the
     * wasm memory is counted).
     */
    private void nodeMemory(int small, int large, int busyThreads)
            throws IOException, InterruptedException {
        long[][] idle = new long[4][];
        int i = 0;
        for (String how : List.of("shared", "modules")) {
            for (String line :
                    runProcess(nodeMemoryCommand("idle", "" + small, "" + (large - small), how))
                            .split("\n")) {
                idle[i++] = twoLongs(line);
            }
        }
        put("idleHeap", "v8", (idle[1][0] - idle[0][0]) / (double) (large - small));
        put("idleRss", "v8", (idle[1][1] - idle[0][1]) / (double) (large - small));
        Path body = work.resolve("json-body.js");
        Files.writeString(body, Workloads.body("json"));
        long[] busy =
                twoLongs(
                        runProcess(
                                nodeMemoryCommand(
                                        "busy",
                                        "" + busyThreads,
                                        "" + mode.busySeconds(),
                                        body.toString())));
        put("busyHeap", "v8", (double) busy[0]);
        put("busyRss", "v8", (double) busy[1]);
        notes.add(
                String.format(
                        Locale.ROOT,
                        "Memory on V8 (Node): heap = V8's heap used + external memory, where the"
                            + " wasm memory is counted. Idle: runtimes and contexts of one"
                            + " quickjs-emscripten module, the library's usual way: they share one"
                            + " wasm memory, grown only when the %d no longer fit; with a module"
                            + " (its own wasm memory) per instance, as each Sandjar instance has,"
                            + " it is %.1f MiB of heap and %.1f MiB of RSS per instance. Busy: Node"
                            + " runs one JS thread per isolate, so %d worker threads, each with its"
                            + " own module, run the json workload for %d s; the heap peak is the"
                            + " sum of each worker's peak, sampled between runs.",
                        large,
                        (idle[3][0] - idle[2][0]) / (double) (large - small) / (1 << 20),
                        (idle[3][1] - idle[2][1]) / (double) (large - small) / (1 << 20),
                        busyThreads,
                        mode.busySeconds()));
    }

    private List<String> nodeMemoryCommand(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add("node");
        cmd.add("--expose-gc");
        cmd.add(nodeScripts.resolve("memory.mjs").toString());
        cmd.add(nodeModules.toString());
        cmd.addAll(Arrays.asList(args));
        return cmd;
    }

    private boolean hasNode() {
        return nodeModules != null && Files.isDirectory(nodeModules);
    }

    private static long[] twoLongs(String out) {
        String[] f = out.split("\\s+");
        return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
    }

    private static double medianOf(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length == 0 ? Double.NaN : a[a.length / 2];
    }

    // -------------------------------------------------------------------------------------
    // The report

    /**
     * Which path the engine's memory, global 0 and interruption checks take (docs/jvm-flags.md), as
     * this JVM decides it: it runs on the forks' java, and {@code bench/build.sh} gives it {@link
     * #UNSAFE_FLAG} wherever {@link #FORK_FLAGS} has it.
     */
    static String memoryPath() {
        return Sandbox.portableMemoryReason()
                .map(why -> "the portable `VarHandle` path, because " + why)
                .orElse("`Unsafe` (the fast path)");
    }

    /**
     * Whether the engine class on this class path went through the outlining pass (built with by
     * default, docs/engine.md; {@code -DnoOutline} skips it): its outlined regions are methods
     * named {@code func_N$coldK}, and its memory accesses are written in place when its constant
     * pool names {@code BlockMemory} (the fields they read).
     */
    static String engineShape() {
        try {
            Class<?> c =
                    Class.forName(
                            "dev.sandjar.quickjs.internal.QuickJsEngineModuleMachineFuncGroup_0",
                            false,
                            BenchMain.class.getClassLoader());
            long cold =
                    java.util.Arrays.stream(c.getDeclaredMethods())
                            .filter(m -> m.getName().contains("$cold"))
                            .count();
            String inPlace;
            try (java.io.InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
                String bytes =
                        new String(in.readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
                inPlace =
                        !bytes.contains("dev/sandjar/quickjs/internal/BlockMemory")
                                ? ", memory accesses through Chicory's helpers"
                                : bytes.contains("THREAD_INTERRUPTED")
                                        ? ", memory accesses, global 0, opcode helpers and"
                                                + " interruption checks written in place"
                                        : ", memory accesses and global 0 written in place";
            }
            return cold == 0
                    ? "as Chicory generated it (`-DnoOutline`)"
                    : "outlined (" + cold + " regions in methods of their own" + inPlace + ")";
        } catch (ClassNotFoundException | LinkageError | java.io.IOException e) {
            return "unknown (" + e + ")";
        }
    }

    private String report(Instant started) {
        Report r = new Report();
        String date = DateTimeFormatter.ISO_LOCAL_DATE.withZone(ZoneOffset.UTC).format(started);
        r.line("# Sandjar benchmarks: " + mode.name() + " run, " + date);
        r.line("");
        r.line(
                "Written by `bench/run.sh "
                        + mode.name()
                        + "`. Ratios are each system's number divided by Sandjar's, so they read"
                        + " the same way in every table: for times, below 1.00x means faster than"
                        + " Sandjar; for throughput, above 1.00x means more than Sandjar. "
                        + "docs/performance.md explains each number.");
        r.line("");
        r.line("## Machine and settings");
        r.line("");
        r.line("- Date (UTC): " + started);
        r.line(
                "- Cores: "
                        + cores
                        + " ("
                        + cpu
                        + "), shared with other work: expect noise. Load average (1, 5, 15 min)"
                        + " at the start: "
                        + loadBefore
                        + "; at the end: "
                        + loadAfter);
        r.line("- JDK: " + jdk + " (GraalJS (JIT)'s JVMs: their own, below)");
        r.line("- JVM flags of every fork and probe: `" + String.join(" ", FORK_FLAGS) + "`");
        r.line("- Sandjar's engine class: " + engineShape());
        r.line("- Sandjar's memory path: " + memoryPath());
        r.line(
                String.format(
                        Locale.ROOT,
                        "- JMH 1.37, %d fork(s) per system. A fork is one JVM per system that runs"
                            + " every workload round robin for %d s (a shared warm-up), then all of"
                            + " that system's benchmarks in process (JMH forks=0), each with %s and"
                            + " %d measured x %s (throughput last); a benchmark later in the JVM"
                            + " also profits from the earlier ones' runs. Latencies are the median"
                            + " of JMH's samples (SampleTime)%s",
                        mode.forks(),
                        mode.sharedWarmup().toSeconds(),
                        mode.warmups() == 0
                                ? "no warm-up of its own"
                                : mode.warmups() + " warm-up x " + mode.warmupTime(),
                        mode.iterations(),
                        mode.iterationTime(),
                        mode.forks() > 1
                                ? "; a number is the median of the forks' numbers, listed in each"
                                        + " table's \"forks\" column"
                                : ""));
        if (mode == BenchMode.QUICK) {
            r.line(
                    "- Quick mode: one fork and few measured iterations (a slow guest-compute run"
                            + " gives as few as "
                            + mode.iterations()
                            + " samples), so each number is one JVM's draw: Sandjar's and"
                            + " quickjs4j's guest compute depends on how C2 compiles their huge"
                            + " interpreter-loop methods, which varies from JVM to JVM. Sandjar"
                            + " is not fully warm: C2's final code for QuickJS's interpreter loop"
                            + " arrives 35-60 s into a JVM running mixed workloads, after this"
                            + " mode's shared warm-up. Use full mode for numbers to quote.");
        }
        if (!durations.isEmpty()) {
            StringBuilder d = new StringBuilder();
            durations.forEach(
                    (k, v) ->
                            d.append(d.length() == 0 ? "" : ", ")
                                    .append(k)
                                    .append(String.format(Locale.ROOT, " %.0f s", v)));
            r.line(
                    String.format(
                            Locale.ROOT,
                            "- Took %.1f min after the build: %s",
                            durations.values().stream().mapToDouble(Double::doubleValue).sum() / 60,
                            d));
        }
        r.line(
                "- Systems: Sandjar (QuickJS-ng 0.32.0 wasm, Chicory AOT); GraalJS (interpreted) ="
                        + " GraalJS 23.1.8"
                        + " (polyglot API, shared Engine, fresh Context per run; Truffle runtime: "
                        + graalImplementation
                        + "); "
                        + graalJitSystem()
                        + "; Rhino 1.9.2 (interpreted, ES6, fresh Context and scope per run);"
                        + " quickjs4j 0.1.0 (new Engine and Runner per run); V8 = the same"
                        + " quickjs-ng wasm in Node through quickjs-emscripten (fresh runtime and"
                        + " context per run)");
        for (String n : notes) {
            r.line("- " + n);
        }
        r.line("");

        r.line("## Setup: a fresh isolated run up to the first user statement");
        r.line("");
        r.line(
                "Sandjar: from RunStats of the measured trivial runs (runtime, context, codec and"
                        + " bridges, prelude). Peers cannot report setup apart from a statement:"
                        + " their row is a whole trivial run, an upper bound of their setup.");
        r.line("");
        r.timeTable(
                List.of(
                        new Column("setup", "latency, median (ms)"),
                        new Column("setupCpu", "CPU per run, median (ms)")));
        r.line("");
        r.line("Sandjar's setup phases (median ms of the measured runs):");
        r.line("");
        r.line("| phase | ms |");
        r.line("|---|---:|");
        sandjarPhases.forEach(
                (k, v) ->
                        r.line(
                                "| "
                                        + k
                                        + " | "
                                        + (k.equals("samples")
                                                ? String.format(Locale.ROOT, "%.0f", v)
                                                : fmt(v))
                                        + " |"));
        r.line("");

        r.line("## Trivial run end to end (`return 1 + 1`)");
        r.line("");
        r.timeTable(
                List.of(
                        new Column("trivial", "latency, one caller, median (ms)"),
                        new Column("trivialCpu", "CPU per run (ms)")));
        r.line("");
        r.line(
                "Throughput, "
                        + cores
                        + " caller threads (Sandjar's pool: one instance per core); V8 not"
                        + " measured (one Node thread):");
        r.line("");
        r.rateTable("throughput", "runs/s");
        r.line("");

        r.line("## Guest compute (a fresh run each, setup included)");
        for (String w : Workloads.COMPUTE) {
            r.line("");
            r.line("### " + w);
            r.line("");
            r.timeTable(List.of(new Column(w, "median (ms)")));
        }
        r.line("");
        r.line("## Transport");
        r.line("");
        r.line("### 5,000 rows of 10 fields, injected as a global and returned");
        r.line("");
        r.line(
                "Peers move them as JSON text (Jackson on the host, JSON.parse/stringify in the"
                        + " guest); Sandjar through its transport.");
        r.line("");
        r.timeTable(List.of(new Column("rows", "median (ms)")));
        r.line("");
        r.line("### A 4 MiB Uint8Array in and out");
        r.line("");
        r.timeTable(List.of(new Column("bytes", "median (ms)")));
        r.line("");
        r.line(
                "## Cold start: a new process to the first result (median of "
                        + mode.coldRuns()
                        + ")");
        r.line("");
        r.timeTable(List.of(new Column("cold", "ms")));
        r.line("");
        r.line("## Memory");
        r.line("");
        r.memoryTable();
        r.line("");
        r.line(
                "## The command line against the library: fib(25) in a loop for "
                        + mode.cliSeconds()
                        + " s");
        r.line("");
        r.line(
                "One guest program through `./sandjar run` (its flags and CDS archive, as a user"
                        + " gets them), then through `Sandbox.run` in a new JVM with the fork flags"
                        + " above. Steady state: the lowest median of "
                        + CliSpeed.WINDOW
                        + " calls in a row (C2's code can arrive late in a busy JVM); the last"
                        + " quarter's median is beside it. Time to speed: from the process's launch"
                        + " to the first of three calls in a row within 1.5x of the steady state."
                        + (mode.cliDraws() > 1
                                ? " Both sides ran "
                                        + mode.cliDraws()
                                        + " times, each in new JVMs, alternating which went first;"
                                        + " each figure is the median draw, with every draw's in"
                                        + " parentheses (one JVM's time to speed is one draw of"
                                        + " C2's compile order)."
                                : "")
                        + " The harness exits 1 when the"
                        + " command line's steady state is over "
                        + CliSpeed.LIMIT
                        + "x the library's"
                        + (mode == BenchMode.SMOKE ? " (not in smoke mode)." : "."));
        r.line("");
        if (cliSpeed.isEmpty()) {
            r.line("Not measured" + (cliFailure == null ? "." : ": " + cliFailure));
        } else {
            r.line(CliSpeed.table(cliSpeed).trim());
        }
        r.line("");
        r.line("## Against the targets");
        r.line("");
        r.targets();
        return r.toString();
    }

    /** The GraalJS (JIT) column in the report's list of systems, with its proof. */
    private String graalJitSystem() {
        Object version = graalJitProof.getOrDefault("version", "25");
        String what =
                "GraalJS (JIT) = GraalJS "
                        + version
                        + " with the Graal compiler jar through JVMCI, in JVMs of its own on "
                        + graalJitProof.getOrDefault("jdk", "Temurin 25")
                        + " (the same code as GraalJS 23.1.8; flags: the fork flags and `"
                        + String.join(
                                " ",
                                GraalJit.jvmFlags(
                                        "bench/target/graaljs-jit/upgrade/*.jar",
                                        "bench/target/graaljs-jit/modules/*.jar"))
                        + "`)";
        Object on = graalJitProof.get("compiledMs");
        Object off = graalJitProof.get("interpretedMs");
        if (broken.containsKey(GraalJit.SYSTEM) || on == null || off == null) {
            return what
                    + (broken.containsKey(GraalJit.SYSTEM)
                            ? ": not measured (below)"
                            : ": not run");
        }
        return what
                + String.format(
                        Locale.ROOT,
                        ": Truffle runtime %s; its start-up proof ran fib(25) in %s ms against %s"
                                + " ms on the same engine with engine.Compilation=false (%.1fx)",
                        graalJitProof.get("implementation"),
                        fmt(((Number) on).doubleValue()),
                        fmt(((Number) off).doubleValue()),
                        ((Number) off).doubleValue() / ((Number) on).doubleValue());
    }

    private record Column(String table, String title) {}

    private static final List<String> ALL =
            List.of(
                    "sandjar",
                    JsSystem.SANDJAR_NO_FLAGS,
                    "graaljs",
                    GraalJit.SYSTEM,
                    "rhino",
                    "quickjs4j",
                    "v8");
    private static final Map<String, String> LABEL =
            Map.of(
                    "sandjar",
                    "Sandjar",
                    JsSystem.SANDJAR_NO_FLAGS,
                    "Sandjar, no JVM flags",
                    "graaljs",
                    "GraalJS (interpreted)",
                    GraalJit.SYSTEM,
                    "GraalJS (JIT)",
                    "rhino",
                    "Rhino (interpreted)",
                    "quickjs4j",
                    "quickjs4j",
                    "v8",
                    "same wasm on V8 (Node)");

    private final class Report {
        private final StringBuilder sb = new StringBuilder();

        void line(String s) {
            sb.append(s).append('\n');
        }

        private String cell(String table, String system) {
            Double v = tables.getOrDefault(table, Map.of()).get(system);
            if (v == null || v.isNaN()) {
                if (broken.containsKey(system)) {
                    return brokenCell(system);
                }
                if (table.equals("bytes") && unsupported.containsKey(system)) {
                    return "n/a: " + unsupported.get(system);
                }
                return "n/a";
            }
            return fmt(v);
        }

        /** A cell of a system that did not run: why, or where the notes say why at length. */
        private String brokenCell(String system) {
            String why = broken.get(system);
            return why.startsWith("not measured")
                    ? "n/a: not measured (see the notes)"
                    : "n/a: " + why;
        }

        private String ratio(String table, String system) {
            Map<String, Double> t = tables.getOrDefault(table, Map.of());
            Double s = t.get("sandjar");
            Double v = t.get(system);
            if (s == null || v == null || s.isNaN() || v.isNaN() || s == 0) {
                return "";
            }
            return String.format(Locale.ROOT, "%.2fx", v / s);
        }

        void timeTable(List<Column> columns) {
            StringBuilder head = new StringBuilder("| system |");
            StringBuilder rule = new StringBuilder("|---|");
            for (Column c : columns) {
                head.append(' ').append(c.title()).append(" | vs Sandjar |");
                rule.append("---:|---:|");
            }
            String forks = columns.get(0).table();
            boolean byFork = perFork.containsKey(forks);
            if (byFork) {
                head.append(" forks |");
                rule.append("---:|");
            }
            line(head.toString());
            line(rule.toString());
            for (String s : ALL) {
                if (columns.stream()
                                .allMatch(
                                        c ->
                                                !tables.getOrDefault(c.table(), Map.of())
                                                        .containsKey(s))
                        && !broken.containsKey(s)
                        && !(columns.get(0).table().equals("bytes")
                                && unsupported.containsKey(s))) {
                    continue;
                }
                StringBuilder row = new StringBuilder("| " + LABEL.get(s) + " |");
                for (Column c : columns) {
                    row.append(' ')
                            .append(cell(c.table(), s))
                            .append(" | ")
                            .append(ratio(c.table(), s))
                            .append(" |");
                }
                if (byFork) {
                    row.append(' ').append(forksCell(forks, s)).append(" |");
                }
                line(row.toString());
            }
        }

        /** Each fork's number, "a / b / c", or empty. */
        private String forksCell(String table, String system) {
            List<Double> v = perFork.getOrDefault(table, Map.of()).get(system);
            if (v == null) {
                return "";
            }
            return String.join(
                    " / ",
                    v.stream().map(x -> table.equals("throughput") ? fmtRate(x) : fmt(x)).toList());
        }

        void rateTable(String table, String unit) {
            boolean byFork = perFork.containsKey(table);
            line("| system | " + unit + " | vs Sandjar |" + (byFork ? " forks |" : ""));
            line("|---|---:|---:|" + (byFork ? "---:|" : ""));
            for (String s : ALL) {
                if (broken.containsKey(s)) {
                    line("| " + LABEL.get(s) + " | " + brokenCell(s) + " | |");
                } else if (tables.getOrDefault(table, Map.of()).containsKey(s)) {
                    line(
                            "| "
                                    + LABEL.get(s)
                                    + " | "
                                    + fmtRate(get(table, s))
                                    + " | "
                                    + ratio(table, s)
                                    + " |"
                                    + (byFork ? " " + forksCell(table, s) + " |" : ""));
                }
            }
        }

        void memoryTable() {
            line(
                    "| system | heap per idle instance (MiB) | RSS per idle instance (MiB) | peak"
                            + " heap, 4 busy (MiB) | peak RSS, 4 busy (MiB) |");
            line("|---|---:|---:|---:|---:|");
            for (String s : ALL) {
                line(
                        "| "
                                + LABEL.get(s)
                                + " | "
                                + mib("idleHeap", s)
                                + " | "
                                + mib("idleRss", s)
                                + " | "
                                + mib("busyHeap", s)
                                + " | "
                                + mib("busyRss", s)
                                + " |");
            }
        }

        private String mib(String table, String s) {
            Double v = tables.getOrDefault(table, Map.of()).get(s);
            if (v == null) {
                if (broken.containsKey(s)) {
                    return broken.get(s).startsWith("does not start")
                            ? "n/a: does not start on this JDK"
                            : brokenCell(s);
                }
                return s.equals("v8") ? "n/a: Node was not run" : "n/a";
            }
            return String.format(Locale.ROOT, "%.1f", v / (1 << 20));
        }

        private Double get(String table, String system) {
            return tables.getOrDefault(table, Map.of()).get(system);
        }

        void targets() {
            line("| target | measured | met |");
            line("|---|---:|:---:|");
            target(
                    "setup a caller waits, median <= 0.5 ms",
                    get("setup", "sandjar"),
                    0.5,
                    true,
                    " ms");
            target("setup CPU per run <= 1.5 ms", get("setupCpu", "sandjar"), 1.5, true, " ms");
            target("trivial run end to end <= 1.0 ms", get("trivial", "sandjar"), 1.0, true, " ms");
            target(
                    ">= 1,500 trivial runs/s on " + cores + " cores",
                    get("throughput", "sandjar"),
                    1500,
                    false,
                    " /s");
            // Guest speed (issue 18): each compute workload within 3x of the same wasm on V8,
            // fib and strings faster than interpreted Rhino, the rows no slower than the fastest
            // peer, and time to speed within 10 s on both paths.
            for (String w : Workloads.COMPUTE) {
                Double own = get(w, "sandjar");
                Double v8 = get(w, "v8");
                if (own != null && v8 != null) {
                    target(w + " within 3x of the same wasm on V8", own / v8, 3.0, true, "x");
                }
            }
            // Issue 35: with no JVM flags at all, each within 1.25x of the flagged figure
            for (String w : Workloads.COMPUTE) {
                Double own = get(w, "sandjar");
                Double bare = get(w, JsSystem.SANDJAR_NO_FLAGS);
                if (own != null && bare != null) {
                    target(
                            w + " with no JVM flags within 1.25x of the flagged",
                            bare / own,
                            1.25,
                            true,
                            "x");
                }
            }
            for (String w : List.of("fib", "strings")) {
                Double own = get(w, "sandjar");
                Double rhino = get(w, "rhino");
                if (own != null && rhino != null) {
                    target(w + " faster than Rhino", own / rhino, 1.0, true, "x of Rhino");
                }
            }
            String fastest = null;
            for (String peer : ALL) {
                Double v = get("rows", peer);
                if (!peer.equals("sandjar")
                        && v != null
                        && (fastest == null || v < get("rows", fastest))) {
                    fastest = peer;
                }
            }
            if (fastest != null) {
                Double rows = get("rows", "sandjar");
                target(
                        "5,000-row round trip no slower than the fastest peer ("
                                + LABEL.get(fastest)
                                + ", "
                                + fmt(get("rows", fastest))
                                + " ms)",
                        rows == null ? null : rows / get("rows", fastest),
                        1.0,
                        true,
                        "x");
            }
            target(
                    "time to speed, `Sandbox.run` in a new JVM, <= 10 s",
                    cliSpeed.get("libraryTimeToSpeedS"),
                    10,
                    true,
                    " s");
            target(
                    "time to speed, `./sandjar run`, <= 10 s",
                    cliSpeed.get("cliTimeToSpeedS"),
                    10,
                    true,
                    " s");
            target(
                    "command line's steady fib(25) within " + CliSpeed.LIMIT + "x of the library's",
                    cliSpeed.get("ratio"),
                    CliSpeed.LIMIT,
                    true,
                    "x");
        }

        private void target(String what, Double v, double bound, boolean atMost, String unit) {
            if (v == null || v.isNaN()) {
                line("| " + what + " | n/a | ? |");
                return;
            }
            boolean met = atMost ? v <= bound : v >= bound;
            line("| " + what + " | " + fmt(v) + unit + " | " + (met ? "yes" : "no") + " |");
        }

        @Override
        public String toString() {
            return sb.toString();
        }
    }

    private static String fmtRate(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }

    private static String fmt(double v) {
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + ", " + f[1] + ", " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
