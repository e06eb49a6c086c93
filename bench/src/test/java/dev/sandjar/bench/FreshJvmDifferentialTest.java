package dev.sandjar.bench;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sandjar.host.Sandbox;
import dev.sandjar.quickjs.testing.NewerJdk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guest code computes the same values whatever the JVM and its flags (docs/jvm-flags.md, "The
 * differential check"): {@link FreshJvmCorpus} runs in fresh JVMs, two at a time: two with JDK 17
 * and no flags, two with JDK 17 and {@link Sandbox#jvmFlags()} (the fault of 2026-12-03 was a JDK
 * 17 one), and one each the same way on a JDK 25 found beside the build's. The first JVM of each
 * configuration runs the command-line sequence that first showed the fault; each runs {@value
 * #DEFAULT_SECONDS} s of rounds (at least three) so the JIT compiles what it runs ({@code
 * -Dsandjar.differential.seconds=N} for longer). Every JVM must give every item the same outcome in
 * every round, and the same as the first JVM; a difference fails the build, naming the item and the
 * configuration.
 */
class FreshJvmDifferentialTest {
    static final int DEFAULT_SECONDS = 10;
    private static final int PER_CONFIGURATION = 2;

    @TempDir Path dir;

    /** {@code jvms}: how many fresh JVMs run it. */
    record Configuration(String name, Path java, List<String> flags, int jvms) {}

    record Outcome(Configuration configuration, int index, int exit, String output) {
        Map<String, String> items() {
            Map<String, String> items = new TreeMap<>();
            for (String line : output.split("\n")) {
                if (line.startsWith("item ")) {
                    String[] f = line.split(" ");
                    items.put(f[1], f[2]);
                }
            }
            return items;
        }

        String label() {
            return configuration.name() + " #" + index;
        }
    }

    static List<Configuration> configurations() {
        List<Configuration> out = new ArrayList<>();
        Path java17 = Path.of(System.getProperty("java.home"), "bin", "java");
        out.add(new Configuration("this JDK, no flags", java17, List.of(), PER_CONFIGURATION));
        out.add(
                new Configuration(
                        "this JDK, recommended flags",
                        java17,
                        Sandbox.jvmFlags(),
                        PER_CONFIGURATION));
        Optional<Path> java25 = NewerJdk.java(25);
        if (java25.isPresent()) {
            out.add(new Configuration("JDK 25, no flags", java25.get(), List.of(), 1));
            List<String> flags = new ArrayList<>(Sandbox.jvmFlags());
            flags.add("--sun-misc-unsafe-memory-access=allow");
            out.add(new Configuration("JDK 25, recommended flags", java25.get(), flags, 1));
        } else {
            System.err.println("FreshJvmDifferentialTest: " + NewerJdk.why(25));
        }
        return out;
    }

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void everyJvmAndFlagSetComputesTheSameOutcomes() throws Exception {
        int seconds = Integer.getInteger("sandjar.differential.seconds", DEFAULT_SECONDS);
        List<Configuration> configurations = configurations();
        ExecutorService two = Executors.newFixedThreadPool(2);
        List<Future<Outcome>> futures = new ArrayList<>();
        try {
            for (Configuration c : configurations) {
                for (int i = 1; i <= c.jvms(); i++) {
                    int index = i;
                    futures.add(two.submit(() -> run(c, index, seconds)));
                }
            }
            List<Outcome> outcomes = new ArrayList<>();
            for (Future<Outcome> f : futures) {
                outcomes.add(f.get());
            }
            check(outcomes);
        } finally {
            two.shutdownNow();
        }
    }

    /** The check itself: one item hashed differently, or a JVM that saw a change, fails it. */
    @Test
    void aDifferentHashOrAChangedRoundFailsTheCheck() {
        Configuration a = new Configuration("a", Path.of("java"), List.of(), 2);
        String items =
                "item workload-fib 1\nitem workload-strings 2\nitem workload-json 3\n"
                        + "item workload-regex 4\nitem conformance 5\nitem slices 6\n"
                        + "item console 7\nitem cli-sequence 8\nrounds 3\n";
        Outcome first = new Outcome(a, 1, 0, items);
        check(List.of(first, new Outcome(a, 2, 0, items)));
        String differs =
                failure(first, new Outcome(a, 2, 0, items.replace("slices 6", "slices 9")));
        assertTrue(differs.contains("a #2: slices hashed 9"), differs);
        String changed = failure(first, new Outcome(a, 2, 1, "CHANGED console round 2\n"));
        assertTrue(changed.contains("CHANGED console"), changed);
    }

    /** The message {@link #check} fails with for the two outcomes. */
    private static String failure(Outcome first, Outcome second) {
        return assertThrows(AssertionError.class, () -> check(List.of(first, second))).getMessage();
    }

    private Outcome run(Configuration c, int index, int seconds) throws IOException {
        Path work = Files.createTempDirectory(dir, "jvm");
        List<String> cmd = new ArrayList<>();
        cmd.add(c.java().toString());
        cmd.add("-Xss4m");
        cmd.addAll(c.flags());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(FreshJvmCorpus.class.getName());
        cmd.add(String.valueOf(seconds));
        cmd.add(work.toString());
        if (index > 1) {
            cmd.add("--no-cli"); // the command-line sequence, the costly part, in one JVM of each
        }
        Path log = work.resolve("output.txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = pb.redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(seconds + 240L, TimeUnit.SECONDS)) {
                return new Outcome(c, index, -1, "did not finish\n" + Files.readString(log));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(c, index, -1, "interrupted");
        } finally {
            p.destroyForcibly();
        }
        return new Outcome(c, index, p.exitValue(), Files.readString(log));
    }

    private static void check(List<Outcome> outcomes) {
        StringBuilder problems = new StringBuilder();
        Outcome reference = outcomes.get(0);
        Map<String, String> expected = new TreeMap<>(reference.items());
        assertTrue(
                expected.size() >= 7, "the first JVM hashed too few items:\n" + reference.output);
        Map<String, String> summary = new LinkedHashMap<>();
        for (Outcome o : outcomes) {
            String rounds =
                    o.output
                            .lines()
                            .filter(l -> l.startsWith("rounds "))
                            .findFirst()
                            .orElse("rounds ?");
            summary.put(o.label(), "exit " + o.exit + ", " + rounds);
            if (o.exit != 0) {
                problems.append(o.label())
                        .append(" exited ")
                        .append(o.exit)
                        .append(":\n")
                        .append(tail(o.output))
                        .append('\n');
                continue;
            }
            Map<String, String> items = o.items();
            for (Map.Entry<String, String> e : expected.entrySet()) {
                String got = items.get(e.getKey());
                if (got == null && o.index > 1 && e.getKey().equals("cli-sequence")) {
                    continue; // that JVM ran the rounds only
                }
                if (!e.getValue().equals(got)) {
                    problems.append(o.label())
                            .append(": ")
                            .append(e.getKey())
                            .append(" hashed ")
                            .append(got)
                            .append(", ")
                            .append(reference.label())
                            .append(" ")
                            .append(e.getValue())
                            .append('\n');
                }
            }
        }
        System.out.println("FreshJvmDifferentialTest: " + summary);
        if (problems.length() > 0) {
            fail("guest code computed different values in different JVMs:\n" + problems);
        }
    }

    private static String tail(String s) {
        return s.length() <= 3000 ? s : "..." + s.substring(s.length() - 3000);
    }
}
