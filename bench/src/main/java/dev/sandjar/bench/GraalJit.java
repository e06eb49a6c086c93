package dev.sandjar.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The "GraalJS (JIT)" column: GraalJS 25 with Truffle's optimizing runtime and the Graal compiler
 * (a jar from the registry, JVMCI enabled), in JVMs of its own on Temurin 25, whatever JDK runs the
 * rest of the bench. Stock OpenJDK ships no Graal compiler, so the bench's GraalJS 23.1.8 runs
 * interpreted; this is what a GraalJS user on a stock JDK gets once they add the compiler.
 *
 * <p>{@code bench/run.sh} resolves the jars ({@code bench/graaljs-jit/pom.xml}) and names them with
 * system properties: {@value #JAVA} (that JDK's {@code bin/java}), {@value #JARS} (the directory
 * with {@code upgrade/}, the compiler for {@code --upgrade-module-path}, and {@code modules/},
 * GraalJS for {@code --module-path}) and {@value #CLASSPATH} (a file holding the bench's class path
 * without GraalJS 23.1.8).
 *
 * <p>As a main class this is the column's proof, which the harness runs in such a JVM before any
 * fork: {@code GraalJit SECONDS} starts the column's engine ({@link GraalSystem} refuses one whose
 * Truffle fell back to the interpreter, with the engine's warning), then runs fib(25), a fresh
 * context each run, for SECONDS on an engine with compilation switched off (its number: the median
 * of the last quarter of the runs), then on the column's engine for at least SECONDS, and on until
 * the median of its last 5 runs is {@link #MIN_SPEEDUP} times faster or {@link #LIMIT_SECONDS} have
 * passed (its number: that median). It prints one line of JSON with both, the runtime's name and
 * the JDK. It prints {@code {"error": ...}} when the engine does not start.
 */
public final class GraalJit {
    /** The column's name in {@link JsSystem#create} and the report. */
    static final String SYSTEM = "graaljs-jit";

    static final String JAVA = "sandjar.bench.graaljsJit.java";
    static final String JARS = "sandjar.bench.graaljsJit.jars";
    static final String CLASSPATH = "sandjar.bench.graaljsJit.classpath";

    /** The proof's bound: the compiled fib(25) must be at least this many times faster. */
    static final double MIN_SPEEDUP = 2.0;

    private final Path java;
    private final Path jars;
    private final String classPath;

    private GraalJit(Path java, Path jars, String classPath) {
        this.java = java;
        this.jars = jars;
        this.classPath = classPath;
    }

    /** The column's JVM setup from the system properties, checked as {@link #of} does. */
    static GraalJit fromProperties() {
        return of(
                System.getProperty(JAVA), System.getProperty(JARS), System.getProperty(CLASSPATH));
    }

    /**
     * The column's JVM setup: that JDK's java, the jars' directory and the class path file; null
     * for a property that was not set.
     *
     * @throws IllegalStateException naming what is missing, for the report
     */
    static GraalJit of(String java, String jars, String classPath) {
        if (java == null || jars == null || classPath == null) {
            throw new IllegalStateException(
                    "not set up: bench/run.sh sets " + JAVA + ", " + JARS + " and " + CLASSPATH);
        }
        if (!Files.isExecutable(Path.of(java))) {
            throw new IllegalStateException("no JDK 25 at " + java);
        }
        for (String dir : List.of("upgrade", "modules")) {
            if (!Files.isDirectory(Path.of(jars, dir))) {
                throw new IllegalStateException(
                        "the GraalJS 25 jars were not resolved ("
                                + Path.of(jars, dir)
                                + " is missing; see bench/run.sh's output)");
            }
        }
        if (!Files.isRegularFile(Path.of(classPath))) {
            throw new IllegalStateException("no class path file " + classPath);
        }
        try {
            return new GraalJit(
                    Path.of(java), Path.of(jars), Files.readString(Path.of(classPath)).trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The command that runs {@code mainClass} in one of the column's JVMs: its java, the given
     * flags, then JVMCI with the Graal compiler upgraded in, GraalJS 25 on the module path and the
     * bench's classes on the class path.
     */
    List<String> command(List<String> flags, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(flags);
        // The fork flags already hold the Unsafe flag when the bench itself runs on JDK 24+.
        jvmFlags(modulePath(jars.resolve("upgrade")), modulePath(jars.resolve("modules"))).stream()
                .filter(f -> !cmd.contains(f))
                .forEach(cmd::add);
        cmd.add("-cp");
        cmd.add(Path.of("bench", "target", "classes").toAbsolutePath() + ":" + classPath);
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /**
     * The flags that give a stock JDK 25 Truffle's optimizing runtime: {@code compiler} is the
     * Graal compiler's jars, {@code graalJs} GraalJS's, each as a module path.
     */
    static List<String> jvmFlags(String compiler, String graalJs) {
        return List.of(
                "-XX:+UnlockExperimentalVMOptions",
                "-XX:+EnableJVMCI",
                "--upgrade-module-path=" + compiler,
                "--module-path=" + graalJs,
                "--add-modules=org.graalvm.polyglot",
                // Truffle loads its native helpers and uses Unsafe: without these JDK 25 prints
                // warnings on every start.
                "--enable-native-access=org.graalvm.truffle",
                BenchMain.UNSAFE_FLAG);
    }

    private static String modulePath(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return String.join(
                    ":",
                    files.filter(f -> f.toString().endsWith(".jar"))
                            .map(f -> f.toAbsolutePath().toString())
                            .sorted()
                            .toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** GraalJS's version, from the polyglot jar's name, e.g. "25.0.3". */
    String version() {
        try (Stream<Path> files = Files.list(jars.resolve("modules"))) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.startsWith("polyglot-") && n.endsWith(".jar"))
                    .map(n -> n.substring("polyglot-".length(), n.length() - ".jar".length()))
                    .findFirst()
                    .orElse("?");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void main(String[] args) {
        double seconds = Double.parseDouble(args[0]);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put(
                "jdk",
                System.getProperty("java.vm.name")
                        + " "
                        + System.getProperty("java.runtime.version"));
        String fib = Workloads.body("fib", 25);
        // The column's engine first: when Truffle runs interpreted it fails with the reason (the
        // engine without compilation would fail too, only on its unknown option).
        try (GraalSystem jit = new GraalSystem(true);
                GraalSystem off = GraalSystem.withoutCompilation()) {
            out.put("implementation", jit.implementation());
            List<Double> interpreted = run(off, fib, seconds, ms -> false);
            double offMs =
                    median(interpreted.subList(interpreted.size() * 3 / 4, interpreted.size()));
            out.put("interpretedMs", offMs);
            // The Graal compiler is Java code that warms up itself: on a loaded machine the
            // first compilations take tens of seconds, so this side may run longer, up to a limit.
            long start = System.nanoTime();
            List<Double> compiled =
                    run(
                            jit,
                            fib,
                            Math.max(LIMIT_SECONDS, seconds),
                            ms ->
                                    System.nanoTime() - start > seconds * 1e9
                                            && ms.size() >= LAST
                                            && median(last(ms)) * MIN_SPEEDUP <= offMs);
            out.put("compiledMs", median(last(compiled)));
            out.put("compiledSeconds", (System.nanoTime() - start) / 1e9);
        } catch (RuntimeException e) {
            out.put("error", e.getMessage());
        }
        System.out.println(Json.write(out));
        System.out.flush();
        Runtime.getRuntime().halt(0); // Truffle's compiler threads may linger
    }

    /** How long the compiled side of the proof may run for its speed-up. */
    static final double LIMIT_SECONDS = 90;

    /** The compiled side's number: the median of its last this many runs. */
    private static final int LAST = 5;

    /**
     * Runs {@code body} (fib(25), checked) for {@code seconds}, or until {@code done} says so; each
     * run's ms.
     */
    private static List<Double> run(
            GraalSystem js, String body, double seconds, Predicate<List<Double>> done) {
        List<Double> ms = new ArrayList<>();
        long end = System.nanoTime() + (long) (seconds * 1e9);
        do {
            long t0 = System.nanoTime();
            Object r = js.eval(body);
            ms.add((System.nanoTime() - t0) / 1e6);
            if (!"75025".equals(r)) {
                throw new IllegalStateException("fib(25) returned " + r);
            }
        } while ((System.nanoTime() < end || ms.size() < 4) && !done.test(ms));
        return ms;
    }

    private static List<Double> last(List<Double> ms) {
        return ms.subList(Math.max(0, ms.size() - LAST), ms.size());
    }

    private static double median(List<Double> ms) {
        double[] v = ms.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v[v.length / 2];
    }

    /** The proof's verdict on the probe's output: null when the optimizing runtime is shown on. */
    static String verdict(Map<String, Object> probe) {
        Object error = probe.get("error");
        if (error != null) {
            return error.toString();
        }
        Object impl = probe.get("implementation");
        if (impl == null || impl.equals(GraalSystem.INTERPRETED)) {
            return "Truffle runs interpreted (implementation " + impl + ")";
        }
        double off = ((Number) probe.get("interpretedMs")).doubleValue();
        double on = ((Number) probe.get("compiledMs")).doubleValue();
        if (on * MIN_SPEEDUP > off) {
            return String.format(
                    Locale.ROOT,
                    "no speed-up from the compiler: fib(25) %.1f ms compiled against %.1f ms with"
                            + " engine.Compilation=false (at least %.0fx expected)",
                    on,
                    off,
                    MIN_SPEEDUP);
        }
        return null;
    }
}
