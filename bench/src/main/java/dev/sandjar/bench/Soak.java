package dev.sandjar.bench;

import dev.sandjar.host.Limits;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxRun;
import java.io.BufferedReader;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Many runs of a mix of ordinary, failing, timing-out, cancelled and hostile programs on a pool of
 * two, from two caller threads, sampling at intervals the live threads, the heap used after a GC,
 * the open file descriptors and the engine count; fails (exit 1) when a sample after the warm-up is
 * more than 5% above or below the warm-up's (with a small absolute slack, below) or when a run's
 * outcome is not the one its program must have. {@code bench/soak.sh} builds and starts it.
 *
 * <p>usage: {@code Soak [RUNS] [SAMPLES]}: RUNS default 100,000, SAMPLES (intervals) default 20;
 * the first quarter of the intervals is warm-up. A sample out of bounds is taken again once after a
 * second, so a transient (a soft-referenced cache the GC kept, a GC's timing) is not a leak. Before
 * each sample every engine runs once more ({@link #settle}), so the pages an idle engine still
 * holds from its last run do not read as growth; a heap sample out of bounds prints the classes
 * that grew ({@code jcmd GC.class_histogram} against the warm-up's).
 *
 * <p>{@code runaway} loops inside one native engine call ({@code
 * Array.prototype.includes.call({length: 2 ** 53 - 1})}), which QuickJS's interrupt check never
 * reaches: the sandbox's watchdog interrupts it and the engine instance is replaced, so the mix
 * also shows that replacing engines leaves nothing behind.
 *
 * <p>Each sample also prints, without checking them: the process's resident set ({@code VmRSS}),
 * the runs the watchdog stopped so far ({@link dev.sandjar.host.RunStats#watchdogFired()}, each of
 * which replaced its engine instance), and the engine threads created so far (the highest {@code
 * sandjar-engine-N}: every engine instance has its own thread, so this counts the pool's first
 * instances, the analysis engine and every replacement, for whatever reason).
 */
public final class Soak {
    /** Counts get this much absolute slack besides 5% (a JDK pool thread coming and going). */
    private static final int COUNT_SLACK = 2;

    /** The heap after GC gets this much absolute slack besides 5%. */
    private static final long HEAP_SLACK = 8L << 20;

    private static final Limits TIGHT =
            Limits.builder()
                    .timeout(Duration.ofMillis(50))
                    .wallTimeout(Duration.ofSeconds(2))
                    .build();

    private static final Limits SMALL_HEAP =
            Limits.builder().heapBytes(16L << 20).timeout(Duration.ofSeconds(5)).build();

    private static final Limits SMALL_OUTPUT =
            Limits.builder().outputBytes(64L << 10).timeout(Duration.ofSeconds(5)).build();

    /** One program of the mix and the outcome it must have (null kind: it succeeds). */
    private record Program(String name, String code, Limits limits, RunError.Kind expect) {}

    private static final List<Program> MIX =
            List.of(
                    new Program("trivial", "return 1 + 1", Limits.none(), null),
                    new Program(
                            "strings",
                            "let s = ''; for (let i = 0; i < 200; i++) s += i.toString(36);"
                                    + " return s.length",
                            Limits.none(),
                            null),
                    new Program(
                            "json",
                            "const o = JSON.parse(JSON.stringify(input));"
                                    + " return o.items.map(x => x.v * 2)",
                            Limits.none(),
                            null),
                    new Program(
                            "async",
                            "const xs = await Promise.all([1, 2, 3].map(async x => x * x));"
                                    + " return xs",
                            Limits.none(),
                            null),
                    new Program(
                            "throw",
                            "throw new TypeError('soak')",
                            Limits.none(),
                            RunError.Kind.EXCEPTION),
                    new Program("syntax", "return (", Limits.none(), RunError.Kind.SYNTAX),
                    new Program("loop", "while (true) {}", TIGHT, RunError.Kind.TIMEOUT),
                    new Program(
                            "runaway",
                            "return Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 'x')",
                            TIGHT,
                            RunError.Kind.TIMEOUT),
                    new Program(
                            "recursion",
                            "function f(n) { return f(n + 1) + 1 } return f(0)",
                            Limits.none(),
                            RunError.Kind.STACK),
                    new Program(
                            "allocation",
                            "const a = []; while (true) a.push(new Array(100000).fill(a.length));",
                            SMALL_HEAP,
                            RunError.Kind.MEMORY),
                    new Program(
                            "output",
                            "return 'x'.repeat(1 << 20)",
                            SMALL_OUTPUT,
                            RunError.Kind.OUTPUT),
                    new Program(
                            "microtasks",
                            "const f = () => Promise.resolve().then(f); f();"
                                    + " await new Promise(() => {})",
                            TIGHT,
                            RunError.Kind.TIMEOUT),
                    new Program(
                            "cancelled",
                            "while (true) {}",
                            Limits.builder().timeout(Duration.ofSeconds(30)).build(),
                            RunError.Kind.CANCELLED));

    private Soak() {}

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int samples = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int warmupSamples = Math.max(1, samples / 4);
        int perSample = Math.max(1, runs / samples);
        List<Object> items = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            items.add(Map.of("v", i, "name", "item " + i));
        }
        Map<String, Object> input = Map.of("items", items);

        System.out.printf(
                "soak: %,d runs, %d samples of %,d runs, pool 2, 2 callers; mix: %s%n",
                runs, samples, perSample, MIX.stream().map(Program::name).toList());
        System.out.println(
                "sample   runs  runs/s  threads  heap-after-gc(MiB)  rss(MiB)  fds  engines"
                        + "  created  watchdog  leaks  wrong");
        AtomicLong wrong = new AtomicLong();
        AtomicLong stoppedByWatchdog = new AtomicLong();
        AtomicLong next = new AtomicLong();
        long[] baseline = null;
        Map<String, long[]> baselineHistogram = Map.of();
        List<String> violations = new ArrayList<>();
        ExecutorService callers = Executors.newFixedThreadPool(2);
        long t0 = System.nanoTime();
        try (Sandbox sandbox = Sandbox.builder().poolSize(2).build()) {
            for (int s = 1; s <= samples; s++) {
                long start = System.nanoTime();
                long until = (long) s * perSample;
                List<Future<?>> work = new ArrayList<>();
                for (int c = 0; c < 2; c++) {
                    work.add(
                            callers.submit(
                                    () -> {
                                        long i;
                                        while ((i = next.getAndIncrement()) < until) {
                                            if (!runOne(
                                                    sandbox,
                                                    MIX.get((int) (i % MIX.size())),
                                                    input,
                                                    stoppedByWatchdog)) {
                                                wrong.incrementAndGet();
                                            }
                                        }
                                        next.set(until);
                                        return null;
                                    }));
                }
                for (Future<?> f : work) {
                    f.get();
                }
                next.set(until);
                double rate = perSample / ((System.nanoTime() - start) / 1e9);
                settle(sandbox);
                long[] m = measure();
                if (baseline != null && drifted(m, baseline)) {
                    TimeUnit.SECONDS.sleep(1); // a transient (a soft cache, a GC's timing)?
                    m = measure();
                }
                System.out.printf(
                        "%6d %7d %7.0f %8d %19.1f %9.1f %4d %8d %8d %9d %6d %6d%n",
                        s,
                        until,
                        rate,
                        m[0],
                        m[1] / 1048576.0,
                        m[4] / 1048576.0,
                        m[2],
                        m[3],
                        m[5],
                        stoppedByWatchdog.get(),
                        sandbox.leaks(),
                        wrong.get());
                if (s == warmupSamples) {
                    baseline = m;
                    baselineHistogram = histogram();
                } else if (baseline != null) {
                    check(s, "threads", m[0], baseline[0], COUNT_SLACK, violations);
                    int before = violations.size();
                    check(s, "heap", m[1], baseline[1], HEAP_SLACK, violations);
                    if (violations.size() > before) {
                        printGrowth(baselineHistogram, histogram());
                    }
                    check(s, "fds", m[2], baseline[2], COUNT_SLACK, violations);
                    check(s, "engines", m[3], baseline[3], 0, violations);
                }
            }
            if (sandbox.leaks() != 0) {
                violations.add("Sandbox.leaks() is " + sandbox.leaks());
            }
        } finally {
            callers.shutdownNow();
        }
        if (wrong.get() != 0) {
            violations.add(wrong.get() + " runs had the wrong outcome");
        }
        System.out.printf("took %.1f s%n", (System.nanoTime() - t0) / 1e9);
        if (!violations.isEmpty()) {
            violations.forEach(v -> System.out.println("FAIL: " + v));
            System.exit(1);
        }
        System.out.println("OK: flat within 5% after warm-up, every outcome as expected");
    }

    /** Runs one program; true when its outcome is the expected one. */
    private static boolean runOne(
            Sandbox sandbox, Program p, Map<String, Object> input, AtomicLong stoppedByWatchdog)
            throws InterruptedException {
        RunRequest.Builder b = RunRequest.builder(p.code()).limits(p.limits());
        if (p.name().equals("json")) {
            b.global("input", input);
        }
        RunResult r;
        if (p.expect() == RunError.Kind.CANCELLED) {
            SandboxRun run = sandbox.submit(b.build());
            Thread.sleep(1 + (run.runId().hashCode() & 3)); // queued, setting up or running
            run.cancel();
            r = run.result().join();
        } else {
            r = sandbox.run(b.build());
        }
        if (r.stats() != null && r.stats().watchdogFired()) {
            stoppedByWatchdog.incrementAndGet();
        }
        boolean ok = p.expect() == null ? r.isOk() : !r.isOk() && r.error().kind() == p.expect();
        if (!ok) {
            System.out.println("  unexpected outcome of " + p.name() + ": " + r);
        }
        return ok;
    }

    /**
     * One busy run on each engine of the pool, side by side, before a sample. An idle engine keeps
     * the pages its last run wrote until its next run's restore gives them back: a slice whose last
     * run on an engine was the allocation bomb would otherwise read 12 MiB more heap, which is not
     * growth (the run count per slice decides which slices end so: with 500 runs a slice, the 6th
     * and the 19th).
     */
    private static void settle(Sandbox sandbox) {
        // Long enough (tens of ms) that each run holds its engine while the next is admitted.
        String busy = "let x = 0; for (let i = 0; i < 3000000; i++) x += i % 7; return x";
        List<SandboxRun> runs = new ArrayList<>();
        for (int i = 0; i < sandbox.poolSize(); i++) {
            runs.add(sandbox.submit(RunRequest.builder(busy).build()));
        }
        for (SandboxRun run : runs) {
            RunResult r = run.result().join();
            if (!r.isOk()) {
                throw new IllegalStateException("a settling run failed: " + r);
            }
        }
    }

    private static boolean drifted(long[] m, long[] base) {
        List<String> out = new ArrayList<>();
        check(0, "threads", m[0], base[0], COUNT_SLACK, out);
        check(0, "heap", m[1], base[1], HEAP_SLACK, out);
        check(0, "fds", m[2], base[2], COUNT_SLACK, out);
        check(0, "engines", m[3], base[3], 0, out);
        return !out.isEmpty();
    }

    private static void check(
            int sample, String what, long value, long base, long slack, List<String> out) {
        long allowed = (long) Math.ceil(base * 0.05) + slack;
        if (Math.abs(value - base) > allowed) {
            out.add(
                    "sample "
                            + sample
                            + ": "
                            + what
                            + " "
                            + value
                            + " vs "
                            + base
                            + " after warm-up (allowed ±"
                            + allowed
                            + ")");
        }
    }

    /**
     * Live threads, heap used after GC (bytes), open file descriptors, engine threads, resident set
     * (bytes, -1 where {@code /proc} has none), engine threads created so far.
     */
    private static long[] measure() throws IOException, InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(50);
        }
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long fds;
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            fds = s.count();
        }
        List<String> engineThreads =
                Thread.getAllStackTraces().keySet().stream()
                        .map(Thread::getName)
                        .filter(n -> n.startsWith("sandjar-engine-"))
                        .toList();
        long created =
                engineThreads.stream()
                        .mapToLong(n -> Long.parseLong(n.substring("sandjar-engine-".length())))
                        .max()
                        .orElse(0);
        return new long[] {
            ManagementFactory.getThreadMXBean().getThreadCount(),
            heap,
            fds,
            engineThreads.size(),
            rss(),
            created
        };
    }

    /**
     * Live objects by class name: {instances, bytes}, from {@code jcmd PID GC.class_histogram}
     * (which collects first); empty when jcmd cannot run.
     */
    private static Map<String, long[]> histogram() throws InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Map<String, long[]> out = new HashMap<>();
        try {
            Process p =
                    new ProcessBuilder(
                                    jcmd.toString(),
                                    Long.toString(ProcessHandle.current().pid()),
                                    "GC.class_histogram")
                            .redirectErrorStream(true)
                            .start();
            try (BufferedReader r = p.inputReader()) {
                String line;
                while ((line = r.readLine()) != null) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length >= 4 && f[0].endsWith(":")) {
                        out.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
                    }
                }
            }
            p.waitFor(1, TimeUnit.MINUTES);
        } catch (IOException | NumberFormatException e) {
            System.out.println("  (no class histogram: " + e + ")");
        }
        return out;
    }

    /**
     * The ten classes whose live bytes grew most since the warm-up's histogram, and Sandjar's
     * classes whose instance count changed.
     */
    private static void printGrowth(Map<String, long[]> base, Map<String, long[]> now) {
        long[] none = {0, 0};
        now.entrySet().stream()
                .sorted(
                        Comparator.comparingLong(
                                (Map.Entry<String, long[]> e) ->
                                        base.getOrDefault(e.getKey(), none)[1] - e.getValue()[1]))
                .limit(10)
                .forEach(
                        e -> {
                            long[] b = base.getOrDefault(e.getKey(), none);
                            System.out.printf(
                                    "  heap grew: %+.1f MiB %s (%,d -> %,d instances)%n",
                                    (e.getValue()[1] - b[1]) / 1048576.0,
                                    e.getKey(),
                                    b[0],
                                    e.getValue()[0]);
                        });
        now.forEach(
                (name, n) -> {
                    long[] b = base.getOrDefault(name, none);
                    if (name.startsWith("dev.sandjar.") && b[0] != n[0]) {
                        System.out.printf("  instances: %s %,d -> %,d%n", name, b[0], n[0]);
                    }
                });
    }

    /** The process's resident set in bytes ({@code VmRSS}), or -1 where {@code /proc} has none. */
    private static long rss() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return -1;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return -1;
    }
}
