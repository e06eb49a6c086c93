package dev.sandjar.quickjs.cli;

import dev.sandjar.quickjs.EngineFailureException;
import dev.sandjar.quickjs.EngineOptions;
import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsException;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsRuntime;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.QuickJsEngine;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code sandjar run FILE.js [--timeout-ms N] [--memory-mb N]}: evaluates FILE (as an ES module
 * when it uses module syntax, else as a script), prints the result as JSON on stdout and exits 0;
 * on failure prints {@code error: <kind>: <name>: <message>} on stderr and exits 2; bad usage exits
 * 1. Kinds: syntax, exception, timeout, memory, stack, internal.
 */
public final class SandjarCli {
    static final String USAGE =
            "usage: sandjar run FILE.js [--timeout-ms N] [--memory-mb N]\n"
                    + "  --timeout-ms N   stop the guest after N ms (default 30000, 1..600000)\n"
                    + "  --memory-mb N    guest heap limit in MiB (default 64, 1..512)";

    private SandjarCli() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("error: usage: " + e.getMessage());
            err.println(USAGE);
            return 1;
        }
        String code;
        try {
            code = Files.readString(options.file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            err.println("error: usage: cannot read " + options.file + ": " + e.getMessage());
            return 1;
        }
        long memoryBytes = options.memoryMb << 20;
        EngineOptions engineOptions =
                EngineOptions.builder()
                        .withMaxMemoryBytes(Math.max(memoryBytes + (32L << 20), 32L << 20))
                        .withStdout(err::println)
                        .build();
        try (QuickJsEngine engine = QuickJsEngine.create(engineOptions)) {
            Outcome outcome =
                    engine.call(
                            e -> evaluate(e, code, options.file.getFileName().toString(), options));
            if (outcome.error == null) {
                out.println(outcome.json);
                return 0;
            }
            err.println("error: " + outcome.kind + ": " + outcome.error);
            return 2;
        } catch (EngineFailureException e) {
            err.println("error: internal: EngineFailure: " + e.getMessage());
            return 2;
        } catch (RuntimeException e) {
            err.println("error: internal: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return 2;
        }
    }

    private record Outcome(String json, String kind, JsError error) {}

    private static Outcome evaluate(QuickJsEngine engine, String code, String name, Options o) {
        long deadline = System.nanoTime() + o.timeoutMs * 1_000_000L;
        try (JsRuntime rt = engine.newRuntime()) {
            rt.setMemoryLimit(o.memoryMb << 20);
            rt.setInterruptHandler(() -> System.nanoTime() > deadline);
            JsContext ctx = rt.newContext();
            JsContext.Evaluated evaluated = ctx.evalDetect(code, name);
            try (JsResult result = evaluated.result()) {
                if (!result.isOk()) {
                    return failure(result.error());
                }
                if (!evaluated.module()) {
                    return success(ctx, result.value());
                }
                return moduleResult(rt, ctx, result.value(), deadline);
            }
        }
    }

    private static Outcome moduleResult(JsRuntime rt, JsContext ctx, JsValue ns, long deadline) {
        JsValue namespace = ns;
        boolean owned = false;
        try {
            if (ctx.promiseState(ns) != JsContext.PromiseState.NOT_A_PROMISE) {
                while (ctx.promiseState(ns) == JsContext.PromiseState.PENDING) {
                    if (!rt.isJobPending()) {
                        return failure(
                                new JsError(
                                        "Error",
                                        "the module awaits a promise that can never settle",
                                        ""));
                    }
                    if (System.nanoTime() > deadline) {
                        return failure(new JsError("InternalError", "interrupted", ""));
                    }
                    JsRuntime.JobsResult jobs = rt.executePendingJobs(64);
                    if (jobs.error() != null) {
                        return failure(jobs.error());
                    }
                }
                namespace = ctx.promiseResult(ns);
                owned = true;
                if (ctx.promiseState(ns) == JsContext.PromiseState.REJECTED) {
                    return failure(ctx.errorOf(namespace));
                }
            }
            try (JsValue d = namespace.get("default")) {
                return success(ctx, d);
            }
        } finally {
            if (owned) {
                namespace.close();
            }
        }
    }

    private static Outcome success(JsContext ctx, JsValue value) {
        if (value.isUndefined()) {
            return new Outcome("null", null, null);
        }
        try {
            String json = ctx.toJson(value);
            return new Outcome(json == null ? "null" : json, null, null);
        } catch (JsException e) {
            return failure(e.error());
        }
    }

    private static Outcome failure(JsError error) {
        String kind;
        if (error.isInterrupted()) {
            kind = "timeout";
        } else if (error.isOutOfMemory()) {
            kind = "memory";
        } else if (error.isStackOverflow()) {
            kind = "stack";
        } else if (error.name().equals("SyntaxError")) {
            kind = "syntax";
        } else {
            kind = "exception";
        }
        return new Outcome(null, kind, error);
    }

    static final class Options {
        Path file;
        long timeoutMs = 30_000;
        long memoryMb = 64;

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

        private static long number(String[] args, int i, String flag, long min, long max) {
            if (i >= args.length) {
                throw new IllegalArgumentException(flag + " needs a number");
            }
            long v;
            try {
                v = Long.parseLong(args[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " needs a number, got '" + args[i] + "'");
            }
            if (v < min || v > max) {
                throw new IllegalArgumentException(
                        flag + " (" + v + ") must be between " + min + " and " + max);
            }
            return v;
        }
    }
}
