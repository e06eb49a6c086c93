package dev.sandjar.host.script;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Bridge;
import dev.sandjar.host.Limits;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.Operation;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.script.Bindings;
import javax.script.Compilable;
import javax.script.CompiledScript;
import javax.script.Invocable;
import javax.script.ScriptContext;
import javax.script.ScriptEngine;
import javax.script.ScriptEngineManager;
import javax.script.ScriptException;
import javax.script.SimpleScriptContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Evaluation through {@code javax.script}: a factory-made engine from the {@link
 * ScriptEngineManager}, and one over a caller's sandbox with a short timeout and a console.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScriptEngineTest {
    static ScriptEngine engine;
    static Sandbox sandbox;
    static SandjarScriptEngine limited;

    /** A {@code console} with {@code log} and {@code error}, each one line of the run's log. */
    static final Bridge CONSOLE =
            Bridge.builder("console")
                    .guest(
                            "(host) => ({ console: {"
                                    + " log: (m) => host.call('log', 'LOG', String(m)),"
                                    + " error: (m) => host.call('log', 'ERROR', String(m)) } })")
                    .operation(
                            Operation.builder("log")
                                    .param(Param.string("level"))
                                    .param(Param.string("message"))
                                    .handler(
                                            c -> {
                                                c.session()
                                                        .log(
                                                                LogEntry.Level.valueOf(c.string(0)),
                                                                c.string(1));
                                                return null;
                                            })
                                    .build())
                    .build();

    @BeforeAll
    static void start() {
        engine = new ScriptEngineManager().getEngineByName("sandjar");
        assertInstanceOf(SandjarScriptEngine.class, engine);
        sandbox = Sandbox.builder().poolSize(1).build();
        limited =
                SandjarScriptEngine.create(
                        sandbox,
                        RunRequest.builder("")
                                .limits(Limits.builder().timeout(Duration.ofMillis(300)).build())
                                .bridge(CONSOLE)
                                .build());
    }

    @AfterAll
    static void stop() {
        ((SandjarScriptEngine) engine).close();
        limited.close();
        sandbox.close();
    }

    // -------------------------------------------------------------------------------------------
    // Values in and out.

    @Test
    void bindingsBecomeGlobalsAndTheReturnValueIsTheResult() throws ScriptException {
        Bindings b = engine.createBindings();
        b.put("inputs", Map.of("a", 1, "b", 2));
        b.put("greeting", "hi");
        assertEquals(3L, engine.eval("return inputs.a + inputs.b", b));
        assertEquals("hi!", engine.eval(new StringReader("return greeting + '!'"), b));

        ScriptContext context = new SimpleScriptContext();
        context.setAttribute("x", 21, ScriptContext.ENGINE_SCOPE);
        assertEquals(42L, engine.eval("return x * 2", context));
    }

    @Test
    void engineScopeWinsOverGlobalScope() throws ScriptException {
        ScriptContext context = new SimpleScriptContext();
        Bindings global = engine.createBindings();
        global.put("a", "global");
        global.put("b", "global");
        context.setBindings(global, ScriptContext.GLOBAL_SCOPE);
        context.setAttribute("a", "engine", ScriptContext.ENGINE_SCOPE);
        assertEquals(List.of("engine", "global"), engine.eval("return [a, b]", context));
    }

    @Test
    void resultsOfEachKindComeBackAsTheTransportsJavaForms() throws ScriptException {
        assertEquals(7L, engine.eval("return 7"));
        assertEquals(1.5, engine.eval("return 3 / 2"));
        assertEquals("text", engine.eval("return 'te' + 'xt'"));
        assertEquals(true, engine.eval("return 1 < 2"));
        Map<String, Object> expected = new HashMap<>();
        expected.put("a", 1L);
        expected.put("b", List.of("x", true));
        expected.put("c", null);
        assertEquals(expected, engine.eval("return {a: 1, b: ['x', true], c: null}"));
        assertEquals(List.of(1L, "two", 3.5), engine.eval("return [1, 'two', 3.5]"));
        assertArrayEquals(
                new byte[] {1, 2, (byte) 255},
                (byte[]) engine.eval("return new Uint8Array([1, 2, 255])"));
        assertNull(engine.eval("return null"));
        assertNull(engine.eval("return undefined"));
        assertEquals(42L, engine.eval("export const unused = 1;\nexport default 6 * 7;"));
        // No return: the last expression is not the result (documented).
        assertNull(engine.eval("const x = 1;\nx + 1;"));
    }

    @Test
    void aGlobalSetInOneEvalIsNotSeenByTheNext() throws ScriptException {
        Bindings b = engine.createBindings();
        assertEquals(1L, engine.eval("globalThis.leak = 1; return leak", b));
        assertEquals("undefined", engine.eval("return typeof leak", b));
        assertFalse(b.containsKey("leak"), "a global the script made is not copied out");
    }

    @Test
    void objectBindingsAreCopiedBackAfterASuccessfulRunOnly() throws ScriptException {
        Map<String, Object> state = new HashMap<>(Map.of("count", 1));
        Bindings b = engine.createBindings();
        b.put("state", state);
        b.put("n", 1);
        assertEquals(2L, engine.eval("state.count++; n = 5; return state.count", b));
        assertEquals(Map.of("count", 2L), b.get("state"));
        assertEquals(Map.of("count", 1), state, "the caller's object itself is not mutated");
        assertEquals(1, b.get("n"), "a primitive the script reassigns is not copied out");

        Object before = b.get("state");
        assertThrows(
                ScriptException.class,
                () -> engine.eval("state.count = 100; throw new Error('no')", b));
        assertSame(before, b.get("state"), "a failed run changes no binding");
    }

    @Test
    void aBindingThatCannotCrossFailsNamingIt() {
        Bindings b = engine.createBindings();
        b.put("ok", 1);
        b.put("lock", new Object());
        ScriptException e = assertThrows(ScriptException.class, () -> engine.eval("return 1", b));
        assertTrue(
                e.getMessage().contains("binding 'lock' cannot enter the sandbox"), e::getMessage);
        assertTrue(e.getMessage().contains("java.lang.Object"), e::getMessage);

        Bindings decimal = engine.createBindings();
        decimal.put("price", Map.of("amount", new BigDecimal("1.10")));
        e = assertThrows(ScriptException.class, () -> engine.eval("return 1", decimal));
        assertTrue(e.getMessage().contains("binding 'price'"), e::getMessage);
        assertTrue(e.getMessage().contains("BigDecimal"), e::getMessage);

        Bindings badName = engine.createBindings();
        badName.put("not-a-name", 1);
        e = assertThrows(ScriptException.class, () -> engine.eval("return 1", badName));
        assertTrue(e.getMessage().contains("binding 'not-a-name'"), e::getMessage);
        assertTrue(e.getMessage().contains("identifier"), e::getMessage);
    }

    @Test
    void aBindingNamedLikeAGrantedBridgesGlobalIsRefused() {
        Bindings b = limited.createBindings();
        b.put("console", "mine");
        ScriptException e = assertThrows(ScriptException.class, () -> limited.eval("return 1", b));
        assertTrue(e.getMessage().contains("console"), e::getMessage);
    }

    // -------------------------------------------------------------------------------------------
    // Failures.

    @Test
    void aSyntaxErrorHasTheUsersLineAndColumn() {
        Bindings b = engine.createBindings();
        b.put(ScriptEngine.FILENAME, "scripts/calc.js");
        SandjarScriptException e =
                assertThrows(
                        SandjarScriptException.class,
                        () -> engine.eval("let x = 1;\nlet y = ;\nreturn x;", b));
        assertEquals(RunError.Kind.SYNTAX, e.error().kind());
        assertEquals("SyntaxError", e.error().name());
        assertEquals(2, e.getLineNumber());
        assertEquals(9, e.getColumnNumber());
        assertEquals("calc.js", e.getFileName());
        assertTrue(e.getMessage().startsWith("syntax: SyntaxError: "), e::getMessage);
        assertTrue(e.getMessage().endsWith(" in calc.js at line number 2 at column number 9"));
    }

    @Test
    void aThrownGuestErrorKeepsItsNameMessageAndPosition() {
        // QuickJS places an error where it was constructed.
        String code =
                "function spend() {\n"
                        + "  const e = new Error('over by 3');\n"
                        + "  e.name = 'QuotaError';\n"
                        + "  throw e;\n"
                        + "}\n"
                        + "return spend();";
        SandjarScriptException e =
                assertThrows(SandjarScriptException.class, () -> engine.eval(code));
        assertEquals(RunError.Kind.EXCEPTION, e.error().kind());
        assertEquals("QuotaError", e.error().name());
        assertEquals("over by 3", e.error().message());
        assertEquals(2, e.getLineNumber());
        assertTrue(e.getColumnNumber() > 0, () -> "column " + e.getColumnNumber());
        assertEquals("main.js", e.getFileName());
        assertTrue(e.getMessage().startsWith("exception: QuotaError: over by 3"), e::getMessage);
        assertTrue(e.error().stack().contains("spend"), e.error()::stack);
        assertNotNull(e.getCause(), "the host API's exception is the cause");
    }

    @Test
    void aTimeoutIsAScriptExceptionOfKindTimeout() {
        SandjarScriptException e =
                assertThrows(SandjarScriptException.class, () -> limited.eval("while (true) {}"));
        assertEquals(RunError.Kind.TIMEOUT, e.error().kind());
        assertTrue(e.getMessage().startsWith("timeout: "), e::getMessage);
    }

    @Test
    void interruptingTheCallerCancelsTheRun() throws Exception {
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        Thread caller =
                new Thread(
                        () -> {
                            try {
                                outcome.complete(engine.eval("while (true) {}"));
                            } catch (Throwable t) {
                                stillInterrupted.set(Thread.currentThread().isInterrupted());
                                outcome.complete(t);
                            }
                        });
        caller.start();
        Thread.sleep(500);
        caller.interrupt();
        caller.join(30_000);
        assertFalse(caller.isAlive(), "the eval returned");
        SandjarScriptException e = assertInstanceOf(SandjarScriptException.class, outcome.get());
        assertEquals(RunError.Kind.CANCELLED, e.error().kind());
        assertTrue(e.getMessage().startsWith("cancelled: "), e::getMessage);
        assertTrue(stillInterrupted.get(), "the interrupt flag is set again");
    }

    // -------------------------------------------------------------------------------------------
    // Console.

    @Test
    void theRunsLogGoesToTheContextsWriters() throws ScriptException {
        ScriptContext context = new SimpleScriptContext();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        context.setWriter(out);
        context.setErrorWriter(err);
        String code =
                limited.getFactory()
                        .getProgram(
                                "console.log('one')",
                                "console.error('bad')",
                                limited.getFactory().getOutputStatement("two \"quoted\""),
                                "return 1");
        assertEquals(1L, limited.eval(code, context));
        String nl = System.lineSeparator();
        assertEquals("one" + nl + "two \"quoted\"" + nl, out.toString());
        assertEquals("bad" + nl, err.toString());

        StringWriter failed = new StringWriter();
        context.setWriter(failed);
        assertThrows(
                ScriptException.class,
                () -> limited.eval("console.log('before'); throw new Error('x')", context));
        assertEquals("before" + nl, failed.toString(), "a failed run's log is written too");
    }

    // -------------------------------------------------------------------------------------------
    // Compilable and Invocable.

    @Test
    void aCompiledScriptRunsAfreshOnEveryEval() throws ScriptException {
        CompiledScript script =
                ((Compilable) engine)
                        .compile(
                                "globalThis.runs = (globalThis.runs ?? 0) + 1;\n"
                                        + "counter.n += 1;\n"
                                        + "return [runs, counter.n];");
        Bindings b = engine.createBindings();
        b.put("counter", Map.of("n", 1));
        assertEquals(List.of(1L, 2L), script.eval(b));
        assertEquals(List.of(1L, 3L), script.eval(b), "fresh globals; the binding was synced");
        assertSame(engine, script.getEngine());
    }

    @Test
    void compilingChecksSyntaxWithoutRunning() {
        SandjarScriptException e =
                assertThrows(
                        SandjarScriptException.class,
                        () -> ((Compilable) engine).compile("const a = 1;\nreturn (a + ;"));
        assertEquals(RunError.Kind.SYNTAX, e.error().kind());
        assertEquals(2, e.getLineNumber());
        assertTrue(e.getColumnNumber() > 0);
    }

    @Test
    void invokeFunctionRunsTheBodyThenCallsTheFunction() throws Exception {
        Invocable script =
                (Invocable)
                        ((Compilable) engine)
                                .compile(
                                        "const base = 10;\n"
                                                + "function add(a, b) { return base + a + b; }\n"
                                                + "const twice = async (s) => s + s;\n"
                                                + "const echo = (x) => x;\n"
                                                + "function fail() { throw new TypeError('no'); }");
        assertEquals(13L, script.invokeFunction("add", 1, 2));
        assertEquals("abab", script.invokeFunction("twice", "ab"));
        assertEquals(
                Map.of("k", List.of(1L)), script.invokeFunction("echo", Map.of("k", List.of(1))));
        assertNull(script.invokeFunction("echo"), "undefined is null");

        assertThrows(NoSuchMethodException.class, () -> script.invokeFunction("base"));
        assertThrows(NoSuchMethodException.class, () -> script.invokeFunction("missing"));
        assertThrows(NoSuchMethodException.class, () -> script.invokeFunction("not a name"));
        SandjarScriptException e =
                assertThrows(SandjarScriptException.class, () -> script.invokeFunction("fail"));
        assertEquals("TypeError", e.error().name());
        assertEquals(5, e.getLineNumber());

        ScriptException arg =
                assertThrows(
                        ScriptException.class, () -> script.invokeFunction("add", 1, new Object()));
        assertTrue(arg.getMessage().contains("argument 1 cannot enter"), arg::getMessage);

        assertThrows(IllegalArgumentException.class, () -> script.invokeMethod(Map.of(), "add"));
        assertThrows(
                IllegalArgumentException.class, () -> script.getInterface(Map.of(), Calc.class));
    }

    @Test
    void invokingABodyThatReturnsOrAModuleFails() throws ScriptException {
        Invocable returns =
                (Invocable) ((Compilable) engine).compile("function f() { return 1; }\nreturn 2;");
        ScriptException e = assertThrows(ScriptException.class, () -> returns.invokeFunction("f"));
        assertTrue(e.getMessage().contains("returned at the top level"), e::getMessage);

        Invocable module =
                (Invocable)
                        ((Compilable) engine)
                                .compile("export function f() { return 1; }\nexport default 2;");
        e = assertThrows(ScriptException.class, () -> module.invokeFunction("f"));
        assertTrue(e.getMessage().contains("module"), e::getMessage);
    }

    /** What {@link Invocable#getInterface(Class)} implements. */
    interface Calc {
        int add(int a, int b);

        default int addTwice(int a, int b) {
            return add(a, b) * 2;
        }
    }

    @Test
    void getInterfaceCallsAFunctionPerMethodOrGivesNull() throws ScriptException {
        Invocable script =
                (Invocable)
                        ((Compilable) engine).compile("function add(a, b) { return a + b + 1; }");
        Calc calc = script.getInterface(Calc.class);
        assertNotNull(calc);
        assertEquals(4, calc.add(1, 2));
        assertEquals(8, calc.addTwice(1, 2));
        assertNull(script.getInterface(Runnable.class), "no top-level function run()");
    }
}
