package dev.sandjar.bench;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The whole comparison, as {@code bench/run.sh} starts it: the JMH benchmarks, the Node script (the
 * same wasm on V8), cold starts and memory probes in new JVMs, then {@code latest.md}.
 *
 * <p>usage: {@code BenchMain quick|full OUTPUT.md WORK_DIR [NODE_MODULES_DIR]}
 */
public final class BenchMain {
    /** docs/jvm-flags.md: without them QuickJS's interpreter loop is never JIT-compiled. */
    static final List<String> JIT_FLAGS =
            List.of(
                    "-XX:-DontCompileHugeMethods",
                    "-XX:MaxNodeLimit=600000",
                    "-XX:NodeLimitFudgeFactor=20000");

    static final List<String> FORK_FLAGS = concat(JIT_FLAGS, List.of("-Xss4m", "-Xms1g", "-Xmx4g"));

    private record Mode(
            String name,
            int forks,
            int warmups,
            TimeValue warmupTime,
            int iterations,
            TimeValue iterationTime,
            int coldRuns,
            int nodeWarmupMs,
            int nodeMeasureMs,
            int busySeconds) {}

    /**
     * Warm-up is long on purpose: Sandjar's AOT-compiled wasm is thousands of large JVM methods,
     * and C2 needs tens of seconds of a loaded 2-core machine to compile the hot ones.
     */
    private static final Mode QUICK =
            new Mode(
                    "quick",
                    1,
                    6,
                    TimeValue.seconds(2),
                    5,
                    TimeValue.seconds(1),
                    5,
                    3_000,
                    3_000,
                    3);

    private static final Mode FULL =
            new Mode(
                    "full",
                    3,
                    10,
                    TimeValue.seconds(3),
                    10,
                    TimeValue.seconds(2),
                    20,
                    10_000,
                    10_000,
                    10);

    /**
     * Checks the harness end to end in a couple of minutes: tiny workloads, numbers meaningless.
     */
    private static final Mode SMOKE =
            new Mode(
                    "smoke",
                    1,
                    1,
                    TimeValue.milliseconds(200),
                    1,
                    TimeValue.milliseconds(200),
                    1,
                    100,
                    200,
                    1);

    private final Mode mode;
    private final Path work;
    private final Path nodeModules;
    private final Path nodeScripts;
    private final List<String> notes = new ArrayList<>();

    /** Medians by table, then system: milliseconds (or runs/s, or bytes). */
    private final Map<String, Map<String, Double>> tables = new LinkedHashMap<>();

    private final Map<String, String> unsupported = new LinkedHashMap<>();

    /** The systems that start on this JDK, and why the others do not. */
    private final List<String> systems = new ArrayList<>();

    private final Map<String, String> broken = new LinkedHashMap<>();
    private final Map<String, Double> sandjarPhases = new LinkedHashMap<>();
    private String graalImplementation = "n/a";
    private String loadBefore = "?";
    private String loadAfter = "?";
    private int cores = Runtime.getRuntime().availableProcessors();
    private String cpu = cpuModel();
    private String jdk =
            System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");

