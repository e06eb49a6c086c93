package dev.sandjar.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.bridges.Capabilities;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.WarmUpReport;
import dev.sandjar.server.Policy;
import dev.sandjar.server.SandjarServer;
import dev.sandjar.server.Tokens;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Trivial runs ({@code return 1 + 1}) through a {@link SandjarServer} over loopback, beside the
 * same runs through {@link Sandbox#run} in the same process: throughput and p50/p99 latency for N
 * concurrent clients, over JSON and over Server-Sent Events. {@code bench/server-load.sh} builds
 * and starts it; not part of {@code mvn verify}.
 *
 * <p>usage: {@code ServerLoad [SECONDS] [CLIENTS] [POOL] [WARMUP] [SSE_CLIENTS] [OUT]}: SECONDS per
 * measured window (default 15), CLIENTS the concurrency levels (default {@code 1,2,4,8,16}), POOL
 * the engine instances (default one per core), WARMUP seconds of {@link Sandbox#warmUp} (default
 * 45), SSE_CLIENTS the levels for SSE runs (default {@code 1,8}), OUT the report (default {@code
 * bench/results/server-load.md}). After {@link Sandbox#warmUp} (the engine's code), unmeasured
 * passes warm the rest: 30 s of HTTP runs from four clients per engine (Jetty's, Javalin's, the
 * server's, the HttpClient's code), 5 s in process, 5 s over SSE; none longer than WARMUP.
 *
 * <p>The server and the in-process runs share one {@link Sandbox} (the server is given it), so both
 * use the same engines, and the in-process request has what the server gives a run of a token with
 * the default capabilities: the same bridges (hence the same template) and the sandbox's default
 * limits. What is left between the two columns is HTTP, JSON and the threads in between. The
 * clients run in the same JVM, on the same cores, as the server: their CPU (the JDK HttpClient,
 * parsing each answer) is part of the HTTP column, as it would be of any machine that both sends
 * and serves. Each level's HTTP and in-process figures are three slices each of SECONDS / 3,
 * alternating, so the machine's load and the JIT's progress fall on both; a slice starts with half
 * a second unmeasured (threads started, connections opened). An SSE level is one slice of SECONDS.
 */
public final class ServerLoad {
    private static final String CODE = "return 1 + 1";
    private static final String TOKEN = "t0k3n";

    /** Unmeasured at the start of each slice: threads start, connections open. */
    private static final Duration SETTLE = Duration.ofMillis(500);

    /** HTTP and in-process slices per level, alternating; their union is the level's figure. */
    private static final int ROUNDS = 3;

    /** How many failures of a window are printed (all are counted). */
    private static final int SHOWN_ERRORS = 3;

    /** How a client reaches the sandbox. */
    private enum Via {
        JSON("HTTP, JSON"),
        SSE("HTTP, SSE"),
        IN_PROCESS("in process");

        final String label;

        Via(String label) {
            this.label = label;
        }
    }

    /**
     * Where the process's CPU goes, by thread name: the load's client threads and the JDK
     * HttpClient's, Jetty's, the sandbox's engines', and the rest of the process (JIT compilers,
     * GC, the sandbox's timer: the process's CPU time less the first three).
     */
    private enum Cpu {
        CLIENTS("clients"),
        JETTY("Jetty"),
        ENGINE("engines"),
        REST("rest");

        final String label;

        Cpu(String label) {
            this.label = label;
        }

        static Cpu of(String threadName) {
            if (threadName.startsWith(CLIENT_THREAD) || threadName.startsWith("HttpClient-")) {
                return CLIENTS;
            }
            if (threadName.startsWith("JettyServerThreadPool")) {
                return JETTY;
            }
            return threadName.startsWith("sandjar-engine-") ? ENGINE : REST;
        }
    }

    private static final String CLIENT_THREAD = "load-client-";

    /**
     * One measured window: the successful runs' latencies (sorted), failures, time, and CPU
     * nanoseconds by {@link Cpu} group.
     */
    private record Window(
            Via path, int clients, long[] nanos, long errors, double seconds, long[] cpu) {
        /** This window and a later one of the same path and clients, as one. */
        Window plus(Window later) {
            long[] both = Arrays.copyOf(nanos, nanos.length + later.nanos.length);
            System.arraycopy(later.nanos, 0, both, nanos.length, later.nanos.length);
            Arrays.sort(both);
            return new Window(
                    path,
                    clients,
                    both,
                    errors + later.errors,
                    seconds + later.seconds,
                    cpuSum(cpu, later.cpu));
        }

        double rate() {
            return nanos.length / seconds;
        }

        double millis(double quantile) {
            if (nanos.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.ceil(quantile * nanos.length) - 1;
            return nanos[Math.max(0, Math.min(nanos.length - 1, i))] / 1e6;
        }

        /** CPU per successful run of one group, in microseconds. */
        double cpuMicros(Cpu group) {
            return nanos.length == 0 ? Double.NaN : cpu[group.ordinal()] / 1e3 / nanos.length;
        }

        /** The whole process's CPU per successful run, in microseconds. */
        double cpuMicros() {
            return nanos.length == 0 ? Double.NaN : Arrays.stream(cpu).sum() / 1e3 / nanos.length;
        }
    }

    /** One call of a client: true when it answered {@code 2}; throws or returns false otherwise. */
    private interface Call {
        boolean call() throws Exception;
    }

    private final Sandbox sandbox;
    private final HttpClient http;
    private final URI runs;
    private final ExecutorService clients;

    /** The first few failures since the last window printed. */
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();

    private final AtomicLong failuresSeen = new AtomicLong();

    private ServerLoad(Sandbox sandbox, URI runs, int maxClients) {
        this.sandbox = sandbox;
        this.runs = runs;
        this.http =
                HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(5))
                        .build();
        AtomicLong made = new AtomicLong();
        this.clients =
                Executors.newFixedThreadPool(
                        maxClients,
                        r -> {
                            Thread t = new Thread(r, CLIENT_THREAD + made.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        });
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int[] levels = args.length > 1 ? levels(args[1]) : new int[] {1, 2, 4, 8, 16};
        int pool = args.length > 2 ? Integer.parseInt(args[2]) : cores();
        int warmUpSeconds = args.length > 3 ? Integer.parseInt(args[3]) : 45;
        int[] sseLevels = args.length > 4 ? levels(args[4]) : new int[] {1, 8};
        Path out = Path.of(args.length > 5 ? args[5] : "bench/results/server-load.md");
        Duration window = Duration.ofSeconds(seconds);
        int maxClients = Math.max(max(levels), max(sseLevels));
        // The server logs a line per request (INFO); thousands a second would measure the terminal.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }

        double load0 = loadAverage();
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        List<Window> json = new ArrayList<>();
        List<Window> inProcess = new ArrayList<>();
        List<Window> sse = new ArrayList<>();
        WarmUpReport warm;
        // A queue of maxClients: every client's run is admitted (a 429 would mean it is not).
        int queue = maxClients;
        try (Sandbox sandbox = Sandbox.builder().poolSize(pool).build()) {
            int slots = pool + queue;
            Policy policy =
                    new Policy(
                            Set.copyOf(Capabilities.DEFAULTS),
                            Set.of(),
                            sandbox.ceilings().timeout().toMillis(),
                            sandbox.ceilings().heapBytes() >> 20,
                            Optional.empty(),
                            slots);
            SandjarServer server =
                    SandjarServer.builder()
                            .sandbox(sandbox)
                            .queue(queue)
                            .port(0)
                            .bind("127.0.0.1")
                            .tokens(Tokens.of(List.of(Tokens.token("load", TOKEN, policy))))
                            .warmUp(Duration.ZERO)
                            .build()
                            .start();
            ServerLoad load =
                    new ServerLoad(sandbox, URI.create(server.url() + "/api/runs"), maxClients);
            try {
                System.out.printf(
                        "server-load: %s, pool %d, queue %d, clients %s, SSE clients %s, %d s"
                                + " windows; load average %.1f%n",
                        server.url(),
                        pool,
                        queue,
                        Arrays.toString(levels),
                        Arrays.toString(sseLevels),
                        seconds,
                        load0);
                System.out.printf("warm-up: Sandbox.warmUp(%d s) ...%n", warmUpSeconds);
                warm = sandbox.warmUp(Duration.ofSeconds(warmUpSeconds));
                System.out.printf(
                        "warm-up: %,d runs, %,d parses; then HTTP %d s, in process and SSE %d s"
                                + " each, unmeasured%n",
                        warm.runs(),
                        warm.parses(),
                        httpPass(warmUpSeconds),
                        otherPass(warmUpSeconds));
                System.out.println(
                        "path          clients   runs/s   p50 ms   p99 ms  CPU µs/run = clients"
                                + " Jetty engines rest  errors");
                load.print(
                        load.slice(
                                Via.JSON,
                                Math.min(4 * pool, maxClients),
                                Duration.ofSeconds(httpPass(warmUpSeconds))));
                Duration other = Duration.ofSeconds(otherPass(warmUpSeconds));
                load.print(load.slice(Via.IN_PROCESS, pool, other));
                load.print(load.slice(Via.SSE, max(sseLevels), other));
                System.out.println("(the above: warm-up, not reported)");
                Duration slice = window.dividedBy(ROUNDS);
                for (int n : levels) {
                    Window h = null;
                    Window p = null;
                    for (int r = 0; r < ROUNDS; r++) {
                        Window hr = load.slice(Via.JSON, n, slice);
                        Window pr = load.slice(Via.IN_PROCESS, n, slice);
                        h = h == null ? hr : h.plus(hr);
                        p = p == null ? pr : p.plus(pr);
                    }
                    json.add(load.print(h));
                    inProcess.add(load.print(p));
                }
                for (int n : sseLevels) {
                    sse.add(load.print(load.slice(Via.SSE, n, window)));
                }
            } finally {
                load.clients.shutdownNow();
                server.stop();
            }
        }
        double load1 = loadAverage();
        String report =
                report(
                        started,
                        (System.nanoTime() - t0) / 1e9,
                        pool,
                        queue,
                        seconds,
                        warmUpSeconds,
                        warm,
                        load0,
                        load1,
                        json,
                        inProcess,
                        sse);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report);
        System.out.println();
        System.out.print(report);
        System.out.println("wrote " + out);
    }

    /**
     * Runs {@code clients} callers of {@code path} for {@link #SETTLE} and then {@code window},
     * measured: runs that start in the window count, the window ends when the last of them ends.
     */
    private Window slice(Via path, int clients, Duration window) throws Exception {
        Call call =
                switch (path) {
                    case JSON -> this::json;
                    case SSE -> this::sse;
                    case IN_PROCESS -> this::inProcess;
                };
        System.gc();
        long measureFrom = System.nanoTime() + SETTLE.toNanos();
        long until = measureFrom + window.toNanos();
        AtomicLong errors = new AtomicLong();
        List<Future<long[]>> work = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            work.add(
                    this.clients.submit(
                            () -> {
                                long[] lat = new long[1024];
                                int n = 0;
                                long start;
                                while ((start = System.nanoTime()) < until) {
                                    boolean ok;
                                    try {
                                        ok = call.call();
                                    } catch (IOException | RuntimeException e) {
                                        fail(e.toString());
                                        ok = false;
                                    }
                                    long took = System.nanoTime() - start;
                                    if (start < measureFrom) {
                                        continue;
                                    }
                                    if (!ok) {
                                        errors.incrementAndGet();
                                        continue;
                                    }
                                    if (n == lat.length) {
                                        lat = Arrays.copyOf(lat, n * 2);
                                    }
                                    lat[n++] = took;
                                }
                                return Arrays.copyOf(lat, n);
                            }));
        }
        long wait = measureFrom - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        long[] cpu0 = cpuNanos();
        List<long[]> parts = new ArrayList<>();
        for (Future<long[]> f : work) {
            parts.add(f.get());
        }
        long end = System.nanoTime();
        long[] cpu = cpuSince(cpu0);
        long[] all = parts.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        return new Window(path, clients, all, errors.get(), (end - measureFrom) / 1e9, cpu);
    }

    /** Prints a window's line and the first failures seen since the last print. */
    private Window print(Window w) {
        System.out.printf(
                Locale.ROOT,
                "%-12s %8d %8.0f %8.3f %8.3f %7.0f = %5.0f %5.0f %5.0f %5.0f %7d%n",
                w.path().label,
                w.clients(),
                w.rate(),
                w.millis(0.50),
                w.millis(0.99),
                w.cpuMicros(),
                w.cpuMicros(Cpu.CLIENTS),
                w.cpuMicros(Cpu.JETTY),
                w.cpuMicros(Cpu.ENGINE),
                w.cpuMicros(Cpu.REST),
                w.errors());
        for (String f; (f = failures.poll()) != null; ) {
            System.out.println("  failed: " + f);
        }
        failuresSeen.set(0);
        return w;
    }

    private void fail(String what) {
        if (failuresSeen.getAndIncrement() < SHOWN_ERRORS) {
            failures.add(what);
        }
    }

    private HttpRequest.Builder post() {
        return HttpRequest.newBuilder(runs)
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"code\": \"" + CODE + "\"}"));
    }

    private boolean json() throws IOException, InterruptedException {
        HttpResponse<String> r =
                http.send(
                        post().header("Accept", "application/json").build(),
                        HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            return refused(r.statusCode(), r.body());
        }
        return answeredTwo(r.body());
    }

    /** Reads the stream to its end; true when its one {@code result} event answered 2. */
    private boolean sse() throws IOException, InterruptedException {
        HttpResponse<Stream<String>> r =
                http.send(
                        post().header("Accept", "text/event-stream").build(),
                        HttpResponse.BodyHandlers.ofLines());
        try (Stream<String> lines = r.body()) {
            if (r.statusCode() != 200) {
                return refused(r.statusCode(), String.join("\n", lines.toList()));
            }
            String event = null;
            int results = 0;
            boolean ok = false;
            for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
                String line = it.next();
                if (line.startsWith("event: ")) {
                    event = line.substring(7);
                } else if (line.startsWith("data: ") && "result".equals(event)) {
                    results++;
                    ok = answeredTwo(line.substring(6));
                }
            }
            if (results != 1) {
                fail(results + " result events in one stream");
                return false;
            }
            return ok;
        }
    }

    private boolean inProcess() {
        RunRequest request =
                RunRequest.builder(CODE)
                        .filename("main.js")
                        .bridges(Capabilities.builder().build())
                        .build();
        RunResult r = sandbox.run(request);
        if (!r.isOk() || !(r.value() instanceof Number v) || v.intValue() != 2) {
            fail(r.toString());
            return false;
        }
        return true;
    }

    private boolean refused(int status, String body) {
        fail(status + (status == 429 ? " (the queue is too small for the clients) " : " ") + body);
        return false;
    }

    private boolean answeredTwo(String body) throws IOException {
        JsonNode result = Json.MAPPER.readTree(body);
        if (!result.path("ok").asBoolean(false) || result.path("value").asInt(0) != 2) {
            fail(body);
            return false;
        }
        return true;
    }

    private static String report(
            Instant started,
            double tookSeconds,
            int pool,
            int queue,
            int seconds,
            int warmUpSeconds,
            WarmUpReport warm,
            double load0,
            double load1,
            List<Window> json,
            List<Window> inProcess,
            List<Window> sse) {
        StringBuilder b = new StringBuilder();
        b.append("# Sandjar server under load\n\n");
        b.append(
                String.format(
                        Locale.ROOT,
                        "`bench/server-load.sh`, %s UTC, %.1f min; JDK %s, %d cores, load average"
                                + " %.1f before and %.1f after.%n%n",
                        started.truncatedTo(ChronoUnit.SECONDS)
                                .toString()
                                .replace('T', ' ')
                                .replace("Z", ""),
                        tookSeconds / 60,
                        Runtime.version(),
                        cores(),
                        load0,
                        load1));
        b.append(
                String.format(
                        Locale.ROOT,
                        "`%s` as a run; a pool of %d, a queue of %d; %d s of `Sandbox.warmUp` (%,d"
                                + " runs), then unmeasured HTTP runs for %d s, in-process and SSE"
                                + " runs for %d s each; then per level three"
                                + " alternating slices of HTTP and in-process runs, each half a"
                                + " second unmeasured and %.1f s measured (SSE: one slice of %d s)."
                                + " Clients: the JDK HttpClient, HTTP/1.1 with keep-alive, in the"
                                + " same JVM. Ratio: HTTP runs/s over in-process runs/s.%n%n",
                        CODE,
                        pool,
                        queue,
                        warmUpSeconds,
                        warm.runs(),
                        httpPass(warmUpSeconds),
                        otherPass(warmUpSeconds),
                        seconds / 3.0,
                        seconds));
        b.append(
                "| clients | HTTP runs/s | p50 ms | p99 ms | in-process runs/s | p50 ms | p99 ms |"
                        + " HTTP / in-process | errors |\n");
        b.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < json.size(); i++) {
            Window h = json.get(i);
            Window p = inProcess.get(i);
            b.append(
                    String.format(
                            Locale.ROOT,
                            "| %d | %s | %.3f | %.3f | %s | %.3f | %.3f | %.2fx | %d |%n",
                            h.clients(),
                            thousands(h.rate()),
                            h.millis(0.50),
                            h.millis(0.99),
                            thousands(p.rate()),
                            p.millis(0.50),
                            p.millis(0.99),
                            h.rate() / p.rate(),
                            h.errors() + p.errors()));
        }
        b.append(
                "\nServer-Sent Events (`Accept: text/event-stream`, the stream read to its"
                        + " end):\n\n");
        b.append("| clients | SSE runs/s | p50 ms | p99 ms | errors |\n");
        b.append("|---:|---:|---:|---:|---:|\n");
        for (Window w : sse) {
            b.append(
                    String.format(
                            Locale.ROOT,
                            "| %d | %s | %.3f | %.3f | %d |%n",
                            w.clients(),
                            thousands(w.rate()),
                            w.millis(0.50),
                            w.millis(0.99),
                            w.errors()));
        }
        b.append(
                "\nCPU per run (µs) by thread: clients (the load's threads and the JDK"
                        + " HttpClient's), Jetty (the server's HTTP threads), engines (the"
                        + " sandbox's engine threads), rest (the rest of the process: JIT"
                        + " compilers, GC, timers).\n\n");
        b.append("| clients | path | clients | Jetty | engines | rest | total |\n");
        b.append("|---:|---|---:|---:|---:|---:|---:|\n");
        List<Window> all = new ArrayList<>();
        for (int i = 0; i < json.size(); i++) {
            all.add(json.get(i));
            all.add(inProcess.get(i));
        }
        all.addAll(sse);
        for (Window w : all) {
            b.append(
                    String.format(
                            Locale.ROOT,
                            "| %d | %s | %.0f | %.0f | %.0f | %.0f | %.0f |%n",
                            w.clients(),
                            w.path().label,
                            w.cpuMicros(Cpu.CLIENTS),
                            w.cpuMicros(Cpu.JETTY),
                            w.cpuMicros(Cpu.ENGINE),
                            w.cpuMicros(Cpu.REST),
                            w.cpuMicros()));
        }
        return b.toString();
    }

    /** Seconds of unmeasured HTTP runs after {@link Sandbox#warmUp}. */
    private static int httpPass(int warmUpSeconds) {
        return Math.min(30, warmUpSeconds);
    }

    /** Seconds of unmeasured in-process runs, and of SSE runs, after the HTTP pass. */
    private static int otherPass(int warmUpSeconds) {
        return Math.min(5, warmUpSeconds);
    }

    private static String thousands(double v) {
        return String.format(Locale.ROOT, v >= 100 ? "%,.0f" : "%.1f", v);
    }

    private static int[] levels(String csv) {
        int[] out =
                Arrays.stream(csv.split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        for (int n : out) {
            if (n < 1) {
                throw new IllegalArgumentException("a client count (" + n + ") must be >= 1");
            }
        }
        return out;
    }

    private static int max(int[] xs) {
        return Arrays.stream(xs).max().orElse(1);
    }

    private static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** CPU nanoseconds so far by {@link Cpu} group (a thread that ended is counted in rest). */
    private static long[] cpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] ids = threads.getAllThreadIds();
        ThreadInfo[] infos = threads.getThreadInfo(ids, 0);
        long[] out = new long[Cpu.values().length];
        long named = 0;
        for (int i = 0; i < ids.length; i++) {
            long t = threads.getThreadCpuTime(ids[i]);
            if (infos[i] == null || t < 0) {
                continue; // ended meanwhile
            }
            Cpu group = Cpu.of(infos[i].getThreadName());
            if (group != Cpu.REST) {
                out[group.ordinal()] += t;
                named += t;
            }
        }
        long process =
                ((com.sun.management.OperatingSystemMXBean)
                                ManagementFactory.getOperatingSystemMXBean())
                        .getProcessCpuTime();
        out[Cpu.REST.ordinal()] = process - named;
        return out;
    }

    private static long[] cpuSince(long[] before) {
        long[] now = cpuNanos();
        for (int i = 0; i < now.length; i++) {
            now[i] -= before[i];
        }
        return now;
    }

    private static long[] cpuSum(long[] a, long[] b) {
        long[] out = a.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] += b[i];
        }
        return out;
    }
}
