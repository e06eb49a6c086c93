package dev.sandjar.bench;

import dev.sandjar.bridges.console.Console;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.server.cli.SandjarCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The differential check's corpus, run in a JVM of its own (docs/jvm-flags.md, "The differential
 * check"). First, in the fresh JVM, the sequence that first showed JDK 17's C2 fault, through the
 * command line: two pack runs, a pack listing, then a console run. Then round after round for a
 * given time, so that the JIT compiles what the corpus runs hot (C2's code is where a
 * miscompilation shows): the bench's four compute workloads at small sizes, strings sliced and
 * logged as the console does, and in the first round and the last every case of the conformance set
 * (host's {@code conformance.txt}). It prints {@code item NAME HASH} for each item's first outcome,
 * and exits 1 with {@code CHANGED NAME round N} when a later round gives an item another outcome: a
 * guest computation whose value depends on what the JIT did is wrong in one of the two.
 *
 * <p>usage: {@code FreshJvmCorpus SECONDS DIR [--no-cli]} ({@code --no-cli}: the rounds only)
 */
public final class FreshJvmCorpus {
    private static final Map<String, Integer> SIZES =
            Map.of("fib", 18, "strings", 3_000, "json", 150, "regex", 150);

    private FreshJvmCorpus() {}

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        Path dir = Path.of(args[1]);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        Map<String, String> first = null;
        int round = 0;
        if (!(args.length > 2 && args[2].equals("--no-cli"))) {
            // First, in the fresh JVM, as it first failed: pack runs, then a console run.
            long start = System.nanoTime();
            String sequence = cliSequence(Files.createDirectories(dir.resolve("cli")));
            System.out.println("item cli-sequence " + sha(sequence));
            System.out.println("cli-sequence " + (System.nanoTime() - start) / 1_000_000 + " ms");
        }
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build()) {
            List<String[]> cases = conformance();
            boolean last;
            do {
                round++;
                // The conformance set, the slow part, runs in the first round and the last.
                last = round >= 3 && System.nanoTime() >= end;
                Map<String, String> outcomes = round(sandbox, cases, round == 1 || last);
                if (first == null) {
                    first = outcomes;
                    System.out.println("first round " + TIMES);
                    for (Map.Entry<String, String> e : outcomes.entrySet()) {
                        System.out.println("item " + e.getKey() + " " + sha(e.getValue()));
                    }
                } else {
                    for (Map.Entry<String, String> e : outcomes.entrySet()) {
                        String was = first.get(e.getKey());
                        if (!e.getValue().equals(was)) {
                            System.out.println("CHANGED " + e.getKey() + " round " + round);
                            System.out.println("  first: " + clip(was));
                            System.out.println("  now:   " + clip(e.getValue()));
                            System.exit(1);
                        }
                    }
                }
            } while (!last);
        }
        System.out.println("rounds " + round);
        System.exit(0);
    }

    /** Milliseconds each item took in the last round, for the report. */
    private static final Map<String, Long> TIMES = new LinkedHashMap<>();

    private static long mark = System.nanoTime();

    private static void took(String item) {
        long now = System.nanoTime();
        TIMES.put(item, (now - mark) / 1_000_000);
        mark = now;
    }

    private static Map<String, String> round(
            Sandbox sandbox, List<String[]> cases, boolean conformance) {
        Map<String, String> out = new LinkedHashMap<>();
        mark = System.nanoTime();
        for (String name : Workloads.COMPUTE) {
            out.put("workload-" + name, outcome(sandbox.run(workload(name))));
            took("workload-" + name);
        }
        if (conformance) {
            StringBuilder all = new StringBuilder();
            for (String[] c : cases) {
                all.append(c[0]).append('=').append(outcome(run(sandbox, c[1]))).append('\n');
            }
            out.put("conformance", all.toString());
            took("conformance");
        }
        out.put("slices", outcome(run(sandbox, SLICES)));
        took("slices");
        RunResult logged =
                sandbox.run(RunRequest.builder(CONSOLE).bridge(Console.bridge()).build());
        StringBuilder logs = new StringBuilder(outcome(logged));
        for (LogEntry e : logged.logs()) {
            logs.append('\n').append(e.level()).append(' ').append(e.message());
        }
        out.put("console", logs.toString());
        took("console");
        return out;
    }

    private static RunRequest workload(String name) {
        return RunRequest.builder(Workloads.body(name, SIZES.get(name))).build();
    }

    private static RunResult run(Sandbox sandbox, String code) {
        return sandbox.run(RunRequest.builder(code).build());
    }

    private static String outcome(RunResult r) {
        return r.isOk() ? r.valueJson() : "throws " + r.error().name() + ": " + r.error().message();
    }

    /** Slices of many lengths and offsets, past the end too, as the console cuts its lines. */
    static final String SLICES =
            "const out = [];\n"
                    + "let s = '';\n"
                    + "for (let n = 0; n < 300; n++) {\n"
                    + "  s += String.fromCharCode(33 + (n * 7) % 90);\n"
                    + "  const a = s.slice(0, 8192), b = s.slice(n % 5, 8192), c = s.slice(-3);\n"
                    + "  out.push(a.length + ':' + b.length + ':' + c + ':' + s.substring(2, 9)"
                    + " + ':' + s.at(-1));\n"
                    + "}\n"
                    + "return out.join('|');";

    /** The console line of the original failure and others like it. */
    static final String CONSOLE =
            "console.log('hi', {a: [1, 2]});\n"
                    + "for (let i = 0; i < 40; i++) console.log('line', i, 'x'.repeat(i * 13),"
                    + " {n: i, s: String(i).padStart(6, '*')});\n"
                    + "return 1;";

    /** ConsoleInAFreshJvmTest's sequence: pack runs, a pack listing, then a console run. */
    private static String cliSequence(Path dir) throws IOException {
        Path pack = Files.createDirectories(dir.resolve("packs/peek"));
        Files.writeString(
                pack.resolve("package.json"),
                "{\"name\": \"@acme/peek\", \"version\": \"1.0.0\", \"sandjar\":"
                        + " {\"apiVersion\": 1, \"sandboxModules\": [{\"name\": \".\","
                        + " \"kind\": \"js\", \"file\": \"index.js\"}]}}");
        Files.writeString(
                pack.resolve("index.js"),
                "export const peek = () => typeof getSecret === 'function' ? getSecret('K') :"
                        + " 'none';");
        String packs = dir.resolve("packs").toString();
        String peek = "import { peek } from '@acme/peek';\nreturn [peek(), getSecret('K')];";
        StringBuilder out = new StringBuilder();
        out.append(cli(dir, peek, "--secret", "K=v", "--packs", packs));
        out.append(cli(dir, peek, "--secret", "K=v", "--trust-packs", packs));
        out.append(cli(null, null, "packs", "list", "--trust-packs", packs));
        out.append(cli(dir, "console.log('hi', {a: [1, 2]});\nreturn 1;"));
        return out.toString();
    }

    /**
     * {@code ./sandjar run FILE FLAGS} of {@code source}, or the bare arguments: its exit code and
     * output.
     */
    private static String cli(Path dir, String source, String... flags) throws IOException {
        String[] args;
        if (source == null) {
            args = flags;
        } else {
            Path file = dir.resolve("main.js");
            Files.writeString(file, source);
            args = new String[flags.length + 2];
            args[0] = "run";
            args[1] = file.toString();
            System.arraycopy(flags, 0, args, 2, flags.length);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                SandjarCli.run(
                        args,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        // Paths and timings differ from round to round; the lines a guest computed do not.
        String text =
                (out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8))
                        .replace(dir == null ? "\u0000" : dir.getParent().toString(), "DIR")
                        .replaceAll("[0-9.]+ ?ms", "T ms");
        return "exit " + code + "\n" + text + "\n";
    }

    /** The conformance set's cases: name and code. */
    static List<String[]> conformance() {
        String text;
        try (InputStream in =
                ClassLoader.getSystemResourceAsStream("dev/sandjar/host/conformance.txt")) {
            if (in == null) {
                throw new IllegalStateException(
                        "dev/sandjar/host/conformance.txt (host's test jar) is not on the class"
                                + " path");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String[]> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", 3);
            out.add(new String[] {f[0], f[2].replace(" ¶ ", "\n")});
        }
        return out;
    }

    static String sha(String s) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            return HexFormat.of()
                    .formatHex(md.digest(s.getBytes(StandardCharsets.UTF_8)))
                    .substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String clip(String s) {
        return s == null || s.length() <= 400 ? s : s.substring(0, 400) + "...";
    }
}
