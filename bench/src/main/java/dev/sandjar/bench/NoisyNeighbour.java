package dev.sandjar.bench;

import dev.sandjar.server.cli.SandjarCli;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Issue 34's noisy neighbour: a real {@code sandjar serve} in a JVM of its own with {@code -Xmx1g}
 * and a pool of two engines, one tenant sending each of the review's bombs ({@link Bombs}) in a
 * loop from two clients, another tenant sending ordinary runs ({@code return 1}) from one. First
 * the ordinary tenant alone, then both for as long: its runs must all succeed, and their latency is
 * reported beside its solo latency. Also reported: what each bomb met, whether the server logged an
 * {@code OutOfMemoryError}, and whether it was still up at the end.
 *
 * <p>{@code bench/noisy-neighbour.sh} runs it at full size; {@code NoisyNeighbourTest} at small
 * size in {@code mvn verify}, asserting the outcomes and no timing.
 *
 * <p>usage: {@code NoisyNeighbour [SECONDS] [SCALE] [OUT] [BOMB,...]}: SECONDS per phase (default
 * 60; each phase is three slices, alone and beside the bombs alternating, after a quarter phase of
 * unmeasured warm-up), SCALE of the bombs (default 4: the review's sizes), OUT the report (default
 * {@code bench/results/noisy-neighbour.md}), and optionally the bombs to send (names as in {@link
 * Bombs#bodies}, comma-separated; default all), to see which one costs the other tenant what.
 */
public final class NoisyNeighbour {
    static final String QUIET = "quiet-tenant-token";
    static final String NOISY = "noisy-tenant-token";
    private static final String ORDINARY = "{\"code\": \"return 1\"}";

    /** Alone and beside-the-bombs slices per run, alternating. */
    private static final int SLICES = 3;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** What one run of the scenario found. */
    public record Report(
            long[] soloNanos,
            long[] noisyNanos,
            int quietFailures,
            List<String> quietFailureSamples,
            Map<String, Map<String, Integer>> bombOutcomes,
            int noisyRefused,
            boolean serverUp,
            boolean serverOutOfMemory,
            String serverLogTail) {

        double p(long[] xs, double q) {
            return xs.length == 0
                    ? Double.NaN
                    : xs[(int) Math.min(xs.length - 1, q * xs.length)] / 1e6;
        }

        String markdown(long seconds, int scale) {
            StringBuilder r = new StringBuilder("# Noisy neighbour (issue 34)\n\n");
            r.append(
                    String.format(
                            Locale.ROOT,
                            "- `sandjar serve` with -Xmx1g, --pool 2, --host-workers 2; %d s per"
                                    + " phase; bombs at scale %d; java %s, %d cores%n%n",
                            seconds,
                            scale,
                            System.getProperty("java.version"),
                            Runtime.getRuntime().availableProcessors()));
            r.append(
                    "| ordinary runs (`return 1`) | runs | p50 ms | p99 ms |\n"
                            + "|---|---:|---:|---:|\n");
            r.append(
                    String.format(
                            Locale.ROOT,
                            "| alone | %d | %.2f | %.2f |%n| beside the bombs | %d | %.2f | %.2f"
                                    + " |%n",
                            soloNanos.length,
                            p(soloNanos, 0.5),
                            p(soloNanos, 0.99),
                            noisyNanos.length,
                            p(noisyNanos, 0.5),
                            p(noisyNanos, 0.99)));
            r.append(
                    String.format(
                            Locale.ROOT,
                            "%n- p99 beside the bombs / alone: **%.2fx**; ordinary runs that"
                                    + " failed: %d%n",
                            p(noisyNanos, 0.99) / p(soloNanos, 0.99),
                            quietFailures));
            r.append("- bomb runs refused at the noisy tenant's own cap (429): ");
            r.append(noisyRefused).append("\n");
            r.append("- the server was up at the end: ").append(serverUp);
            r.append("; it logged an OutOfMemoryError: ").append(serverOutOfMemory).append("\n\n");
            r.append("| bomb | what it met (count) |\n|---|---|\n");
            bombOutcomes.forEach(
                    (k, v) -> r.append("| ").append(k).append(" | ").append(v).append(" |\n"));
            return r.toString();
        }
    }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 60;
        int scale = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        Path out = Path.of(args.length > 2 ? args[2] : "bench/results/noisy-neighbour.md");
        Path dir = Files.createTempDirectory("sandjar-noisy");
        List<String> only = args.length > 3 ? List.of(args[3].split(",")) : List.of();
        Report r =
                new NoisyNeighbour()
                        .run(dir, Duration.ofSeconds(seconds), scale, only, System.out::println);
        String md = r.markdown(seconds, scale);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, md);
        System.out.print(md);
    }

    /** Starts the server, runs both phases, stops the server. */
    public Report run(Path dir, Duration phase, int scale, Consumer<String> progress)
            throws IOException, InterruptedException {
        return run(dir, phase, scale, List.of(), progress);
    }

    /** {@link #run(Path, Duration, int, Consumer)} with only the named bombs (all when empty). */
    public Report run(
            Path dir, Duration phase, int scale, List<String> only, Consumer<String> progress)
            throws IOException, InterruptedException {
        Path tokens = dir.resolve("tokens.json");
        Files.writeString(
                tokens,
                "{\"tokens\": [{\"name\": \"quiet\", \"sha256\": \""
                        + sha256(QUIET)
                        + "\"}, {\"name\": \"noisy\", \"sha256\": \""
                        + sha256(NOISY)
                        + "\"}]}");
        Path log = dir.resolve("server.log");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(BenchMain.JIT_FLAGS);
        if (Runtime.version().feature() >= 24) {
            cmd.add(BenchMain.UNSAFE_FLAG);
        }
        cmd.addAll(List.of("-Xss4m", "-Xmx1g"));
        String extra = System.getProperty("sandjar.bench.serverJvmOptions", "").trim();
        if (!extra.isEmpty()) {
            cmd.addAll(List.of(extra.split("\\s+"))); // e.g. a GC log, for a look inside
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
        cmd.add(SandjarCli.class.getName());
        cmd.addAll(
                List.of(
                        "serve",
                        "--port",
                        "0",
                        "--pool",
                        "2",
                        "--host-workers",
                        "2",
                        "--warm-up-ms",
                        "0",
                        "--tokens",
                        tokens.toString()));
        Process server = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        try {
            String base = listening(server);
            progress.accept("server at " + base);
            Map<String, String> bombs = Bombs.bodies(scale);
            if (!only.isEmpty()) {
                bombs.keySet().retainAll(only);
            }
            List<String> failures = new ArrayList<>();
            // Unmeasured: the engines, the JIT and the HTTP path warm up first.
            ordinary(base, phase.dividedBy(4), new ArrayList<>(), () -> true, phase);
            Map<String, Map<String, Integer>> outcomes = new ConcurrentHashMap<>();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicBoolean firing = new AtomicBoolean();
            java.util.concurrent.atomic.AtomicInteger inFlight =
                    new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger refused =
                    new java.util.concurrent.atomic.AtomicInteger();
            List<Thread> noisy = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int first = t;
                Thread th =
                        new Thread(
                                () -> {
                                    List<String> names = new ArrayList<>(bombs.keySet());
                                    for (int i = first; !stop.get(); i++) {
                                        if (!firing.get()) {
                                            sleep(20);
                                            i--;
                                            continue;
                                        }
                                        String name = names.get(i % names.size());
                                        inFlight.incrementAndGet();
                                        String outcome;
                                        try {
                                            outcome = outcome(base, bombs.get(name));
                                        } finally {
                                            inFlight.decrementAndGet();
                                        }
                                        if (outcome.equals("HTTP 429")) {
                                            // the tenant at its own cap: this bomb, later
                                            refused.incrementAndGet();
                                            sleep(50);
                                            i--;
                                            continue;
                                        }
                                        outcomes.computeIfAbsent(name, k -> new TreeMap<>())
                                                .merge(outcome, 1, Integer::sum);
                                    }
                                },
                                "noisy-" + t);
                th.start();
                noisy.add(th);
            }
            // Alone and beside the bombs in alternating slices, so the JIT's progress and the
            // machine's load fall on both; the last beside-slice lasts until every bomb went off.
            List<long[]> alone = new ArrayList<>();
            List<long[]> beside = new ArrayList<>();
            Duration slice = phase.dividedBy(SLICES);
            try {
                for (int round = 0; round < SLICES; round++) {
                    firing.set(false);
                    while (inFlight.get() > 0) {
                        sleep(20); // no bomb of the last slice reaches into this one
                    }
                    progress.accept("round " + (round + 1) + ": the ordinary tenant alone");
                    alone.add(ordinary(base, slice, failures, () -> true, slice));
                    progress.accept("round " + (round + 1) + ": beside the bombs");
                    firing.set(true);
                    boolean last = round == SLICES - 1;
                    beside.add(
                            ordinary(
                                    base,
                                    slice,
                                    failures,
                                    () -> !last || outcomes.keySet().containsAll(bombs.keySet()),
                                    phase.multipliedBy(2)));
                }
            } finally {
                stop.set(true);
                for (Thread th : noisy) {
                    th.join(120_000);
                }
            }
            long[] solo = merged(alone);
            long[] withBombs = merged(beside);
            boolean up = status(base + "/healthz") == 200;
            String logText = Files.readString(log);
            return new Report(
                    solo,
                    withBombs,
                    failures.size(),
                    failures.subList(0, Math.min(5, failures.size())),
                    new TreeMap<>(outcomes),
                    refused.get(),
                    up && server.isAlive(),
                    logText.contains("OutOfMemoryError"),
                    logText.length() > 4000 ? logText.substring(logText.length() - 4000) : logText);
        } finally {
            server.destroy();
            if (!server.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    /**
     * The ordinary tenant's runs for {@code phase}, and on until {@code enough} (at most {@code
     * most}): their latencies, sorted; failures collected.
     */
    private long[] ordinary(
            String base,
            Duration phase,
            List<String> failures,
            java.util.function.BooleanSupplier enough,
            Duration most) {
        ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
        long start = System.nanoTime();
        while (System.nanoTime() - start < phase.toNanos()
                || (!enough.getAsBoolean() && System.nanoTime() - start < most.toNanos())) {
            long t0 = System.nanoTime();
            HttpResponse<String> r = post(base, QUIET, ORDINARY);
            long t = System.nanoTime() - t0;
            if (r == null || r.statusCode() != 200 || !r.body().contains("\"ok\":true")) {
                failures.add(r == null ? "no answer" : r.statusCode() + " " + r.body());
            } else {
                lat.add(t);
            }
        }
        long[] a = lat.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a;
    }

    /** What a bomb's run met: its value (the error the guest caught), or its run error. */
    private String outcome(String base, String body) {
        HttpResponse<String> r = post(base, NOISY, body);
        if (r == null) {
            return "no answer";
        }
        String b = r.body();
        if (r.statusCode() != 200) {
            return "HTTP " + r.statusCode();
        }
        int v = b.indexOf("\"value\":\"");
        if (v >= 0) {
            return b.substring(v + 9, b.indexOf('"', v + 9));
        }
        int k = b.indexOf("\"kind\":\"");
        if (k < 0) {
            return b;
        }
        String kind = b.substring(k + 8, b.indexOf('"', k + 8));
        int m = b.indexOf("\"message\":\"");
        return kind.equals("TIMEOUT") || m < 0
                ? "run " + kind
                : "run " + kind + ": " + b.substring(m + 11, Math.min(b.length(), m + 131));
    }

    private HttpResponse<String> post(String base, String token, String body) {
        try {
            return http.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/runs"))
                            .timeout(Duration.ofSeconds(120))
                            .header("Authorization", "Bearer " + token)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private int status(String url) {
        try {
            return http.send(
                            HttpRequest.newBuilder(URI.create(url))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String listening(Process p) throws IOException {
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null || !line.startsWith("listening on ")) {
            throw new IOException("the server did not start: " + line);
        }
        return line.substring("listening on ".length()).trim();
    }

    private static long[] merged(List<long[]> parts) {
        long[] all = parts.stream().flatMapToLong(Arrays::stream).toArray();
        Arrays.sort(all);
        return all;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String sha256(String s) {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Unused outside tests: the bombs' expected outcomes at any scale. */
    static Map<String, String> expected() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("pdf q-bomb", "RangeError INPUT_TOO_LARGE");
        m.put("png zTXt bomb", "RangeError INPUT_TOO_LARGE");
        m.put("image.grid of large blanks", "MediaError TOO_LARGE");
        m.put("canvas dash bomb", "MediaError LIMIT");
        m.put("synchronous getImageData after heavy drawing", "run TIMEOUT");
        m.put("csv parse past hostBytes", "RangeError HOST_MEMORY_LIMIT");
        return m;
    }
}