    private BenchMain(Mode mode, Path work, Path nodeModules, Path nodeScripts) {
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
        Mode mode =
                switch (args[0]) {
                    case "quick" -> QUICK;
                    case "full" -> FULL;
                    case "smoke" -> SMOKE;
                    default ->
                            throw new IllegalArgumentException("mode must be quick, full or smoke");
                };
        Path out = Path.of(args[1]);
        Path work = Path.of(args[2]);
        Files.createDirectories(work);
        Path nodeModules = args.length > 3 ? Path.of(args[3]) : null;
        Path scripts = Path.of(System.getProperty("sandjar.bench.node", "bench/node"));
        BenchMain main = new BenchMain(mode, work, nodeModules, scripts);
        if (mode == SMOKE && !Workloads.tiny()) {
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
        m.put("notes", notes);
        m.put("tables", tables);
        m.put("unsupported", unsupported);
        m.put("broken", broken);
        m.put("sandjarPhases", sandjarPhases);
        Files.writeString(file, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(m));
    }

    /** usage: {@code BenchMain render WORK_DIR/results.json OUTPUT.md} */
    @SuppressWarnings("unchecked")
    private static void render(Path results, Path out) throws IOException {
        Map<String, Object> m = Json.MAPPER.readValue(results.toFile(), Map.class);
        Mode mode =
                switch ((String) m.get("mode")) {
                    case "quick" -> QUICK;
                    case "full" -> FULL;
                    default -> SMOKE;
                };
        BenchMain b = new BenchMain(mode, results.getParent(), null, null);
        b.cores = ((Number) m.get("cores")).intValue();
        b.cpu = (String) m.get("cpu");
        b.jdk = (String) m.get("jdk");
        b.loadBefore = (String) m.get("loadBefore");
        b.loadAfter = (String) m.get("loadAfter");
        b.graalImplementation = (String) m.get("graalImplementation");
        b.notes.addAll((List<String>) m.get("notes"));
        ((Map<String, Map<String, Number>>) m.get("tables"))
                .forEach((t, v) -> v.forEach((sys, x) -> b.put(t, sys, x.doubleValue())));
        b.unsupported.putAll((Map<String, String>) m.get("unsupported"));
        b.broken.putAll((Map<String, String>) m.get("broken"));
        ((Map<String, Number>) m.get("sandjarPhases"))
                .forEach((k, v) -> b.sandjarPhases.put(k, v.doubleValue()));
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
        Path samples = work.resolve("setup-samples.csv");
        Files.deleteIfExists(samples);
        step("JMH: setup and trivial run");
        record(
                jmh(
                        "SetupBench.trivialRun",
                        systems,
                        "-Dsandjar.bench.samples=" + samples.toAbsolutePath()),
                "trivial");
        readSetupSamples(samples);
        step("JMH: trivial-run throughput");
        record(jmh("ThroughputBench.trivialRuns", systems), "throughput");
        step("JMH: guest compute");
        for (RunResult r : jmh("GuestBench.compute", systems)) {
            put(r.getParams().getParam("workload"), r.getParams().getParam("system"), p50(r));
        }
        step("JMH: transport");
        record(jmh("TransportBench.rows", systems), "rows");
        List<String> bytesSystems = new ArrayList<>(systems);
        bytesSystems.removeAll(unsupported.keySet());
        record(jmh("TransportBench.bytes", bytesSystems), "bytes");
        step("Node: the same wasm on V8");
        node();
        step("cold starts");
        coldStarts();
        step("memory");
        memory();
    }

    private static void step(String what) {
        System.out.println("== " + what + " (" + Instant.now() + ")");
    }

    // -------------------------------------------------------------------------------------
    // JMH

    private Collection<RunResult> jmh(String benchmark, List<String> systems, String... jvmArgs)
            throws RunnerException {
        ChainedOptionsBuilder o =
                new OptionsBuilder()
                        .include("^dev\\.sandjar\\.bench\\." + benchmark.replace(".", "\\.") + "$")
                        .param("system", systems.toArray(String[]::new))
                        .forks(mode.forks())
                        .warmupIterations(mode.warmups())
                        .warmupTime(mode.warmupTime())
                        .measurementIterations(mode.iterations())
                        .measurementTime(mode.iterationTime())
                        .jvmArgsAppend(concat(FORK_FLAGS, List.of(jvmArgs)).toArray(String[]::new))
                        .shouldFailOnError(false)
                        .output(work.resolve("jmh-" + benchmark + ".log").toString());
        return new Runner(o.build()).run();
    }

    private void record(Collection<RunResult> results, String table) {
        for (RunResult r : results) {
            String system = r.getParams().getParam("system");
            double v = table.equals("throughput") ? r.getPrimaryResult().getScore() : p50(r);
            put(table, system, v);
        }
    }

    private static double p50(RunResult r) {
        return r.getPrimaryResult().getStatistics().getPercentile(50.0);
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

    private void node() throws IOException, InterruptedException {
        if (nodeModules == null || !Files.isDirectory(nodeModules)) {
            notes.add("The Node peer was not run: no node_modules directory was given.");
            return;
        }
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
            notes.add("The Node peer failed; see the harness's output.");
            return;
        }
        Files.writeString(work.resolve("node-results.json"), out);
        JsonNode r = Json.MAPPER.readTree(out);
        put("trivial", "v8", r.get("trivial").get("median").asDouble());
        put("trivialCpu", "v8", r.get("trivial").get("cpu").asDouble());
        put("setup", "v8", r.get("trivial").get("median").asDouble());
        put("setupCpu", "v8", r.get("trivial").get("cpu").asDouble());
        for (String w : Workloads.COMPUTE) {
            put(w, "v8", r.get(w).get("median").asDouble());
        }
        put("rows", "v8", r.get("rows").get("median").asDouble());
        put("bytes", "v8", r.get("bytes").get("median").asDouble());
        notes.add("Node " + r.get("version").asText() + " (V8), quickjs-emscripten-core 0.32.0.");
    }

    // -------------------------------------------------------------------------------------
    // Cold starts and memory, each in new processes

    private List<String> javaCommand(String mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(FORK_FLAGS);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(Arrays.asList(args));
        return cmd;
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
        boolean node = nodeModules != null && Files.isDirectory(nodeModules);
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
                                : javaCommand(ColdStart.class.getName(), s);
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

    private void memory() throws IOException, InterruptedException {
        int small = 1;
        int large = 9;
        int busyThreads = 4;
        for (String s : systems) {
            long[] a =
                    twoLongs(
                            runProcess(
                                    javaCommand(
                                            MemoryProbe.class.getName(), "idle", s, "" + small)));
            long[] b =
                    twoLongs(
                            runProcess(
                                    javaCommand(
                                            MemoryProbe.class.getName(), "idle", s, "" + large)));
            put("idleHeap", s, (b[0] - a[0]) / (double) (large - small));
            put("idleRss", s, (b[1] - a[1]) / (double) (large - small));
            long[] busy =
                    twoLongs(
                            runProcess(
                                    javaCommand(
                                            MemoryProbe.class.getName(),
                                            "busy",
                                            s,
                                            "" + busyThreads,
                                            "" + mode.busySeconds())));
            put("busyHeap", s, (double) busy[0]);
            put("busyRss", s, (double) busy[1]);
        }
        notes.add(
                "Memory per idle instance = (with "
                        + large
                        + " held - with "
                        + small
                        + " held) / "
                        + (large - small)
                        + ", heap used after GC and resident set size, each in its own JVM. Busy"
                        + " = peaks while "
                        + busyThreads
                        + " threads run the json workload for "
                        + mode.busySeconds()
                        + " s (heap used is sampled without GC, so it includes garbage).");
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
        r.line("- JDK: " + jdk);
        r.line("- JVM flags of every fork and probe: `" + String.join(" ", FORK_FLAGS) + "`");
        r.line(
                String.format(
                        Locale.ROOT,
                        "- JMH 1.37: %d fork(s), %d warm-up x %s, %d measured x %s per benchmark;"
                                + " latencies are the median of JMH's samples (SampleTime)",
                        mode.forks(),
                        mode.warmups(),
                        mode.warmupTime(),
                        mode.iterations(),
                        mode.iterationTime()));
        r.line(
                "- Systems: Sandjar (QuickJS-ng 0.32.0 wasm, Chicory AOT); GraalJS 23.1.8"
                        + " (polyglot API, shared Engine, fresh Context per run; Truffle runtime: "
                        + graalImplementation
                        + "); Rhino 1.9.2 (interpreted, ES6, fresh Context and scope per run);"
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
        r.line("## Against the targets");
        r.line("");
        r.targets();
        return r.toString();
    }

    private record Column(String table, String title) {}

    private static final List<String> ALL =
            List.of("sandjar", "graaljs", "rhino", "quickjs4j", "v8");
    private static final Map<String, String> LABEL =
            Map.of(
                    "sandjar", "Sandjar",
                    "graaljs", "GraalJS (interpreted)",
                    "rhino", "Rhino (interpreted)",
                    "quickjs4j", "quickjs4j",
                    "v8", "same wasm on V8 (Node)");

    private final class Report {
        private final StringBuilder sb = new StringBuilder();

        void line(String s) {
            sb.append(s).append('\n');
        }

        private String cell(String table, String system) {
            Double v = tables.getOrDefault(table, Map.of()).get(system);
            if (v == null || v.isNaN()) {
                if (broken.containsKey(system)) {
                    return "n/a: " + broken.get(system);
                }
                if (table.equals("bytes") && unsupported.containsKey(system)) {
                    return "n/a: " + unsupported.get(system);
                }
                if (system.equals("v8") && table.startsWith("idle")) {
                    return "not measured";
                }
                return "n/a";
            }
            return fmt(v);
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
                line(row.toString());
            }
        }

        void rateTable(String table, String unit) {
            line("| system | " + unit + " | vs Sandjar |");
            line("|---|---:|---:|");
            for (String s : ALL) {
                if (broken.containsKey(s)) {
                    line("| " + LABEL.get(s) + " | n/a: " + broken.get(s) + " | |");
                } else if (tables.getOrDefault(table, Map.of()).containsKey(s)) {
                    line(
                            "| "
                                    + LABEL.get(s)
                                    + " | "
                                    + String.format(Locale.ROOT, "%.0f", get(table, s))
                                    + " | "
                                    + ratio(table, s)
                                    + " |");
                }
            }
        }

        void memoryTable() {
            line(
                    "| system | heap per idle instance (MiB) | RSS per idle instance (MiB) | peak"
                            + " heap, 4 busy (MiB) | peak RSS, 4 busy (MiB) |");
            line("|---|---:|---:|---:|---:|");
            for (String s : JsSystem.NAMES) {
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
            line(
                    "| same wasm on V8 (Node) | not measured | not measured | not measured | not"
                            + " measured |");
        }

        private String mib(String table, String s) {
            Double v = tables.getOrDefault(table, Map.of()).get(s);
            if (v == null) {
                return broken.containsKey(s) ? "n/a: does not start on this JDK" : "n/a";
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
            Double fib = get("fib", "sandjar");
            Double v8 = get("fib", "v8");
            Double rhino = get("fib", "rhino");
            if (fib != null && v8 != null) {
                target("fib(25) within 2.5x of the same wasm on V8", fib / v8, 2.5, true, "x");
            }
            if (fib != null && rhino != null) {
                target("fib(25) faster than Rhino", fib / rhino, 1.0, true, "x of Rhino");
            }
            target("5,000-row round trip < 15 ms", get("rows", "sandjar"), 15, true, " ms");
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
