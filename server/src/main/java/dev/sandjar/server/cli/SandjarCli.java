package dev.sandjar.server.cli;

import dev.sandjar.host.Limits;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxRun;
import dev.sandjar.transport.Transport;
import dev.sandjar.transport.TransportException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * {@code sandjar run FILE.js [options]}: runs FILE through {@link Sandbox#run}, prints the result
 * as JSON on stdout (transport markers for what JSON cannot hold) and exits 0; on failure prints
 * {@code error: <kind>: <name>: <message>} on stderr and exits 2; bad usage exits 1.
 */
public final class SandjarCli {
    static final String USAGE =
            String.join(
                    "\n",
                    "usage: sandjar run FILE.js [options]",
                    "  --timeout-ms N       guest CPU budget in ms (default 30000, 1..600000)",
                    "  --memory-mb N        guest heap limit in MiB (default 64, 1..512)",
                    "  --global NAME=JSON   define a global from JSON (repeatable; transport"
                            + " markers allowed)",
                    "  --stats              print the run's statistics on stderr");

    private SandjarCli() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        String code;
        try {
            options = Options.parse(args);
            code = Files.readString(options.file, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            err.println("error: usage: " + e.getMessage());
            err.println(USAGE);
            return 1;
        } catch (IOException e) {
            err.println("error: usage: cannot read " + args[1] + ": " + e.getMessage());
            return 1;
        }
        RunRequest request;
        try {
            request =
                    RunRequest.builder(code)
                            .filename(options.file.getFileName().toString())
                            .limits(
                                    Limits.builder()
                                            .timeout(Duration.ofMillis(options.timeoutMs))
                                            .heapBytes(options.memoryMb << 20)
                                            .build())
                            .globals(options.globals)
                            .onLog(line -> err.println(format(line)))
                            .build();
        } catch (IllegalArgumentException e) {
            err.println("error: usage: " + e.getMessage());
            return 1;
        }
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build()) {
            SandboxRun run = sandbox.submit(request);
            Thread cancelOnExit = new Thread(run::cancel, "sandjar-cancel");
            Runtime.getRuntime().addShutdownHook(cancelOnExit);
            RunResult result;
            try {
                result = run.result().get();
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(cancelOnExit);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running: the run was cancelled
                }
            }
            if (options.stats) {
                err.println("stats: " + result.stats().summary());
            }
            if (result.isOk()) {
                out.println(Transport.toJson(result.value(), "result"));
                return 0;
            }
            err.println(describe(result.error()));
            return 2;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IllegalArgumentException bad) {
                err.println("error: usage: " + bad.getMessage());
                return 1;
            }
            err.println("error: internal: " + e.getCause());
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("error: cancelled: interrupted");
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("error: usage: " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println("error: internal: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return 2;
        }
    }

    static String describe(RunError e) {
        String where = e.line() > 0 ? " (line " + e.line() + ", column " + e.column() + ")" : "";
        return "error: "
                + e.kind().name().toLowerCase(Locale.ROOT)
                + ": "
                + e.name()
                + ": "
                + e.message()
                + (e.message().contains("line " + e.line()) ? "" : where);
    }

    private static String format(LogEntry line) {
        return "[" + line.level().name().toLowerCase(Locale.ROOT) + "] " + line.message();
    }

    static final class Options {
        Path file;
        long timeoutMs = 30_000;
        long memoryMb = 64;
        boolean stats;
        final Map<String, Object> globals = new LinkedHashMap<>();

        static Options parse(String[] args) {
            if (args.length < 2 || !args[0].equals("run")) {
                throw new IllegalArgumentException(
                        args.length == 0 ? "no command given" : "expected 'run FILE.js'");
            }
            Options o = new Options();
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--timeout-ms" -> o.timeoutMs = number(args, ++i, a, 1, 600_000);
                    case "--memory-mb" -> o.memoryMb = number(args, ++i, a, 1, 512);
                    case "--stats" -> o.stats = true;
                    case "--global" -> o.global(value(args, ++i, a));
                    default -> {
                        if (a.startsWith("--")) {
                            throw new IllegalArgumentException("unknown option " + a);
                        }
                        if (o.file != null) {
                            throw new IllegalArgumentException("more than one file given");
                        }
                        o.file = Path.of(a);
                    }
                }
            }
            if (o.file == null) {
                throw new IllegalArgumentException("no FILE.js given");
            }
            return o;
        }

        private void global(String spec) {
            int eq = spec.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--global needs NAME=JSON, got '" + spec + "'");
            }
            String name = spec.substring(0, eq);
            try {
                globals.put(name, Transport.fromJson(spec.substring(eq + 1)));
            } catch (TransportException e) {
                throw new IllegalArgumentException(
                        "--global " + name + ": not valid JSON: " + e.getMessage());
            }
        }

        private static String value(String[] args, int i, String flag) {
            if (i >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            return args[i];
        }

        private static long number(String[] args, int i, String flag, long min, long max) {
            String text = value(args, i, flag);
            long v;
            try {
                v = Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " needs a number, got '" + text + "'");
            }
            if (v < min || v > max) {
                throw new IllegalArgumentException(
                        flag + " (" + v + ") must be between " + min + " and " + max);
            }
            return v;
        }
    }
}
