package dev.sandjar.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.sandjar.host.Limits;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The command line's guest speed against the library's: one guest program that runs fib(25) in a
 * loop for a fixed time, once through {@code ./sandjar run} (its flags and CDS archive, as a user
 * gets them) and once through {@link Sandbox#run} in a new JVM with the bench's fork flags, one
 * after the other. The check fails when the command line's steady state is more than {@link #LIMIT}
 * times the library's.
 *
 * <p>It exists because the command line once stayed ~17x slower for good while every other number
 * of the bench looked right: its CDS archive carried the JIT's queue from the training run, so
 * QuickJS's interpreter loop was never compiled (docs/jvm-flags.md, "The CDS archive and the JIT").
 * The bench's own JVMs do not use the archive, so only a run through the script shows it.
 *
 * <p>Steady state: the lowest median of {@link #WINDOW} calls in a row (see {@link Side#steadyMs});
 * the median of the loop's last quarter is reported beside it. Time to speed: from the process's
 * launch to the start of the first of three calls in a row within 1.5x of the steady state.
 *
 * <p>Draws: both sides can run several times, each in a new JVM, alternating which goes first, and
 * every figure is the median draw. One JVM's time to speed is one draw: on a busy 2-core machine
 * the same command reached speed in 4.6, 6.1 and 40.4 s in three runs (docs/performance.md).
 *
 * <p>usage: {@code CliSpeed SECONDS [DRAWS]} (from the repository's root; exit 1 when the check
 * fails), or {@code CliSpeed library FILE SECONDS}, the library's side, which prints the program's
 * result.
 */
public final class CliSpeed {
    /** The most the command line's steady state may be, in multiples of the library's. */
    static final double LIMIT = 1.5;

    /** Calls in a row whose median is a candidate steady state. */
    static final int WINDOW = 10;

    private static final TypeReference<List<long[]>> CALLS = new TypeReference<>() {};

    private CliSpeed() {}

    /** One side's calls: [start (epoch ms), duration (ms)] each, and when its process launched. */
    record Side(String label, long launchedAt, List<long[]> calls, String archive) {
        /**
         * The speed the JVM settles at: the lowest median of {@link #WINDOW} calls in a row. Not
         * the loop's last calls: on a busy machine C2's code for the interpreter loop arrives
         * anywhere from 10 to 60 s in, and a deoptimisation can slow a few calls again, so the end
         * of one side's loop can still be warming up while the other's is long done.
         */
        double steadyMs() {
            if (calls.size() <= WINDOW) {
                return median(calls.stream().map(c -> (double) c[1]).toList());
            }
            double best = Double.MAX_VALUE;
            for (int i = 0; i + WINDOW <= calls.size(); i++) {
                best =
                        Math.min(
                                best,
                                median(
                                        calls.subList(i, i + WINDOW).stream()
                                                .map(c -> (double) c[1])
                                                .toList()));
            }
            return best;
        }

        /** The median of the calls that started in the last quarter of the loop. */
        double endMs() {
            long first = calls.get(0)[0];
            long last = calls.get(calls.size() - 1)[0];
            long from = first + (last - first) * 3 / 4;
            List<Double> tail = new ArrayList<>();
            for (long[] c : calls) {
                if (c[0] >= from) {
                    tail.add((double) c[1]);
                }
            }
            if (tail.size() < 3) { // a loop of few, slow calls: its last three
                tail.clear();
                for (long[] c : calls.subList(Math.max(0, calls.size() - 3), calls.size())) {
                    tail.add((double) c[1]);
                }
            }
            return median(tail);
        }

        double firstMs() {
            return calls.get(0)[1];
        }

        /** Seconds from launch to the first of three calls in a row within 1.5x of steady. */
        double timeToSpeedS() {
            double bound = 1.5 * steadyMs();
            for (int i = 0; i < calls.size(); i++) {
                boolean fast = true;
                for (int j = i; j < Math.min(i + 3, calls.size()); j++) {
                    fast &= calls.get(j)[1] <= bound;
                }
                if (fast) {
                    return (calls.get(i)[0] - launchedAt) / 1e3;
                }
            }
            return Double.NaN;
        }
    }

    /**
     * Both sides, each run {@code cli.size()} times (draws), and the verdict. Each figure is the
     * median over the draws; the ratio is of the median steady states.
     */
    record Result(int seconds, List<Side> cli, List<Side> library) {
        Result {
            if (cli.isEmpty() || cli.size() != library.size()) {
                throw new IllegalArgumentException(
                        "draws: " + cli.size() + " command line, " + library.size() + " library");
            }
        }

        double ratio() {
            return median(cli, Side::steadyMs) / median(library, Side::steadyMs);
        }

        boolean ok() {
            return ratio() <= LIMIT;
        }

        /**
         * The numbers, for the bench's results.json: each side's medians over the draws (the
         * archive as 1 or 0), and with more than one draw each draw's time to speed and steady
         * state ({@code cliTimeToSpeedS.1}, ...).
         */
        Map<String, Double> numbers() {
            Map<String, Double> m = new LinkedHashMap<>();
            m.put("seconds", (double) seconds);
            m.put("draws", (double) cli.size());
            for (List<Side> sides : List.of(cli, library)) {
                String k = sides == cli ? "cli" : "library";
                m.put(k + "FirstMs", median(sides, Side::firstMs));
                m.put(k + "SteadyMs", median(sides, Side::steadyMs));
                m.put(k + "EndMs", median(sides, Side::endMs));
                m.put(k + "TimeToSpeedS", median(sides, Side::timeToSpeedS));
                m.put(k + "Calls", median(sides, s -> (double) s.calls().size()));
                if (sides.size() > 1) {
                    for (int i = 0; i < sides.size(); i++) {
                        m.put(k + "TimeToSpeedS." + (i + 1), sides.get(i).timeToSpeedS());
                        m.put(k + "SteadyMs." + (i + 1), sides.get(i).steadyMs());
                    }
                }
            }
            m.put("cliArchive", cli.stream().allMatch(c -> c.archive() != null) ? 1.0 : 0.0);
            m.put(
                    "cliAotCache",
                    cli.stream().allMatch(c -> c.archive() != null && c.archive().endsWith(".aot"))
                            ? 1.0
                            : 0.0);
            m.put("ratio", ratio());
            return m;
        }

        String failure() {
            return String.format(
                    Locale.ROOT,
                    "FAIL: guest code through ./sandjar run is %.1fx slower than through the"
                        + " library (steady fib(25) %.0f ms against %.0f ms; the limit is %.1fx)."
                        + " Run ./sandjar with -XX:+PrintCompilation and look for func_251 at tier"
                        + " 4; see docs/jvm-flags.md, \"The CDS archive and the JIT\".",
                    ratio(),
                    median(cli, Side::steadyMs),
                    median(library, Side::steadyMs),
                    LIMIT);
        }
    }

    /** The guest program: fib(25) in a loop for {@code seconds}; its result is the calls. */
    static String program(int seconds) {
        return """
        function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
        const start = Date.now();
        const calls = [];
        while (Date.now() - start < %d) {
          const t0 = Date.now();
          fib(25);
          calls.push([t0, Date.now() - t0]);
        }
        export default calls;
        """
                .formatted(seconds * 1000);
    }

    /** A CPU budget the loop cannot reach: its time plus two minutes of start and compiles. */
    private static long budgetMs(int seconds) {
        return (seconds + 120) * 1000L;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("library")) {
            library(Path.of(args[1]), Integer.parseInt(args[2]));
            return;
        }
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: CliSpeed SECONDS [DRAWS]   (from the repository's root)");
            System.exit(2);
        }
        int draws = args.length == 2 ? Integer.parseInt(args[1]) : 1;
        if (draws < 1 || draws > 9) {
            System.err.println("DRAWS must be 1 to 9, not " + draws);
            System.exit(2);
        }
        Path work = Files.createTempDirectory("sandjar-cli-speed");
        Result r = measure(Path.of("."), Integer.parseInt(args[0]), draws, work);
        System.out.println(table(r));
        System.out.println("Each call, [start (epoch ms), ms]: " + work);
        if (!r.ok()) {
            System.err.println(r.failure());
            System.exit(1);
        }
    }

    /** The library's side, in its own JVM: prints the program's result as JSON. */
    private static void library(Path file, int seconds) throws IOException {
        String code = Files.readString(file, StandardCharsets.UTF_8);
        Limits limits = Limits.builder().timeout(Duration.ofMillis(budgetMs(seconds))).build();
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build()) {
            System.out.println(
                    sandbox.run(
                                    RunRequest.builder(code)
                                            .filename("fib-loop.js")
                                            .limits(limits)
                                            .build())
                            .valueJson());
        }
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    /**
     * Runs both sides {@code draws} times, with the java that runs this class, the command line
     * first in odd draws and the library first in even ones (so neither always meets the machine as
     * the other left it). {@code repo} is the repository's root (where {@code sandjar} is); {@code
     * work} takes the program and each draw's calls ({@code cli-calls-1.json}, {@code
     * library-calls-1.json}, ...).
     */
    static Result measure(Path repo, int seconds, int draws, Path work)
            throws IOException, InterruptedException {
        Path file = work.resolve("fib-loop.js").toAbsolutePath();
        Files.writeString(file, program(seconds), StandardCharsets.UTF_8);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path script = repo.resolve("sandjar").toAbsolutePath();

        // Once unmeasured: makes the archive if this build and JVM have none yet.
        run(cliCommand(script, List.of("run", repo.resolve("examples/hello.js").toString())), java);

        List<String> cli =
                cliCommand(
                        script,
                        List.of(
                                "run",
                                file.toString(),
                                "--timeout-ms",
                                Long.toString(budgetMs(seconds))));
        List<String> lib = new ArrayList<>();
        lib.add(java);
        lib.addAll(BenchMain.FORK_FLAGS);
        lib.add("-cp");
        lib.add(System.getProperty("java.class.path"));
        lib.add(CliSpeed.class.getName());
        lib.add("library");
        lib.add(file.toString());
        lib.add(Integer.toString(seconds));
        List<Side> c = new ArrayList<>();
        List<Side> l = new ArrayList<>();
        for (int d = 1; d <= draws; d++) {
            if (d % 2 == 1) {
                c.add(side("./sandjar run", cli, java, work, "cli-calls-" + d + ".json"));
            }
            l.add(
                    side(
                            "Sandbox.run in a new JVM",
                            lib,
                            java,
                            work,
                            "library-calls-" + d + ".json"));
            if (d % 2 == 0) {
                c.add(side("./sandjar run", cli, java, work, "cli-calls-" + d + ".json"));
            }
        }
        return new Result(seconds, c, l);
    }

    private static List<String> cliCommand(Path script, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(script.toString());
        cmd.addAll(args);
        return cmd;
    }

    private static ProcessBuilder builder(List<String> cmd, String java) {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("JAVA", java); // ./sandjar runs the harness's JDK
        pb.environment().remove("SANDJAR_CDS"); // and its default: the archive on
        return pb;
    }

    private static String run(List<String> cmd, String java)
            throws IOException, InterruptedException {
        Process p = builder(cmd, java).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("failed: " + String.join(" ", cmd));
        }
        return out.trim();
    }

    private static Side side(
            String label, List<String> cmd, String java, Path work, String fileName)
            throws IOException, InterruptedException {
        long launched = System.currentTimeMillis();
        Process p = builder(cmd, java).start();
        String archive = archiveOf(p);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(label + " failed: " + String.join(" ", cmd));
        }
        Files.writeString(work.resolve(fileName), out, StandardCharsets.UTF_8);
        List<long[]> calls = Json.MAPPER.readValue(out.trim(), CALLS);
        if (calls.isEmpty()) {
            throw new IllegalStateException(label + " made no call: " + out);
        }
        return new Side(label, launched, calls, archive);
    }

    /**
     * The {@code -XX:SharedArchiveFile} (its CDS archive) or, on JDK 25+, {@code -XX:AOTCache} (its
     * AOT cache, a {@code .aot} file) the process's JVM runs with, or null. {@code ./sandjar} execs
     * java, so the process becomes the JVM once the script has picked its flags.
     */
    static String archiveOf(Process p) throws InterruptedException {
        for (int i = 0; i < 600 && p.isAlive(); i++) {
            ProcessHandle.Info info = p.toHandle().info();
            if (info.command().map(c -> c.endsWith("/java")).orElse(false)) {
                Optional<String> a =
                        info.arguments().stream()
                                .flatMap(Arrays::stream)
                                .filter(
                                        x ->
                                                x.startsWith("-XX:SharedArchiveFile=")
                                                        || x.startsWith("-XX:AOTCache="))
                                .findFirst();
                return a.map(x -> x.substring(x.indexOf('=') + 1)).orElse(null);
            }
            Thread.sleep(50);
        }
        return null;
    }

    /** The result as a Markdown table and a verdict line. */
    static String table(Result r) {
        return table(r.numbers());
    }

    /** The same from the numbers (as results.json keeps them). */
    static String table(Map<String, Double> m) {
        StringBuilder sb = new StringBuilder();
        sb.append(
                "| path | first call (ms) | steady state (ms) | last quarter (ms) | time to speed"
                        + " (s) | calls |\n");
        sb.append("|---|---:|---:|---:|---:|---:|\n");
        String cliLabel =
                "`./sandjar run` ("
                        + (m.getOrDefault("cliAotCache", 0.0) > 0
                                ? "with its AOT cache"
                                : m.get("cliArchive") > 0
                                        ? "with its CDS archive"
                                        : "no CDS archive")
                        + ")";
        row(sb, cliLabel, m, "cli");
        row(sb, "`Sandbox.run` in a new JVM", m, "library");
        double ratio = m.get("ratio");
        sb.append(
                String.format(
                        Locale.ROOT,
                        "\nCommand line / library, steady state: %.2fx (the check fails above"
                                + " %.1fx): %s\n",
                        ratio,
                        LIMIT,
                        ratio <= LIMIT ? "ok" : "FAILED"));
        return sb.toString();
    }

    private static void row(StringBuilder sb, String label, Map<String, Double> m, String k) {
        sb.append(
                String.format(
                        Locale.ROOT,
                        "| %s | %.0f | %.0f%s | %.0f | %.1f%s | %.0f |\n",
                        label,
                        m.get(k + "FirstMs"),
                        m.get(k + "SteadyMs"),
                        draws(m, k + "SteadyMs.", "%.0f"),
                        m.getOrDefault(k + "EndMs", Double.NaN),
                        m.get(k + "TimeToSpeedS"),
                        draws(m, k + "TimeToSpeedS.", "%.1f"),
                        m.get(k + "Calls")));
    }

    /** Each draw's figure, " (a / b / c)", or nothing when there was one draw. */
    private static String draws(Map<String, Double> m, String prefix, String format) {
        List<String> each = new ArrayList<>();
        for (int i = 1; m.containsKey(prefix + i); i++) {
            each.add(String.format(Locale.ROOT, format, m.get(prefix + i)));
        }
        return each.isEmpty() ? "" : " (" + String.join(" / ", each) + ")";
    }

    private static double median(List<Side> sides, ToDoubleFunction<Side> f) {
        return median(sides.stream().map(f::applyAsDouble).toList());
    }

    private static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length == 0 ? Double.NaN : a[a.length / 2];
    }
}
