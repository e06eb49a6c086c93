package dev.sandjar.bench;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.host.HostIsolation;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.CatalogResolution;
import dev.sandjar.packs.ModuleCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What isolating host work in worker processes costs per call (docs/sandbox.md, "Host work"): the
 * same guest calls of the host modules and the canvas that run as {@code IsolatedTask}s, through a
 * sandbox whose host work runs in worker processes and through one that runs it in its own JVM,
 * alternating call by call so the machine's load falls on both. Reports each call's median and p90
 * latency (the whole run, end to end) both ways and the difference, a worker's first call (started
 * cold) and a worker's resident memory. {@code bench/host-work.sh} builds and starts it; not part
 * of {@code mvn verify}.
 *
 * <p>usage: {@code HostWorkCost [SECONDS] [OUT]}: SECONDS of measured calls per workload (default
 * 20, after as many seconds of warm-up), OUT the report (default {@code
 * bench/results/host-work.md}).
 */
public final class HostWorkCost {
    private HostWorkCost() {}

    /** Each workload: a body that makes its input, then the measured call. */
    static final Map<String, String> WORKLOADS = new LinkedHashMap<>();

    static {
        String pdf =
                "import pdf from '@sandjar/pdf';\n"
                        + "globalThis.doc ??= await pdf.create(['Hello PDF', 'page two']);\n";
        WORKLOADS.put("pdf.info (1 page)", pdf + "return (await pdf.info(doc)).pages;");
        WORKLOADS.put("pdf.text (2 pages)", pdf + "return (await pdf.text(doc)).length;");
        WORKLOADS.put(
                "csv.parse (1,000 rows)",
                "import { parse } from '@sandjar/csv';\n"
                        + "return (await parse('name,qty\\n' + 'apple,3\\n'.repeat(1000), { header:"
                        + " true })).length;");
        WORKLOADS.put(
                "canvas.toBytes (200 x 200, 60 ops)",
                "const c = createCanvas(200, 200); const ctx = c.getContext('2d');\n"
                    + "for (let i = 0; i < 20; i++) { ctx.fillStyle = `hsl(${i * 18}, 70%, 50%)`;"
                    + " ctx.fillRect(i * 9, i * 9, 40, 40); ctx.beginPath(); ctx.arc(100, 100, i *"
                    + " 4, 0, 6.28); ctx.stroke(); }\n"
                    + "return (await c.toBytes()).length;");
        WORKLOADS.put(
                "canvas.getImageData (64 x 64)",
                "const c = createCanvas(64, 64); const ctx = c.getContext('2d');\n"
                        + "ctx.fillRect(8, 8, 32, 32);\n"
                        + "return ctx.getImageData(0, 0, 64, 64).data.length;");
        WORKLOADS.put(
                "exif.read (JPEG, 64 x 64)",
                "import { read } from '@sandjar/exif';\n"
                        + "const c = createCanvas(64, 64); c.getContext('2d').fillRect(0, 0, 9,"
                        + " 9);\n"
                        + "const jpeg = await c.toBytes('image/jpeg');\n"
                        + "return Object.keys((await read(jpeg)).directories).length;");
    }

