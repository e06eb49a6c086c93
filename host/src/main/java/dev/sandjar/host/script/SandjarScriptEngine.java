package dev.sandjar.host.script;

import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.EngineException;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.transport.Undefined;
import dev.sandjar.transport.codec.Transport;
import dev.sandjar.transport.codec.TransportException;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.script.AbstractScriptEngine;
import javax.script.Bindings;
import javax.script.Compilable;
import javax.script.ScriptContext;
import javax.script.ScriptEngine;
import javax.script.ScriptException;
import javax.script.SimpleBindings;

/**
 * A JSR-223 engine over a {@link Sandbox}: every eval is a fresh sandboxed run, with nothing kept
 * between runs but what the caller keeps in its {@link Bindings}.
 *
 * <h2>Ownership and threading</h2>
 *
 * <p>An engine from {@link SandjarScriptEngineFactory#getScriptEngine()} (and so from {@code
 * ScriptEngineManager}) owns a sandbox it creates on first use with the built-in limits (30 s of
 * CPU, 64 MiB of heap, ...) and a pool of one engine instance per core; {@link #close()} closes it.
 * Close such an engine: otherwise its sandbox is closed only after the engine has become
 * unreachable and the garbage collector has noticed (a {@link Cleaner}). An engine from {@link
 * #create(Sandbox, RunRequest)} uses the caller's sandbox and never closes it: the caller owns it,
 * and its {@link #close()} only refuses further evals.
 *
 * <p>The engine is thread-safe ({@code THREADING} is {@code THREAD-ISOLATED}): evals from any
 * number of threads run in parallel up to the sandbox's pool size, each in its own QuickJS runtime.
 * The default {@link ScriptContext} and its bindings are shared, as JSR-223 makes them; threads
 * that eval concurrently should pass their own {@code Bindings} or context.
 *
 * <h2>A run</h2>
 *
 * <ul>
 *   <li><b>Code.</b> As in {@code ./sandjar run} and {@link RunRequest}: a function body whose
 *       {@code return} value is the result; {@code await} works at the top, static {@code import}s
 *       load modules (when the defaults grant a {@code ModuleResolution}), and code with a
 *       top-level {@code export} runs as a module whose default export is the result. A script
 *       without {@code return} evaluates to {@code null}: the value of its last expression
 *       statement is not the result, because the sandbox offers no way to find that statement
 *       without running a parse of its own ({@code eval} is removed from the guest). A top-level
 *       {@code undefined} result is {@code null}, as in the other JSR-223 engines; inside maps and
 *       lists it stays {@link Undefined#INSTANCE}.
 *   <li><b>Bindings.</b> The entries of the context's global scope, then of its engine scope (which
 *       wins), become the run's globals, copied in by the transport's rules (maps, lists, strings,
 *       numbers, booleans, {@code byte[]}, {@code Instant}, {@code BigInteger}, ...; see {@code
 *       docs/transport.md}). Keys starting with {@code javax.script.} are the context's own and are
 *       not passed; {@link ScriptEngine#FILENAME} names the code in errors (its last path segment).
 *       A key that is not an identifier, a value that cannot cross, or a name a granted bridge
 *       already defines fails the eval with a {@link ScriptException} naming the binding.
 *   <li><b>Changes.</b> After a successful run, each binding whose value is an object (a map, list,
 *       set, ...) is replaced in the {@code Bindings} it came from by a copy of the object as the
 *       run left it ({@link RunResult#globals()}): the run mutates a copy, never the caller's Java
 *       object. A primitive binding the script reassigns, and a global the script creates, are not
 *       copied out. A failed run changes no binding.
 *   <li><b>Limits.</b> The sandbox's defaults and ceilings, overridden by the defaults' {@link
 *       RunRequest#limits()}; the defaults' bridges, modules, clock, log listener and output
 *       truncation apply to every run, and their globals come before the bindings.
 *   <li><b>Console.</b> When the run ends, its log lines go to the context's writer ({@code log},
 *       {@code info}, {@code debug}) and error writer ({@code warn}, {@code error}, and the
 *       sandbox's own notices), one line each, and both are flushed. They are written by the
 *       calling thread after the run, not live: a context's writer may block or be unsafe to call
 *       from the engine's thread. Only granted bridges log: a factory-made engine grants none, so
 *       its guest has no {@code console}; pass {@code dev.sandjar.bridges.Capabilities.defaults()}
 *       (module {@code sandjar-bridges}) as the defaults' bridges for the standard one.
 *   <li><b>Errors.</b> A run that fails throws a {@link SandjarScriptException}: the kind, the JS
 *       error name and message, the user's line and column, and the {@link RunError}. Timeouts,
 *       memory, stack and output limits fail the same way with their kind in the message.
 *   <li><b>Interrupts.</b> Interrupting a thread blocked in an eval cancels its run; the eval
 *       throws a {@code SandjarScriptException} of kind {@code cancelled} with the interrupt flag
 *       set again.
 * </ul>
 *
 * <p>{@link Compilable}: {@link #compile(String)} parses the code at once and throws a syntax error
 * there; the {@link SandjarCompiledScript} reruns the code on every eval and is also {@link
 * javax.script.Invocable}. The engine itself is not {@code Invocable}: a function that an earlier
 * eval defined does not outlive that eval's run.
 */
