package dev.sandjar.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandjar.quickjs.EngineOptions;
import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsMemoryException;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsRuntime;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.QuickJsEngine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Parses guest code with acorn, running in an engine instance of its own that is started on first
 * use (loading acorn takes a few hundred milliseconds) and shared by all runs of a sandbox. The
 * code is data to the parser and never runs. Results are cached by code, so a body that runs many
 * times is parsed once. Thread-safe: parses are serialized on the analysis engine's thread.
 */
final class CodeAnalyzer implements AutoCloseable {
    /**
     * What the entry-module builder needs from a parse.
     *
     * @param script whether the code is a valid body of the script wrapper (then it has no import
     *     or export declaration and runs as a script)
     */
    record Parsed(
            RunError syntaxError,
            boolean script,
            List<Hoisted> imports,
            String hoisted,
            boolean hasExports,
            CodeAnalysis.Position firstExport,
            List<CodeAnalysis.Position> dynamicImports,
            List<CodeAnalysis.Position> requireCalls,
            boolean withReferences,
            List<CodeAnalysis.Reference> references) {

        CodeAnalysis toPublic() {
            return new CodeAnalysis(
                    syntaxError,
                    imports.stream()
                            .map(i -> new CodeAnalysis.Import(i.specifier(), i.line(), i.column()))
                            .toList(),
                    hasExports,
                    firstExport,
                    dynamicImports,
                    requireCalls,
                    references);
        }
    }

    /**
     * A session call's code as {@link SessionEntry} needs it: its top-level declarations turned
     * into assignments ({@code code}), and the names they and its function declarations bind.
     */
    record SessionPlan(
            RunError syntaxError,
            String code,
            List<String> lexical,
            List<String> vars,
            List<String> functions) {}

    /** A top-level import declaration and its place in the code (UTF-16 offsets). */
    record Hoisted(String specifier, int line, int column, int start, int end) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CACHE_ENTRIES = 256;
    private static final int CACHE_MAX_CHARS = 256 * 1024;

    /** QuickJS's own heap limit on the analysis engine. */
    private static final long HEAP_LIMIT = 512L << 20;

    /**
     * The analysis engine's WebAssembly memory, the bound that holds (QuickJS's own counter misses
     * allocator overhead on this build, docs/engine.md): the heap limit and half again, 768 MiB,
     * which a parse of the largest code a sandbox accepts (codeChars' ceiling) fits in.
     */
    static final int MEMORY_PAGES = (int) ((HEAP_LIMIT + HEAP_LIMIT / 2) >> 16);

    /** How long one parse may take. */
    static final Duration TIME_LIMIT = Duration.ofSeconds(20);

    /** How long loading acorn and the analyzer into a new engine may take. */
    private static final long LOAD_TIME_LIMIT_NANOS = 60_000_000_000L;

