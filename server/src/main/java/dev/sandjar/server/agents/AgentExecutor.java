package dev.sandjar.server.agents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.networknt.schema.Schema;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Limits;
import dev.sandjar.host.ModuleResolution;
import dev.sandjar.host.Operation;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.RunSession;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxClock;
import dev.sandjar.packs.CatalogResolution;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.packs.ModuleDeclaration;
import dev.sandjar.packs.ModuleSummary;
import dev.sandjar.packs.ToolModules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs an agent's actions (CodeAct): each action is a JavaScript body that imports the tools it
 * uses from {@code @sandjar/tools/<namespace>}, may import the packs this executor allows, and ends
 * the step with {@code finish(result)}. Immutable and thread-safe: one executor runs any number of
 * actions, each with its own tool-call count, events and finish state (docs/agents.md).
 *
 * <pre>{@code
 * AgentExecutor executor = AgentExecutor.builder(sandbox, registry).build();
 * ActionResult r = executor.execute(code, event -> log(event));
 * }</pre>
 */
public final class AgentExecutor {
    /** The default cap on tool calls per action. */
    public static final int DEFAULT_MAX_TOOL_CALLS = 50;

    /** The highest cap a caller may set. */
    public static final int MAX_TOOL_CALLS = 10_000;

    /** The name of the file actions run as, in errors and stacks. */
    public static final String FILENAME = "action.js";

    private static final Logger LOG = Logger.getLogger(AgentExecutor.class.getName());

    private final Sandbox sandbox;
    private final ToolRegistry registry;
    private final ModuleCatalog catalog;
    private final Set<String> allowedPacks;
    private final int maxToolCalls;
    private final String finishSchemaJson;
    private final Schema finishSchema;
    private final Limits limits;
    private final List<Bridge> bridges;
    private final Map<String, Object> exportsBySpecifier;

    private AgentExecutor(Builder b) {
        this.sandbox = b.sandbox;
        this.registry = b.registry;
        this.catalog = b.catalog;
        this.allowedPacks = Collections.unmodifiableSet(new TreeSet<>(b.allowedPacks));
        this.maxToolCalls = b.maxToolCalls;
        this.finishSchemaJson = b.finishSchema;
        this.finishSchema =
                b.finishSchema == null
                        ? null
                        : JsonSchemas.compile(b.finishSchema, "finish schema");
        this.limits = b.limits;
        this.bridges = List.copyOf(b.bridges);
        this.exportsBySpecifier = Collections.unmodifiableMap(readExports());
    }