public final class SandjarScriptEngine extends AbstractScriptEngine
        implements Compilable, AutoCloseable {
    /** The guest global holding the arguments of an invocation (see SandjarCompiledScript). */
    static final String INVOKE_GLOBAL = "$sandjarInvoke";

    private static final String CONTEXT_KEYS = "javax.script.";

    /** Closes the sandbox of a factory-made engine that became unreachable without close(). */
    private static final Cleaner CLEANER = Cleaner.create();

    private final SandjarScriptEngineFactory factory;
    private final RunRequest defaults;
    private final State state;
    private final Cleaner.Cleanable cleanable;

    SandjarScriptEngine(SandjarScriptEngineFactory factory, Sandbox sandbox, RunRequest defaults) {
        this.factory = factory;
        this.defaults = defaults;
        this.state = new State(sandbox);
        this.cleanable = state.owns ? CLEANER.register(this, state) : null;
    }

    /**
     * The sandbox and whether the engine is closed; also the cleaning action, so it must not refer
     * to the engine.
     */
    private static final class State implements Runnable {
        final boolean owns;
        private Sandbox sandbox; // guarded by this
        private boolean closed; // guarded by this

        State(Sandbox callers) {
            this.owns = callers == null;
            this.sandbox = callers;
        }

        synchronized Sandbox sandbox() {
            if (closed) {
                throw new EngineException("the script engine is closed");
            }
            if (sandbox == null) {
                sandbox = Sandbox.create();
            }
            return sandbox;
        }

        /** Marks the engine closed; closes the sandbox if the engine made it. */
        @Override
        public void run() {
            Sandbox toClose;
            synchronized (this) {
                closed = true;
                toClose = owns ? sandbox : null;
            }
            if (toClose != null) {
                toClose.close();
            }
        }
    }

    /** An engine over the caller's sandbox, with no defaults beyond the sandbox's. */
    public static SandjarScriptEngine create(Sandbox sandbox) {
        return create(sandbox, RunRequest.builder("").build());
    }

    /**
     * An engine over the caller's sandbox, which the caller keeps and closes. Every run takes the
     * filename, limits, bridges, module resolution, clock, log listener, output truncation and
     * globals of {@code defaults}; each eval's code and bindings come on top.
     *
     * @param defaults a request with empty code: {@code RunRequest.builder("").limits(..)
     *     .bridges(..).build()}
     */
    public static SandjarScriptEngine create(Sandbox sandbox, RunRequest defaults) {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(defaults, "defaults");
        if (!defaults.code().isEmpty()) {
            throw new InvalidRequestException(
                    "the defaults' code must be empty: every eval brings its own code");
        }
        return new SandjarScriptEngine(new SandjarScriptEngineFactory(), sandbox, defaults);
    }

    @Override
    public Object eval(String script, ScriptContext context) throws ScriptException {
        Objects.requireNonNull(script, "script");
        Objects.requireNonNull(context, "context");
        return toJava(run(script, context, null).value());
    }

    @Override
    public Object eval(Reader reader, ScriptContext context) throws ScriptException {
        return eval(read(reader), context);
    }

    @Override
    public Bindings createBindings() {
        return new SimpleBindings();
    }

    @Override
    public SandjarScriptEngineFactory getFactory() {
        return factory;
    }

    /**
     * Parses the code now, in the sandbox's analysis engine, and throws a {@link
     * SandjarScriptException} of kind {@code syntax} if it does not parse; nothing runs. The
     * compiled script keeps the source and runs it afresh on every eval.
     */
    @Override
    public SandjarCompiledScript compile(String script) throws ScriptException {
        Objects.requireNonNull(script, "script");
        CodeAnalysis analysis;
        try {
            analysis = sandbox().analyze(script);
        } catch (InvalidRequestException e) {
            throw scriptException("the code was refused: " + e.getMessage(), e);
        } finally {
            Reference.reachabilityFence(this);
        }
        if (analysis.syntaxError() != null) {
            throw new SandjarScriptException(analysis.syntaxError(), filename(getContext()));
        }
        return new SandjarCompiledScript(this, script, analysis.hasExports());
    }

    @Override
    public SandjarCompiledScript compile(Reader script) throws ScriptException {
        return compile(read(script));
    }

    /**
     * Refuses further evals. A factory-made engine also closes its sandbox (runs in progress finish
     * first); a caller's sandbox stays open. Closing twice does nothing.
     */
    @Override
    public void close() {
        if (cleanable != null) {
            cleanable.clean(); // runs state.run() once
        } else {
            state.run();
        }
    }

    /**
     * One run of {@code code} with the context's bindings as globals, plus the invocation's
     * arguments when {@code invokeArgs} is not null. Writes the log, syncs the bindings, and throws
     * when the run failed; returns the successful result.
     */
    RunResult run(String code, ScriptContext context, List<Object> invokeArgs)
            throws ScriptException {
        RunRequest.Builder b =
                RunRequest.builder(code)
                        .filename(filename(context))
                        .limits(defaults.limits())
                        .bridges(defaults.bridges())
                        .modules(defaults.modules())
                        .onLog(defaults.logListener())
                        .clock(defaults.clock())
                        .truncateOutput(defaults.truncateOutput());
        defaults.globals()
                .forEach(
                        (name, value) -> {
                            if (defaults.inputs().contains(name)) {
                                b.input(name, value);
                            } else {
                                b.global(name, value);
                            }
                        });
        Map<String, Bindings> origin = new HashMap<>();
        Map<String, Object> passed = new HashMap<>();
        for (int scope : new int[] {ScriptContext.GLOBAL_SCOPE, ScriptContext.ENGINE_SCOPE}) {
            Bindings bindings = context.getBindings(scope);
            if (bindings == null) {
                continue;
            }
            List<Map.Entry<String, Object>> entries;
            synchronized (bindings) {
                entries = new ArrayList<>(bindings.entrySet());
            }
            for (Map.Entry<String, Object> e : entries) {
                String name = e.getKey();
                if (name.startsWith(CONTEXT_KEYS)) {
                    continue;
                }
                try {
                    b.global(name, e.getValue());
                } catch (InvalidRequestException iae) {
                    throw scriptException(
                            "binding '" + name + "' cannot enter the sandbox: " + iae.getMessage(),
                            iae);
                }
                origin.put(name, bindings);
                passed.put(name, e.getValue());
            }
        }
        if (invokeArgs != null) {
            b.input(INVOKE_GLOBAL, invokeArgs);
        }
        RunRequest request = b.build();
        RunResult result;
        try {
            result = sandbox().run(request);
        } catch (InvalidRequestException e) {
            throw refused(e, passed, invokeArgs);
        } finally {
            // `this` is not used after the call starts: keep the cleaner off the sandbox meanwhile
            Reference.reachabilityFence(this);
        }
        IOException logFailure = writeLog(result.logs(), context);
        if (!result.isOk()) {
            SandjarScriptException failure =
                    new SandjarScriptException(result.error(), request.filename());
            try {
                result.valueOrThrow();
            } catch (RuntimeException hostException) {
                failure.initCause(hostException);
            }
            if (logFailure != null) {
                failure.addSuppressed(logFailure);
            }
            throw failure;
        }
        if (logFailure != null) {
            throw scriptException("the run's log could not be written: " + logFailure, logFailure);
        }
        result.globals()
                .forEach(
                        (name, value) -> {
                            Bindings from = origin.get(name);
                            if (from != null) {
                                synchronized (from) {
                                    from.put(name, value);
                                }
                            }
                        });
        return result;
    }

    /** JSR-223 has no undefined: a top-level one is null. */
    static Object toJava(Object value) {
        return value == Undefined.INSTANCE ? null : value;
    }

    /** Names the binding or argument that made the sandbox refuse the request. */
    private static ScriptException refused(
            InvalidRequestException e, Map<String, Object> bindings, List<Object> invokeArgs) {
        for (Map.Entry<String, Object> binding : bindings.entrySet()) {
            String why = transportRefusal(binding.getValue(), binding.getKey());
            if (why != null) {
                return scriptException(
                        "binding '" + binding.getKey() + "' cannot enter the sandbox: " + why, e);
            }
        }
        if (invokeArgs != null) {
            for (int i = 0; i < invokeArgs.size(); i++) {
                String why = transportRefusal(invokeArgs.get(i), "args[" + i + "]");
                if (why != null) {
                    return scriptException(
                            "argument " + i + " cannot enter the sandbox: " + why, e);
                }
            }
        }
        return scriptException("the sandbox refused the run: " + e.getMessage(), e);
    }

    private static String transportRefusal(Object value, String name) {
        try {
            Transport.encode(value, name);
            return null;
        } catch (TransportException te) {
            return te.getMessage();
        }
    }

    private static ScriptException scriptException(String message, Exception cause) {
        ScriptException se = new ScriptException(message);
        se.initCause(cause);
        return se;
    }

    /** Writes the log; returns the first write failure instead of hiding the run's outcome. */
    private static IOException writeLog(List<LogEntry> logs, ScriptContext context) {
        Writer out = context.getWriter();
        Writer err = context.getErrorWriter();
        try {
            for (LogEntry entry : logs) {
                boolean toErr =
                        entry.level() == LogEntry.Level.WARN
                                || entry.level() == LogEntry.Level.ERROR
                                || !"guest".equals(entry.source());
                Writer w = toErr ? err : out;
                if (w != null) {
                    w.write(entry.message());
                    w.write(System.lineSeparator());
                }
            }
            if (!logs.isEmpty()) {
                if (out != null) {
                    out.flush();
                }
                if (err != null) {
                    err.flush();
                }
            }
            return null;
        } catch (IOException e) {
            return e;
        }
    }

    /** The last path segment of the context's file name, else the defaults' filename. */
    String filename(ScriptContext context) {
        if (context.getAttribute(ScriptEngine.FILENAME) instanceof String path) {
            String name =
                    path.substring(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
            try {
                RunRequest.builder("").filename(name);
                return name;
            } catch (InvalidRequestException notUsable) {
                // an empty or over-long name: keep the default rather than fail the eval
            }
        }
        return defaults.filename();
    }

    /** Reads the whole script, refusing one longer than the sandbox's code ceiling. */
    private String read(Reader reader) throws ScriptException {
        Objects.requireNonNull(reader, "reader");
        int max = sandbox().ceilings().codeChars();
        StringBuilder code = new StringBuilder();
        char[] buf = new char[8192];
        try {
            for (int n; (n = reader.read(buf)) != -1; ) {
                code.append(buf, 0, n);
                if (code.length() > max) {
                    throw new ScriptException(
                            "the script is over " + max + " characters (the codeChars ceiling)");
                }
            }
        } catch (IOException e) {
            throw scriptException("the script could not be read: " + e, e);
        }
        return code.toString();
    }

    Sandbox sandbox() {
        return state.sandbox();
    }
}