    private final EngineOptions options;
    private final Map<String, Parsed> cache =
            new LinkedHashMap<>(64, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Parsed> eldest) {
                    return size() > CACHE_ENTRIES;
                }
            };
    private QuickJsEngine engine; // guarded by this
    private JsValue session; // engine thread only: analyze.session
    private boolean closed; // guarded by this

    // Engine thread only.
    private JsRuntime runtime;
    private JsContext context;
    private JsValue analyze;
    private long deadline;
    private volatile Duration timeLimit = TIME_LIMIT;

    CodeAnalyzer(EngineOptions options) {
        this.options = options;
    }

    /** How long one parse may take from now on ({@link #TIME_LIMIT} unless a test shortens it). */
    void timeLimit(Duration limit) {
        this.timeLimit = limit;
    }

    /** Starts the engine and loads the parser now rather than on the first parse. */
    void warmUp() {
        parse("export {}");
    }

    /** Parses without the cache, so the parser runs (what {@link WarmUp} needs). */
    Parsed parseUncached(String code) {
        return parseUncached(code, false);
    }

    private Parsed parseUncached(String code, boolean withReferences) {
        return engine().call(e -> parseOnEngine(e, code, withReferences));
    }

    /** What a run needs: the parse without the scope walk. */
    Parsed parse(String code) {
        return parse(code, false);
    }

    /** {@code withReferences}: the free references too (a parse cached without them is redone). */
    Parsed parse(String code, boolean withReferences) {
        synchronized (cache) {
            Parsed hit = cache.get(code);
            if (hit != null && (hit.withReferences() || !withReferences)) {
                return hit;
            }
        }
        Parsed parsed = parseUncached(code, withReferences);
        if (code.length() <= CACHE_MAX_CHARS) {
            synchronized (cache) {
                cache.put(code, parsed);
            }
        }
        return parsed;
    }

    private synchronized QuickJsEngine engine() {
        if (closed) {
            throw new EngineException("the sandbox is closed");
        }
        if (engine == null || engine.isBroken()) {
            if (engine != null) {
                engine.close();
            }
            engine = QuickJsEngine.create(options);
        }
        return engine;
    }

    private Parsed parseOnEngine(QuickJsEngine e, String code, boolean withReferences) {
        Answer a =
                ask(
                        e,
                        false,
                        c -> c.bool(withReferences),
                        code,
                        EntryModule.SCRIPT_OPEN,
                        EntryModule.SCRIPT_CLOSE,
                        EntryModule.OPEN,
                        EntryModule.CLOSE);
        if (a.failure() != null) {
            return failed(a.failure(), 0, 0);
        }
        String json = a.json();
        try {
            return read(JSON.readTree(json), withReferences);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Plans a session call's code (not cached: a session runs each code once, as a rule). */
    SessionPlan sessionPlan(String code) {
        return engine().call(e -> sessionPlanOnEngine(e, code));
    }

    private SessionPlan sessionPlanOnEngine(QuickJsEngine e, String code) {
        Answer a = ask(e, true, null, code, SessionEntry.PARSE_OPEN, SessionEntry.CLOSE);
        if (a.failure() != null) {
            return new SessionPlan(
                    failed(a.failure(), 0, 0).syntaxError(), null, List.of(), List.of(), List.of());
        }
        String json = a.json();
        try {
            JsonNode n = JSON.readTree(json);
            JsonNode err = n.get("syntaxError");
            if (err != null) {
                return new SessionPlan(
                        failed(
                                        err.get("message").asText(),
                                        err.get("line").asInt(),
                                        err.get("column").asInt())
                                .syntaxError(),
                        null,
                        List.of(),
                        List.of(),
                        List.of());
            }
            return new SessionPlan(
                    null,
                    n.get("code").asText(),
                    strings(n.get("lexical")),
                    strings(n.get("vars")),
                    strings(n.get("functions")));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** The analyzer's answer (its JSON), or why there is none. */
    private record Answer(String json, String failure) {}

    /**
     * Calls {@code analyze(code, ...texts[, flag])}, or {@code analyze.session(...)}, on the
     * analysis engine under the parse time limit. A parse that fails in QuickJS (interrupted at the
     * limit, out of memory, thrown) drops the runtime, which the next parse loads again: only once
     * every value made here is closed, since they belong to its context.
     */
    private Answer ask(
            QuickJsEngine e,
            boolean forSession,
            Function<JsContext, JsValue> flag,
            String code,
            String... texts) {
        if (runtime == null) {
            load(e);
        }
        JsValue fn = forSession ? session : analyze;
        Duration limit = timeLimit;
        deadline = System.nanoTime() + limit.toNanos();
        List<JsValue> args = new ArrayList<>();
        String failure;
        try {
            args.add(context.newString(code));
            for (String t : texts) {
                args.add(context.newString(t));
            }
            JsValue[] all = args.toArray(new JsValue[args.size() + (flag != null ? 1 : 0)]);
            if (flag != null) {
                all[args.size()] = flag.apply(context);
            }
            try (JsResult r = context.call(fn, context.undefined(), all)) {
                if (r.isOk()) {
                    return new Answer(r.value().asString(), null);
                }
                JsError err = r.error();
                failure =
                        "the code could not be analysed: "
                                + (err.isInterrupted()
                                        ? "parsing took longer than " + describe(limit)
                                        : err.toString());
            }
        } catch (JsMemoryException ex) {
            failure = "the code is too large to analyse: " + ex.getMessage();
        } finally {
            args.forEach(JsValue::close);
        }
        discard();
        return new Answer(null, failure);
    }

    private static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private static List<String> strings(JsonNode list) {
        List<String> out = new ArrayList<>(list.size());
        list.forEach(v -> out.add(v.asText()));
        return out;
    }

    private static Parsed failed(String message, int line, int column) {
        return new Parsed(
                new RunError(RunError.Kind.SYNTAX, "SyntaxError", message, "", line, column),
                false,
                List.of(),
                "",
                false,
                null,
                List.of(),
                List.of(),
                true,
                null);
    }

    private static Parsed read(JsonNode n, boolean withReferences) {
        JsonNode err = n.get("syntaxError");
        if (err != null) {
            return failed(
                    err.get("message").asText(),
                    err.get("line").asInt(),
                    err.get("column").asInt());
        }
        List<Hoisted> imports = new ArrayList<>();
        for (JsonNode i : n.get("imports")) {
            imports.add(
                    new Hoisted(
                            i.get("specifier").asText(),
                            i.get("line").asInt(),
                            i.get("column").asInt(),
                            i.get("start").asInt(),
                            i.get("end").asInt()));
        }
        return new Parsed(
                null,
                n.get("script").asBoolean(),
                imports,
                n.get("hoisted").asText(),
                n.get("hasExports").asBoolean(),
                position(n.get("firstExport")),
                positions(n.get("dynamicImports")),
                positions(n.get("requires")),
                withReferences,
                withReferences ? references(n.get("references")) : null);
    }

    private static List<CodeAnalysis.Reference> references(JsonNode list) {
        if (list == null || list.isNull()) {
            return null; // the code nests too deeply for the scope walk
        }
        List<CodeAnalysis.Reference> out = new ArrayList<>(list.size());
        for (JsonNode r : list) {
            JsonNode property = r.get("property");
            JsonNode argument = r.get("argument");
            out.add(
                    new CodeAnalysis.Reference(
                            r.get("name").asText(),
                            r.get("line").asInt(),
                            r.get("column").asInt(),
                            property == null || property.isNull() ? null : property.asText(),
                            r.path("called").asBoolean(false),
                            argument == null || argument.isNull() ? null : argument.asText(),
                            r.path("dynamicArgument").asBoolean(false),
                            r.get("reachable").asBoolean(),
                            r.path("typeof").asBoolean(false)));
        }
        return out;
    }

    private static CodeAnalysis.Position position(JsonNode p) {
        return p == null || p.isNull()
                ? null
                : new CodeAnalysis.Position(p.get("line").asInt(), p.get("column").asInt());
    }

    private static List<CodeAnalysis.Position> positions(JsonNode list) {
        List<CodeAnalysis.Position> out = new ArrayList<>();
        for (JsonNode p : list) {
            out.add(new CodeAnalysis.Position(p.get("line").asInt(), p.get("column").asInt()));
        }
        return out;
    }

    private void load(QuickJsEngine e) {
        runtime = e.newRuntime();
        runtime.setMemoryLimit(HEAP_LIMIT);
        runtime.setMaxStackSize(QuickJsEngine.MAX_SAFE_STACK_BYTES);
        runtime.setInterruptHandler(() -> System.nanoTime() > deadline);
        context = runtime.newContext();
        deadline = System.nanoTime() + LOAD_TIME_LIMIT_NANOS;
        context.evalScript(resource("acorn.js"), "acorn.js").orThrow().close();
        analyze = context.evalScript(resource("analyzer.js"), "analyzer.js").orThrow();
        session = analyze.get("session");
    }

    private void discard() {
        if (runtime != null) {
            runtime.close();
        }
        runtime = null;
        context = null;
        analyze = null;
        session = null;
    }

    /** SHA-256 of the parser's sources, computed on first use (acorn is 240 KB). */
    static final class ParserId {
        static final String ID = compute();

        private ParserId() {}

        private static String compute() {
            try {
                MessageDigest d = MessageDigest.getInstance("SHA-256");
                for (String name : List.of("acorn.js", "analyzer.js")) {
                    d.update(resource(name).getBytes(StandardCharsets.UTF_8));
                    d.update((byte) 0);
                }
                return "sha256:" + HexFormat.of().formatHex(d.digest());
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("the JVM has no SHA-256", e);
            }
        }
    }

    static String resource(String name) {
        try (InputStream in = CodeAnalyzer.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new EngineException(name + " is missing from the sandjar-host jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() {
        closed = true; // no parse after this starts an engine nobody would close
        if (engine != null) {
            QuickJsEngine e = engine;
            engine = null;
            if (!e.isBroken() && !e.isClosed()) {
                try {
                    e.call(
                            x -> {
                                discard();
                                return null;
                            });
                } catch (RuntimeException ignored) {
                    // closing anyway
                }
            }
            e.close();
        }
    }
}