    public static void main(String[] args) throws IOException {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 20;
        Path out = Path.of(args.length > 1 ? args[1] : "bench/results/host-work.md");
        StringBuilder r = new StringBuilder();
        r.append("# Host work: worker processes against in process\n\n");
        r.append("- java: ").append(System.getProperty("java.version")).append(", ");
        r.append(Runtime.getRuntime().availableProcessors()).append(" cores\n");
        r.append("- measured: ").append(seconds).append(" s per workload after as much warm-up, ");
        r.append("calls alternating between the two sandboxes (pool 1 each, one worker)\n\n");
        long coldStart;
        long warmSecond;
        try (Sandbox cold =
                Sandbox.builder()
                        .poolSize(1)
                        .hostIsolation(HostIsolation.builder().withWorkers(1).build())
                        .build()) {
            ModuleCatalog catalog = ModuleCatalog.builder(cold).build();
            String body = WORKLOADS.get("pdf.info (1 page)");
            run(cold, catalog, "return 1"); // the engine's template, not the worker
            coldStart = wall(cold, catalog, body);
            warmSecond = wall(cold, catalog, body);
        }
        r.append("- a worker's first call (pdf.info, the worker started for it): ");
        r.append(ms(coldStart)).append(" ms; the same call next: ").append(ms(warmSecond));
        r.append(" ms\n\n");
        r.append(
                "| call | in process p50 | p90 | worker p50 | p90 | worker - in process (p50) |\n");
        r.append("|---|---:|---:|---:|---:|---:|\n");
        long rss = 0;
        try (Sandbox workers =
                        Sandbox.builder()
                                .poolSize(1)
                                .hostIsolation(HostIsolation.builder().withWorkers(1).build())
                                .build();
                Sandbox local =
                        Sandbox.builder()
                                .poolSize(1)
                                .hostIsolation(HostIsolation.inProcess())
                                .build()) {
            ModuleCatalog wc = ModuleCatalog.builder(workers).build();
            ModuleCatalog lc = ModuleCatalog.builder(local).build();
            for (Map.Entry<String, String> w : WORKLOADS.entrySet()) {
                String body = w.getValue();
                alternate(workers, wc, local, lc, body, seconds * 1_000_000_000L, null, null);
                List<Long> a = new ArrayList<>();
                List<Long> b = new ArrayList<>();
                alternate(workers, wc, local, lc, body, seconds * 1_000_000_000L, a, b);
                long[] wa = sorted(a);
                long[] la = sorted(b);
                r.append(
                        String.format(
                                Locale.ROOT,
                                "| %s | %.2f | %.2f | %.2f | %.2f | %+.2f ms |%n",
                                w.getKey(),
                                la[la.length / 2] / 1e6,
                                la[la.length * 9 / 10] / 1e6,
                                wa[wa.length / 2] / 1e6,
                                wa[wa.length * 9 / 10] / 1e6,
                                (wa[wa.length / 2] - la[la.length / 2]) / 1e6));
                System.out.println(w.getKey() + " done (" + a.size() + " calls each)");
            }
            rss = workerRss();
        }
        r.append("\n- a worker's resident memory after the calls: ").append(rss >> 20);
        r.append(" MiB (heap cap 512 MiB)\n");
        Files.createDirectories(out.getParent());
        Files.writeString(out, r.toString());
        System.out.print(r);
    }

    private static void alternate(
            Sandbox workers,
            ModuleCatalog wc,
            Sandbox local,
            ModuleCatalog lc,
            String body,
            long nanos,
            List<Long> a,
            List<Long> b) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            long x = wall(workers, wc, body);
            long y = wall(local, lc, body);
            if (a != null) {
                a.add(x);
                b.add(y);
            }
        }
    }

    private static long wall(Sandbox sandbox, ModuleCatalog catalog, String body) {
        return run(sandbox, catalog, body).stats().wallNanos();
    }

    private static RunResult run(Sandbox sandbox, ModuleCatalog catalog, String body) {
        CatalogResolution res = catalog.resolveBody(body);
        RunResult r =
                sandbox.run(
                        RunRequest.builder(body)
                                .modules(res.moduleResolution())
                                .bridges(Capabilities.defaults())
                                .build());
        if (!r.isOk()) {
            throw new IllegalStateException(r.toString());
        }
        return r;
    }

    private static long[] sorted(List<Long> xs) {
        long[] a = xs.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a;
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
    }

    /** The resident memory of this JVM's child processes (the workers), summed. */
    private static long workerRss() {
        long total = 0;
        for (ProcessHandle p : ProcessHandle.current().children().toList()) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc", "" + p.pid(), "status"))) {
                    if (line.startsWith("VmRSS:")) {
                        total += Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // not Linux, or the process ended
            }
        }
        return total;
    }
}