    /**
     * The export names of every module of the allowed packs, read once by importing each in a run
     * of its own (no capabilities; the module's top level runs): a sorted list, or the error text
     * when the module does not load.
     */
    private Map<String, Object> readExports() {
        Map<String, Object> out = new LinkedHashMap<>();
        if (catalog == null || allowedPacks.isEmpty()) {
            return out;
        }
        for (ModuleSummary m : catalog.summaries()) {
            if (!allowedPacks.contains(m.pack())) {
                continue;
            }
            CatalogResolution r =
                    catalog.resolveForExecution(List.of(ModuleDeclaration.of(m.specifier())));
            if (!r.isOk()) {
                out.put(m.specifier(), r.errors().toString());
                continue;
            }
            String spec;
            try {
                spec = JsonSchemas.JSON.writeValueAsString(m.specifier());
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
            RunResult run =
                    sandbox.run(
                            RunRequest.builder(
                                            "import * as m from "
                                                    + spec
                                                    + ";\nreturn Object.keys(m).sort();")
                                    .filename(FILENAME)
                                    .modules(r.moduleResolution())
                                    .build());
            out.put(m.specifier(), run.isOk() ? run.value() : run.error().message());
        }
        return out;
    }

    /** The export names of an allowed pack's module ({@code sandjar.packs.exports}); else null. */
    public List<String> exportsOf(String specifier) {
        Object e = exportsBySpecifier.get(specifier);
        if (!(e instanceof List<?> l)) {
            return null;
        }
        return l.stream().map(String::valueOf).toList();
    }

    /** An executor over {@code registry}'s tools, running actions in {@code sandbox}. */
    public static Builder builder(Sandbox sandbox, ToolRegistry registry) {
        return new Builder(sandbox, registry);
    }

    public ToolRegistry registry() {
        return registry;
    }

    /** The packs actions may import, by package name. */
    public Set<String> allowedPacks() {
        return allowedPacks;
    }

    public int maxToolCalls() {
        return maxToolCalls;
    }

    /** The capabilities every action gets, besides the executor's own globals. */
    public List<Bridge> bridges() {
        return bridges;
    }

    /** The catalog allowed packs resolve from; null when there is none. */
    public ModuleCatalog catalog() {
        return catalog;
    }

    /** The step schema {@code finish(result)} validates against; null when any result is taken. */
    public String finishSchema() {
        return finishSchemaJson;
    }

    /** Runs one action without a listener. */
    public ActionResult execute(String code) {
        return execute(code, e -> {});
    }

    /**
     * Runs one action. Imports are checked before the guest starts: a tool namespace the registry
     * does not have, or a package outside {@link #allowedPacks()}, refuses the action with a
     * message the model can act on ({@link ActionResult#refusal()}). {@code listener} gets each
     * tool call's event as the call settles, on whatever thread it settled on: it must be quick and
     * must not throw (what it throws is logged and dropped).
     */
    public ActionResult execute(String code, Consumer<ToolCallEvent> listener) {
        return execute(code, listener, SandboxClock.create());
    }

    /**
     * Runs one action on {@code clock}: the clock its wall-clock bound is measured on, which a tool
     * waiting for a person suspends ({@link ToolInvocation#suspendClock()}, {@link
     * Tool.Builder#suspendsClock()}). Pass one clock to every action of a turn to suspend it from
     * outside too (around a plan approval, say). Suspended time does not count against the wall
     * bound, up to the limits' {@code suspendAllowance}; the CPU budget ({@code timeout}) is never
     * suspended, so a runaway loop is cut at it all the same.
     */
    public ActionResult execute(String code, Consumer<ToolCallEvent> listener, SandboxClock clock) {
        return execute(code, listener, clock, Authorization.none());
    }

    /**
     * Runs one action whose code {@code authorization} may authorize to call restricted tools
     * ({@link Tool.Builder#restricted()}), or whose approver decides for it.
     */
    public ActionResult execute(
            String code,
            Consumer<ToolCallEvent> listener,
            SandboxClock clock,
            Authorization authorization) {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(authorization, "authorization");
        Action action = new Action(listener, clock, authorization, Authorization.digest(code));
        CatalogResolution packs;
        try {
            packs = consent(code);
        } catch (ModuleResolution.Refused e) {
            return new ActionResult(
                    false,
                    null,
                    List.of(),
                    null,
                    new RunError(RunError.Kind.IMPORT, "ImportRefused", e.getMessage(), "", 0, 0));
        }
        Map<String, ModuleResolution.Module> toolModules = new LinkedHashMap<>();
        for (String ns : registry.namespaces()) {
            Bridge bridge = toolBridge(ns, action);
            Map<String, String> disabled = new LinkedHashMap<>();
            registry.tools(ns)
                    .values()
                    .forEach(
                            t -> {
                                if (t.disabledReason() != null) {
                                    disabled.put(t.name(), t.disabledReason());
                                }
                            });
            toolModules.put(
                    ns,
                    ToolModules.module(
                            ns, List.copyOf(registry.tools(ns).keySet()), disabled, bridge));
        }
        ModuleResolution packResolution = packs == null ? null : packs.moduleResolution();
        ModuleResolution resolution =
                (importer, specifier) -> {
                    if (specifier.startsWith(ToolModules.PREFIX)) {
                        String ns = ToolModules.namespaceOf(specifier);
                        ModuleResolution.Module m = ns == null ? null : toolModules.get(ns);
                        if (m == null || !importer.equals(FILENAME)) {
                            throw new ModuleResolution.Refused(
                                    "'" + specifier + "' is not a tool module of this action");
                        }
                        return m;
                    }
                    if (packResolution == null) {
                        throw new ModuleResolution.Refused(
                                "'" + specifier + "' is not available to this action");
                    }
                    return packResolution.resolve(importer, specifier);
                };
        RunRequest.Builder request =
                RunRequest.builder(code)
                        .filename(FILENAME)
                        .bridges(bridges)
                        .bridge(agentBridge(action))
                        .modules(resolution)
                        .clock(clock);
        if (limits != null) {
            request.limits(limits);
        }
        RunResult run = sandbox.run(request.build());
        RunError missing = missingTool(run);
        if (missing != null) {
            return new ActionResult(false, null, List.of(), null, missing);
        }
        synchronized (action) {
            return new ActionResult(action.finished, action.result, action.events, run, null);
        }
    }

    private static final java.util.regex.Pattern MISSING_EXPORT =
            java.util.regex.Pattern.compile(
                    "Could not find export '([^']+)' in module '"
                            + java.util.regex.Pattern.quote(ToolModules.PREFIX)
                            + "([^']+)'");

    /**
     * An import of a tool the namespace does not have fails to link, before any of the action runs:
     * reported as the refusal {@code NOT_FOUND} naming the namespace's tools, as a model can act on
     * it.
     */
    private RunError missingTool(RunResult run) {
        if (run.isOk() || run.error().kind() != RunError.Kind.SYNTAX) {
            return null;
        }
        java.util.regex.Matcher m = MISSING_EXPORT.matcher(run.error().message());
        if (!m.find() || !registry.namespaces().contains(m.group(2))) {
            return null;
        }
        String ns = m.group(2);
        return new RunError(
                RunError.Kind.IMPORT,
                "ToolError",
                ToolException.NOT_FOUND
                        + ": "
                        + ToolModules.specifier(ns)
                        + " has no tool '"
                        + m.group(1)
                        + "'; its tools: "
                        + String.join(", ", registry.tools(ns).keySet())
                        + " (sandjar.searchTools(query) finds a tool's import)",
                "",
                run.error().line(),
                run.error().column());
    }

    /** Refuses imports outside the action's consent; resolves the allowed packs' ones. */
    private CatalogResolution consent(String code) {
        if (!code.contains("import")) {
            return null;
        }
        CodeAnalysis a = sandbox.analyze(code);
        if (a.syntaxError() != null) {
            return null; // the run reports it where the user wrote it
        }
        List<String> problems = new ArrayList<>();
        List<ModuleDeclaration> packImports = new ArrayList<>();
        for (CodeAnalysis.Import i : a.imports()) {
            String spec = i.specifier();
            String where = "line " + i.line() + ": ";
            if (spec.startsWith(ToolModules.PREFIX)) {
                String ns = ToolModules.namespaceOf(spec);
                if (ns == null || !registry.namespaces().contains(ns)) {
                    problems.add(
                            where
                                    + "'"
                                    + spec
                                    + "' is not a tool module; tool modules: "
                                    + listOrNone(
                                            registry.namespaces().stream()
                                                    .map(ToolModules::specifier)
                                                    .toList())
                                    + " (sandjar.searchTools(query) finds a tool's import)");
                }
                continue;
            }
            String pack = packageOf(spec);
            if (!allowedPacks.contains(pack)) {
                problems.add(
                        where
                                + "'"
                                + spec
                                + "' is refused: package "
                                + pack
                                + " is not allowed for this action (allowed: "
                                + listOrNone(allowedPacks)
                                + ")");
                continue;
            }
            packImports.add(ModuleDeclaration.of(spec));
        }
        CatalogResolution r = null;
        if (!packImports.isEmpty()) {
            if (catalog == null) {
                problems.add("no packs are installed for this action");
            } else {
                r = catalog.resolveForExecution(packImports);
                r.errors().forEach(p -> problems.add(p.toString()));
            }
        }
        if (!problems.isEmpty()) {
            throw new ModuleResolution.Refused(
                    "the action's imports are refused: " + String.join("; ", problems));
        }
        return r;
    }

    private static String listOrNone(java.util.Collection<String> names) {
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    /** The package a specifier comes from: {@code @a/b/c} → {@code @a/b}, {@code x/y} → x. */
    static String packageOf(String specifier) {
        int slash = specifier.indexOf('/');
        if (specifier.startsWith("@")) {
            int second = slash < 0 ? -1 : specifier.indexOf('/', slash + 1);
            return second < 0 ? specifier : specifier.substring(0, second);
        }
        return slash < 0 ? specifier : specifier.substring(0, slash);
    }

    /** One action's state: its call count, its events, its finish. */
    private static final class Action {
        final Consumer<ToolCallEvent> listener;
        final SandboxClock clock;
        final AtomicInteger calls = new AtomicInteger();
        final List<ToolCallEvent> events = new ArrayList<>();
        boolean finished;
        Object result;

        final boolean authorized;
        final Authorization.Approver approver;
        final String digest;

        Action(
                Consumer<ToolCallEvent> listener,
                SandboxClock clock,
                Authorization authorization,
                String digest) {
            this.listener = listener;
            this.clock = clock;
            this.digest = digest;
            this.authorized = authorization.authorizes(digest);
            this.approver = authorization.approver();
        }

        void report(ToolCallEvent e) {
            synchronized (this) {
                events.add(e);
            }
            try {
                listener.accept(e);
            } catch (RuntimeException ex) {
                LOG.log(Level.WARNING, "a tool_call listener threw", ex);
            }
        }
    }

    private Bridge toolBridge(String namespace, Action action) {
        Bridge.Builder b =
                Bridge.builder(ToolModules.bridgeName(namespace)).guest("(host) => ({})");
        for (Tool tool : registry.tools(namespace).values()) {
            if (tool.disabledReason() != null) {
                continue; // its export throws NOT_FOUND in the guest: no operation to reach
            }
            b.operation(
                    Operation.builder(tool.name())
                            .param(Param.any("args").optional())
                            .handler(
                                    call ->
                                            invoke(
                                                    tool,
                                                    call.arg(0) == null ? Map.of() : call.arg(0),
                                                    call.session(),
                                                    action))
                            .build());
        }
        return b.build();
    }

    /** One tool call: cap, validate, run, report. Returns the guest's value or a failed stage. */
    private Object invoke(Tool tool, Object args, RunSession session, Action action) {
        int n = action.calls.incrementAndGet();
        String id = "call_" + n;
        String name = tool.namespace() + "/" + tool.name();
        long start = System.nanoTime();
        Consumer<Throwable> fail =
                t -> {
                    BridgeException be = asToolException(t);
                    action.report(
                            new ToolCallEvent(
                                    id,
                                    name,
                                    args,
                                    false,
                                    null,
                                    be.code(),
                                    be.getMessage(),
                                    Duration.ofNanos(System.nanoTime() - start)));
                };
        try {
            if (n > maxToolCalls) {
                throw new ToolException(
                        ToolException.TOOL_CALL_LIMIT,
                        "this action may make at most "
                                + maxToolCalls
                                + " tool calls; "
                                + name
                                + " was call "
                                + n
                                + ". Finish with what you have, or do the rest in the next"
                                + " action");
            }
            List<String> violations = JsonSchemas.violations(registry.schema(tool), args);
            if (!violations.isEmpty()) {
                throw new ToolException(
                        ToolException.INVALID_ARGUMENTS,
                        name
                                + ": the arguments do not match the tool's schema: "
                                + String.join("; ", violations));
            }
            if (tool.restricted() && !action.authorized) {
                if (action.approver == null) {
                    throw new ToolException(
                            ToolException.REQUIRES_AUTHORIZED_CODE,
                            name
                                    + " is restricted: only authorized code may call it, and this"
                                    + " action's code (sha256 "
                                    + action.digest
                                    + ") is not authorized");
                }
                return approveThenHandle(tool, args, session, action, id, name, start, fail);
            }
            return handle(tool, args, session, action, id, name, start, fail);
        } catch (RuntimeException e) {
            BridgeException be = asToolException(e);
            fail.accept(be);
            throw be;
        }
    }

    /** The handler's part of a call, once it may run; reports the outcome. */
    private Object handle(
            Tool tool,
            Object args,
            RunSession session,
            Action action,
            String id,
            String name,
            long start,
            Consumer<Throwable> fail) {
        SandboxClock.Suspension suspension = tool.suspendsClock() ? action.clock.suspend() : null;
        Object out;
        try {
            out =
                    tool.handler()
                            .handle(
                                    new ToolInvocation(
                                            id, tool, args, session.executor(), action.clock));
        } catch (RuntimeException e) {
            close(suspension);
            throw e;
        }
        if (!(out instanceof CompletionStage<?>)) {
            close(suspension);
        }
        if (out instanceof CompletionStage<?> stage) {
            CompletableFuture<Object> result = new CompletableFuture<>();
            stage.whenComplete(
                    (v, t) -> {
                        close(suspension);
                        if (t != null) {
                            BridgeException be = asToolException(t);
                            fail.accept(be);
                            result.completeExceptionally(be);
                            return;
                        }
                        try {
                            Object value = checked(name, v);
                            succeed(action, id, name, args, value, start);
                            result.complete(value);
                        } catch (ToolException e) {
                            fail.accept(e);
                            result.completeExceptionally(e);
                        }
                    });
            return result;
        }
        Object value = checked(name, out);
        succeed(action, id, name, args, value, start);
        return value;
    }

    /**
     * A restricted tool called by unauthorized code, with an approver: the action's clock is
     * suspended while the approver decides; approved, the handler runs (on the sandbox's I/O
     * executor, since the decision may complete on any thread); refused, the call fails with {@code
     * DENIED}. The decision is cancelled when the action ends first.
     */
    private Object approveThenHandle(
            Tool tool,
            Object args,
            RunSession session,
            Action action,
            String id,
            String name,
            long start,
            Consumer<Throwable> fail) {
        SandboxClock.Suspension waiting = action.clock.suspend();
        CompletableFuture<Boolean> decision;
        try {
            decision =
                    action.approver
                            .approve(
                                    new Authorization.ApprovalRequest(
                                            id, name, args, action.digest))
                            .toCompletableFuture();
        } catch (RuntimeException e) {
            waiting.close();
            throw new ToolException(
                    ToolException.DENIED, name + ": the approver failed: " + e.getMessage(), e);
        }
        session.onEnd(
                () -> {
                    decision.cancel(false);
                    waiting.close();
                });
        CompletableFuture<Object> result = new CompletableFuture<>();
        decision.whenComplete(
                (approved, t) -> {
                    waiting.close();
                    if (t != null || !Boolean.TRUE.equals(approved)) {
                        ToolException denied =
                                new ToolException(
                                        ToolException.DENIED,
                                        t == null
                                                        || t
                                                                instanceof
                                                                java.util.concurrent
                                                                        .CancellationException
                                                ? name + " was not approved for this action's code"
                                                : name
                                                        + ": the approval failed: "
                                                        + t.getMessage());
                        fail.accept(denied);
                        result.completeExceptionally(denied);
                        return;
                    }
                    session.executor()
                            .execute(
                                    () -> {
                                        try {
                                            Object out =
                                                    handle(
                                                            tool, args, session, action, id, name,
                                                            start, fail);
                                            if (out instanceof CompletionStage<?> stage) {
                                                stage.whenComplete(
                                                        (v, e) -> {
                                                            if (e != null) {
                                                                result.completeExceptionally(e);
                                                            } else {
                                                                result.complete(v);
                                                            }
                                                        });
                                            } else {
                                                result.complete(out);
                                            }
                                        } catch (RuntimeException e) {
                                            BridgeException be = asToolException(e);
                                            fail.accept(be);
                                            result.completeExceptionally(be);
                                        }
                                    });
                });
        return result;
    }

    private static void close(SandboxClock.Suspension s) {
        if (s != null) {
            s.close();
        }
    }

    private static void succeed(
            Action action, String id, String name, Object args, Object value, long start) {
        action.report(
                new ToolCallEvent(
                        id,
                        name,
                        args,
                        true,
                        value,
                        null,
                        null,
                        Duration.ofNanos(System.nanoTime() - start)));
    }

    /** {@code value}, unless it is an {@code {error}} payload. */
    private static Object checked(String name, Object value) {
        if (value instanceof Map<?, ?> m && m.containsKey("error") && m.get("error") != null) {
            Object error = m.get("error");
            String code = ToolException.TOOL_ERROR;
            String message;
            if (error instanceof Map<?, ?> em) {
                if (em.get("code") instanceof String c && !c.isBlank()) {
                    code = c;
                }
                message = String.valueOf(em.containsKey("message") ? em.get("message") : em);
            } else {
                message = String.valueOf(error);
            }
            throw new ToolException(code, name + ": " + message);
        }
        return value;
    }

    private static BridgeException asToolException(Throwable t) {
        Throwable cause = t;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof BridgeException be) {
            return be;
        }
        String message = cause.getMessage();
        return new ToolException(
                ToolException.TOOL_FAILED,
                message == null || message.isBlank() ? cause.getClass().getSimpleName() : message,
                cause);
    }

    /** {@code finish}, the {@code tools} thrower and {@code sandjar.searchTools}. */
    private Bridge agentBridge(Action action) {
        Map<String, List<String>> imports = new LinkedHashMap<>();
        for (Tool t : registry.all()) {
            imports.computeIfAbsent(t.name(), k -> new ArrayList<>()).add(t.importLine());
        }
        String importsJson;
        try {
            importsJson = JsonSchemas.JSON.writeValueAsString(imports);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        String guest =
                "(host) => {\n"
                        + "  const imports = "
                        + importsJson
                        + ";\n"
                        + "  const refuse = (p) => {\n"
                        + "    const lines = Object.prototype.hasOwnProperty.call(imports, p) ?"
                        + " imports[p] : null;\n"
                        + "    const e = new ReferenceError(lines\n"
                        + "      ? 'tools.' + p + ' does not exist: ' + lines.join(' or ')\n"
                        + "      : 'tools.' + p + ' does not exist, and no tool is named ' + p + ';"
                        + " sandjar.searchTools(query) finds tools and their imports');\n"
                        + "    e.code = 'TOOLS_GLOBAL';\n"
                        + "    throw e;\n"
                        + "  };\n"
                        + "  const tools = new Proxy(Object.freeze(Object.create(null)), {\n"
                        + "    get: (t, p) => typeof p === 'symbol' ? undefined : refuse(p),\n"
                        + "    has: (t, p) => typeof p === 'symbol' ? false : refuse(p),\n"
                        + "    set: (t, p) => refuse(String(p)),\n"
                        + "  });\n"
                        + "  return {\n"
                        + "    finish: (result) => host.call('finish', result),\n"
                        + "    tools,\n"
                        + "    sandjar: Object.freeze({\n"
                        + "      searchTools: (query) => host.call('searchTools', query ==="
                        + " undefined ? '' : String(query)),\n"
                        + "      packs: Object.freeze({\n"
                        + "        list: () => host.call('packsList'),\n"
                        + "        modules: (pack) => host.call('packsModules', String(pack)),\n"
                        + "        exports: (specifier) => host.call('packsExports',"
                        + " String(specifier)),\n"
                        + "        docs: (specifier) => host.call('packsDocs',"
                        + " String(specifier)),\n"
                        + "      }),\n"
                        + "    }),\n"
                        + "  };\n"
                        + "}";
        return Bridge.builder("agent")
                .guest(guest)
                .operation(
                        Operation.builder("finish")
                                .param(Param.any("result").optional())
                                .handler(call -> finish(action, call.arg(0)))
                                .build())
                .operation(
                        Operation.builder("packsList")
                                .handler(call -> PackDiscovery.list(this))
                                .build())
                .operation(
                        Operation.builder("packsModules")
                                .param(Param.string("pack").maxLength(1000))
                                .handler(call -> PackDiscovery.modules(this, call.string(0)))
                                .build())
                .operation(
                        Operation.builder("packsExports")
                                .param(Param.string("specifier").maxLength(1000))
                                .handler(call -> PackDiscovery.exports(this, call.string(0)))
                                .build())
                .operation(
                        Operation.builder("packsDocs")
                                .param(Param.string("specifier").maxLength(1000))
                                .handler(call -> PackDiscovery.docs(this, call.string(0)))
                                .build())
                .operation(
                        Operation.builder("searchTools")
                                .param(Param.string("query").maxLength(1000))
                                .handler(
                                        call ->
                                                registry.search(call.string(0)).stream()
                                                        .map(ToolRegistry.Hit::toGuest)
                                                        .toList())
                                .build())
                .build();
    }

    private Object finish(Action action, Object result) {
        if (finishSchema != null) {
            List<String> violations = JsonSchemas.violations(finishSchema, result);
            if (!violations.isEmpty()) {
                throw new BridgeException(
                        "FinishError",
                        "INVALID_RESULT",
                        "finish(result): the result does not match the step's schema: "
                                + String.join("; ", violations));
            }
        }
        synchronized (action) {
            if (action.finished) {
                throw new BridgeException(
                        "FinishError",
                        "ALREADY_FINISHED",
                        "finish was already called in this action");
            }
            action.finished = true;
            action.result = result;
        }
        return null;
    }

    public static final class Builder {
        private final Sandbox sandbox;
        private final ToolRegistry registry;
        private ModuleCatalog catalog;
        private final Set<String> allowedPacks = new LinkedHashSet<>();
        private int maxToolCalls = DEFAULT_MAX_TOOL_CALLS;
        private String finishSchema;
        private Limits limits;
        private final List<Bridge> bridges = new ArrayList<>();

        private Builder(Sandbox sandbox, ToolRegistry registry) {
            this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /** The packs actions may be allowed to import from; without one, no pack resolves. */
        public Builder withCatalog(ModuleCatalog c) {
            this.catalog = Objects.requireNonNull(c, "catalog");
            return this;
        }

        /** Consents to imports of package {@code packName} ({@code @sandjar/text}, say). */
        public Builder addAllowedPack(String packName) {
            Objects.requireNonNull(packName, "packName");
            if (packName.startsWith(ToolModules.PREFIX) || packName.isBlank()) {
                throw new InvalidRequestException("'" + packName + "' is not a pack name");
            }
            allowedPacks.add(packName);
            return this;
        }

        public Builder withMaxToolCalls(int n) {
            if (n < 1 || n > MAX_TOOL_CALLS) {
                throw new InvalidRequestException(
                        "maxToolCalls (" + n + ") must be between 1 and " + MAX_TOOL_CALLS);
            }
            this.maxToolCalls = n;
            return this;
        }

        /** The step's result schema (JSON Schema, as JSON text) that {@code finish} checks. */
        public Builder withFinishSchema(String jsonSchema) {
            this.finishSchema = Objects.requireNonNull(jsonSchema, "finishSchema");
            JsonSchemas.compile(jsonSchema, "finish schema");
            return this;
        }

        /** Each action's limits (default: the sandbox's defaults). */
        public Builder withLimits(Limits l) {
            this.limits = Objects.requireNonNull(l, "limits");
            return this;
        }

        /**
         * A capability every action gets (console, fetch, ...; see {@code Capabilities}). It may
         * not define {@code finish}, {@code tools} or {@code sandjar}.
         */
        public Builder addBridge(Bridge bridge) {
            bridges.add(Objects.requireNonNull(bridge, "bridge"));
            return this;
        }

        public Builder addBridges(List<Bridge> list) {
            list.forEach(this::addBridge);
            return this;
        }

        public AgentExecutor build() {
            return new AgentExecutor(this);
        }
    }
}
