package dev.sandjar.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * {@link Sandbox#warmUp}: rounds until the time is up. Each round submits, per engine instance,
 * {@code warmup.js} (as a script, every fourth time as a module) and {@link #SMALL_PER_ROUND} small
 * runs, and has the analysis engine parse a fresh piece of module code (uncached, so the parser
 * itself runs).
 */
final class WarmUp {
    /** The longest warm-up a caller may ask for. */
    static final Duration MAX = Duration.ofMinutes(10);

    static final String SCRIPT = CodeAnalyzer.resource("warmup.js");
    static final String MODULE =
            "const work = async () => {\n" + SCRIPT + "\n};\nexport default await work();\n";
    static final List<Map<String, Object>> ROWS = rows(120);

    /** A run of the size most requests are: one record in, a few values out. */
    static final String SMALL =
            "const { id, name, score } = item;\n"
                + "return { id, label: `${name}#${id}`, score: Math.round(score * 100) / 100 };";

    /** Small runs per instance and round. */
    static final int SMALL_PER_ROUND = 24;

    private WarmUp() {}

    static WarmUpReport run(Sandbox sandbox, Duration duration) {
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        RunRequest script = RunRequest.builder(SCRIPT).input("rows", ROWS).build();
        RunRequest module = RunRequest.builder(MODULE).input("rows", ROWS).build();
        RunRequest small = RunRequest.builder(SMALL).input("item", ROWS.get(7)).build();
        long runs = 0;
        long parses = 0;
        boolean interrupted = false;
        int round = 0;
        do {
            List<SandboxRun> inFlight = new ArrayList<>();
            for (int i = 0; i < sandbox.poolSize(); i++) {
                inFlight.add(sandbox.submit((round + i) % 4 == 3 ? module : script));
                // The per-run path (restore, limits, entry, result) is compiled by how often it
                // runs, not by how long: small runs give it the calls the mix alone would not.
                for (int k = 0; k < SMALL_PER_ROUND; k++) {
                    inFlight.add(sandbox.submit(small));
                }
            }
            if (parse(sandbox, round)) {
                parses++;
            }
            for (SandboxRun run : inFlight) {
                RunResult r;
                try {
                    r = interrupted ? settle(run) : run.result().get();
                } catch (InterruptedException e) {
                    interrupted = true;
                    inFlight.forEach(SandboxRun::cancel);
                    r = settle(run);
                } catch (ExecutionException e) {
                    inFlight.forEach(SandboxRun::cancel);
                    throw failure(sandbox, "a warm-up run failed: " + e.getCause(), e.getCause());
                }
                if (r != null && r.isOk()) {
                    runs++;
                } else if (!interrupted) {
                    inFlight.forEach(SandboxRun::cancel);
                    throw failure(
                            sandbox,
                            "a warm-up run failed ("
                                    + (r == null
                                            ? "no result"
                                            : r.error().kind() + ", " + r.error())
                                    + "); it needs about 8 MiB of heap, 1 s of CPU and 10 KiB of"
                                    + " output, within the sandbox's defaults and ceilings",
                            null);
                }
            }
            round++;
        } while (!interrupted && System.nanoTime() - end < 0);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return new WarmUpReport(
                runs, parses, Duration.ofNanos(System.nanoTime() - start), interrupted);
    }

    /** The result of a run already cancelled, or null when it failed outright. */
    private static RunResult settle(SandboxRun run) {
        try {
            return run.result().join();
        } catch (CompletionException | CancellationException e) {
            return null;
        }
    }

    /** Names a sandbox closed under the warm-up as the reason, rather than the limits. */
    private static EngineException failure(Sandbox sandbox, String message, Throwable cause) {
        if (sandbox.isClosed()) {
            return new EngineException("the sandbox was closed during the warm-up", cause);
        }
        return new EngineException(message, cause);
    }

    /** One uncached parse on the analysis engine; false when the caller was interrupted. */
    private static boolean parse(Sandbox sandbox, int round) {
        if (Thread.currentThread().isInterrupted()) {
            return false;
        }
        CodeAnalyzer.Parsed parsed;
        try {
            parsed = sandbox.analyzer().parseUncached(MODULE + "// warm-up round " + round + "\n");
        } catch (EngineException e) {
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
            throw failure(sandbox, "the warm-up's parse failed: " + e.getMessage(), e);
        }
        if (parsed.syntaxError() != null) {
            throw new EngineException(
                    "the warm-up module failed to parse: " + parsed.syntaxError());
        }
        return true;
    }

    /** Records shaped like a workflow's items: strings, integers, a double, a boolean, a null. */
    private static List<Map<String, Object>> rows(int count) {
        List<Map<String, Object>> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", (long) i);
            row.put("name", "item-" + (i % 37));
            row.put("n", (long) (i * 7 % 101));
            row.put("score", i * 0.75);
            row.put("flag", i % 2 == 0);
            row.put("note", null);
            rows.add(row);
        }
        return rows;
    }
}
