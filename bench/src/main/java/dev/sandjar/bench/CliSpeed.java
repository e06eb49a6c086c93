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
 * <p>usage: {@code CliSpeed SECONDS} (from the repository's root; exit 1 when the check fails), or
 * {@code CliSpeed library FILE SECONDS}, the library's side, which prints the program's result.
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

    /** Both sides and the verdict. */
    record Result(int seconds, Side cli, Side library) {
        double ratio() {
            return cli.steadyMs() / library.steadyMs();
        }

        boolean ok() {
            return ratio() <= LIMIT;
        }

        /** The numbers, for the bench's results.json (the archive as 1 or 0). */
        Map<String, Double> numbers() {
            Map<String, Double> m = new LinkedHashMap<>();
            m.put("seconds", (double) seconds);
            for (Side s : List.of(cli, library)) {
                String k = s == cli ? "cli" : "library";
                m.put(k + "FirstMs", s.firstMs());
                m.put(k + "SteadyMs", s.steadyMs());
                m.put(k + "EndMs", s.endMs());
                m.put(k + "TimeToSpeedS", s.timeToSpeedS());
                m.put(k + "Calls", (double) s.calls().size());
            }
            m.put("cliArchive", cli.archive() == null ? 0.0 : 1.0);
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
                    cli.steadyMs(),
                    library.steadyMs(),
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
        if (args.length != 1) {
            System.err.println("usage: CliSpeed SECONDS   (from the repository's root)");
            System.exit(2);
        }
        Path work = Files.createTempDirectory("sandjar-cli-speed");
        Result r = measure(Path.of("."), Integer.parseInt(args[0]), work);
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
     * Runs both sides, the command line first, with the java that runs this class. {@code repo} is
     * the repository's root (where {@code sandjar} is); {@code work} takes the program and each
     * side's calls ({@code cli-calls.json}, {@code library-calls.json}).
     */
    static Result measure(Path repo, int seconds, Path work)
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
        Side c = side("./sandjar run", cli, java, work, "cli-calls.json");
        List<String> lib = new ArrayList<>();
        lib.add(java);
        lib.addAll(BenchMain.FORK_FLAGS);
        lib.add("-cp");
        lib.add(System.getProperty("java.class.path"));
        lib.add(CliSpeed.class.getName());
        lib.add("library");
        lib.add(file.toString());
        lib.add(Integer.toString(seconds));
        Side l = side("Sandbox.run in a new JVM", lib, java, work, "library-calls.json");
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
     * The {@code -XX:SharedArchiveFile} the process's JVM runs with, or null. {@code ./sandjar}
     * execs java, so the process becomes the JVM once the script has picked its flags.
     */
    private static String archiveOf(Process p) throws InterruptedException {
        for (int i = 0; i < 600 && p.isAlive(); i++) {
            ProcessHandle.Info info = p.toHandle().info();
            if (info.command().map(c -> c.endsWith("/java")).orElse(false)) {
                Optional<String> a =
                        info.arguments().stream()
                                .flatMap(Arrays::stream)
                                .filter(x -> x.startsWith("-XX:SharedArchiveFile="))
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
                        + (m.get("cliArchive") > 0 ? "with its CDS archive" : "no CDS archive")
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
                        "| %s | %.0f | %.0f | %.0f | %.1f | %.0f |\n",
                        label,
                        m.get(k + "FirstMs"),
                        m.get(k + "SteadyMs"),
                        m.getOrDefault(k + "EndMs", Double.NaN),
                        m.get(k + "TimeToSpeedS"),
                        m.get(k + "Calls")));
    }

    private static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length == 0 ? Double.NaN : a[a.length / 2];
    }
}
