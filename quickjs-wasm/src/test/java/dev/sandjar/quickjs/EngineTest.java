package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EngineLeakCheck.class)
class EngineTest {
    private static QuickJsEngine engine;

    @BeforeAll
    static void start() {
        engine = QuickJsEngine.create();
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    /** Runs body with a fresh runtime and context, and checks it left no handle open. */
    private static <T> T inContext(ContextBody<T> body) {
        return engine.call(
                e -> {
                    try (JsRuntime rt = e.newRuntime()) {
                        JsContext ctx = rt.newContext();
                        T result = body.run(rt, ctx);
                        assertEquals(0, ctx.openHandles(), "handles left open");
                        return result;
                    }
                });
    }

    interface ContextBody<T> {
        T run(JsRuntime rt, JsContext ctx);
    }

    private static String evalToString(JsContext ctx, String code) {
        try (JsValue v = ctx.evalScript(code, "test.js").orThrow()) {
            return v.asString();
        }
    }

    @Test
    void evaluatesScript() {
        assertEquals("3", inContext((rt, ctx) -> evalToString(ctx, "String(1 + 2)")));
        double n =
                inContext(
                        (rt, ctx) -> {
                            try (JsValue v = ctx.evalScript("6 * 7", "a.js").orThrow()) {
                                return v.asNumber();
                            }
                        });
        assertEquals(42.0, n);
    }

    @Test
    void evaluatesModuleWithDefaultExport() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            try (JsValue ns =
                                            ctx.evalModule("export default 'hi ' + 2;", "m.js")
                                                    .orThrow();
                                    JsValue d = ns.get("default")) {
                                return d.asString();
                            }
                        });
        assertEquals("hi 2", s);
    }

    @Test
    void syntaxErrorHasLineAndColumn() {
        JsError err =
                inContext(
                        (rt, ctx) -> {
                            try (JsResult r = ctx.evalScript("let a = 1;\nlet b = ;", "bad.js")) {
                                return r.error();
                            }
                        });
        assertEquals("SyntaxError", err.name());
        assertTrue(err.stack().contains("bad.js:2:"), err.stack());
    }

    @Test
    void thrownErrorKeepsNameMessageStack() {
        JsError err =
                inContext(
                        (rt, ctx) -> {
                            try (JsResult r =
                                    ctx.evalScript(
                                            "function f() { throw new TypeError('boom'); }\nf();",
                                            "t.js")) {
                                return r.error();
                            }
                        });
        assertEquals("TypeError", err.name());
        assertEquals("boom", err.message());
        assertTrue(err.stack().contains("at f (t.js:1"), err.stack());
        JsException ex =
                assertThrows(
                        JsException.class,
                        () ->
                                inContext(
                                        (rt, ctx) ->
                                                ctx.evalScript("throw new RangeError('x')", "r.js")
                                                        .orThrow()));
        assertEquals("RangeError", ex.error().name());
    }

    @Test
    void nonErrorThrowsBecomeValues() {
        JsError err =
                inContext(
                        (rt, ctx) -> {
                            try (JsResult r = ctx.evalScript("throw 42", "n.js")) {
                                return r.error();
                            }
                        });
        assertEquals(new JsError("number", "42", ""), err);
    }

    @Test
    void interruptStopsInfiniteLoop() {
        JsError err =
                inContext(
                        (rt, ctx) -> {
                            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                            rt.setInterruptHandler(() -> System.nanoTime() > deadline);
                            try (JsResult r = ctx.evalScript("while (true) {}", "loop.js")) {
                                return r.error();
                            }
                        });
        assertTrue(err.isInterrupted(), err.toString());
    }

    @Test
    void interruptCannotBeCaughtByGuest() {
        JsError err =
                inContext(
                        (rt, ctx) -> {
                            int[] polls = {0};
                            rt.setInterruptHandler(() -> ++polls[0] > 3);
                            try (JsResult r =
                                    ctx.evalScript(
                                            "for (;;) { try { while (true) {} } catch (e) {} }",
                                            "catch.js")) {
                                return r.error();
                            }
                        });
        assertTrue(err.isInterrupted(), err.toString());
    }

    @Test
    void memoryLimitIsCatchableAndHostStaysHealthy() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            rt.setMemoryLimit(8 << 20);
                            String caught =
                                    evalToString(
                                            ctx,
                                            "let r; try { const a = []; for (;;)"
                                                + " a.push('x'.repeat(1000) + a.length); } catch"
                                                + " (e) { r = String(e); } r");
                            return caught + "|" + evalToString(ctx, "String(1 + 1)");
                        });
        assertTrue(s.contains("out of memory"), s);
        assertTrue(s.endsWith("|2"), s);
    }

    @Test
    void deepRecursionStopsAtStackLimitAtTheClamp() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            assertEquals(
                                    QuickJsEngine.MAX_SAFE_STACK_BYTES,
                                    rt.setMaxStackSize(Integer.MAX_VALUE));
                            ctx.evalScript("globalThis.keep = 'intact'", "k.js").orThrow().close();
                            JsError err;
                            try (JsResult r =
                                    ctx.evalScript(
                                            "function f(n) { return f(n + 1) + 1; } f(0)",
                                            "deep.js")) {
                                err = r.error();
                            }
                            assertTrue(err.isStackOverflow(), err.toString());
                            return evalToString(ctx, "keep + ':' + [1,2,3].map(x => x * 2).join()");
                        });
        assertEquals("intact:2,4,6", s);
        assertFalse(engine.isBroken());
    }

    @Test
    void hostFunctionRoundTripsValues() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            List<String> seen = new ArrayList<>();
                            try (JsValue global = ctx.global();
                                    JsValue echo =
                                            ctx.newFunction(
                                                    "echo",
                                                    (c, self, args) -> {
                                                        JsValue a = args.get(0);
                                                        seen.add(a.typeOf());
                                                        return a.dup();
                                                    })) {
                                global.set("echo", echo);
                            }
                            String str =
                                    evalToString(ctx, "echo('h\\u00e9llo \\u{1F600} a\\u0000b')");
                            assertEquals("h\u00e9llo \uD83D\uDE00 a\u0000b", str);
                            // host to guest: NUL and a lone surrogate survive exactly
                            try (JsValue global = ctx.global();
                                    JsValue v = ctx.newString("x\u0000y\uD800z")) {
                                global.set("fromHost", v);
                            }
                            assertEquals(
                                    "5,0,55296",
                                    evalToString(
                                            ctx,
                                            "[fromHost.length, fromHost.charCodeAt(1),"
                                                    + " fromHost.charCodeAt(3)].join()"));
                            assertEquals("x\u0000y\uD800z", evalToString(ctx, "echo(fromHost)"));
                            assertEquals(
                                    "1.5|true|null|undefined|{\"a\":[1,2]}",
                                    evalToString(
                                            ctx,
                                            "[echo(1.5), echo(true), echo(null), echo(undefined),"
                                                + " JSON.stringify(echo({a:[1,2]}))].map(String).join('|')"));
                            return String.join(",", seen);
                        });
        assertEquals("string,string,number,boolean,object,undefined,object", s);
    }

    /**
     * Guest code re-entered from a host call, many levels deep, keeps every level's locals: each
     * guest level holds values across its call out to the host, which evaluates the next level. The
     * interpreter loop's outlined pieces return their locals in one array per engine instance
     * (docs/engine.md, "The outlining pass"); a level that read another's would compute a wrong
     * sum.
     */
    @Test
    void guestReenteredFromHostCallsKeepsEachLevelsLocals() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            try (JsValue global = ctx.global();
                                    JsValue down =
                                            ctx.newFunction(
                                                    "down",
                                                    (c, self, args) -> {
                                                        int n = (int) args.get(0).asNumber();
                                                        return c.evalScript(
                                                                        "f(" + (n - 1) + ")",
                                                                        "down.js")
                                                                .orThrow();
                                                    })) {
                                global.set("down", down);
                            }
                            evalToString(
                                    ctx,
                                    "function f(n) { if (n === 0) return 1; let a = n * 3, b = 'x'"
                                            + " + n, c = [n]; const r = down(n); return r + a +"
                                            + " b.length + c[0] + fib(n % 7); } function fib(k) {"
                                            + " return k < 2 ? k : fib(k - 1) + fib(k - 2); } ''");
                            return evalToString(ctx, "String(f(40))");
                        });
        // f(n) = f(n-1) + 3n + (1 + digits(n)) + n + fib(n % 7), f(0) = 1
        int[] fib = {0, 1, 1, 2, 3, 5, 8};
        long want = 1;
        for (int n = 1; n <= 40; n++) {
            want += 3L * n + 1 + String.valueOf(n).length() + n + fib[n % 7];
        }
        assertEquals(String.valueOf(want), s);
    }

    @Test
    void hostFunctionExceptionBecomesGuestError() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            try (JsValue global = ctx.global();
                                    JsValue fail =
                                            ctx.newFunction(
                                                    "fail",
                                                    (c, self, args) -> {
                                                        throw new IllegalStateException(
                                                                "host said no");
                                                    });
                                    JsValue typed =
                                            ctx.newFunction(
                                                    "typed",
                                                    (c, self, args) -> {
                                                        throw new JsException(
                                                                new JsError(
                                                                        "TypeError",
                                                                        "bad arg",
                                                                        ""));
                                                    })) {
                                global.set("fail", fail);
                                global.set("typed", typed);
                            }
                            return evalToString(
                                    ctx,
                                    "let out = [];try { fail(); } catch (e) { out.push(e instanceof"
                                            + " Error, e.message); }try { typed(); } catch (e) {"
                                            + " out.push(e.name, e.message); }out.join('|')");
                        });
        assertEquals("true|host said no|TypeError|bad arg", s);
    }

    @Test
    void borrowedArgumentsRefuseCloseAndExpire() {
        inContext(
                (rt, ctx) -> {
                    JsValue[] kept = new JsValue[1];
                    try (JsValue global = ctx.global();
                            JsValue f =
                                    ctx.newFunction(
                                            "f",
                                            (c, self, args) -> {
                                                assertThrows(
                                                        IllegalStateException.class,
                                                        args.get(0)::close);
                                                kept[0] = args.get(0);
                                                return null;
                                            })) {
                        global.set("f", f);
                    }
                    ctx.evalScript("f('x')", "b.js").close();
                    assertThrows(IllegalStateException.class, kept[0]::asString);
                    return null;
                });
    }

    @Test
    void hostPromiseResolvedAfterEvalIsDrivenByJobs() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            JsContext.PromiseCapability cap = ctx.newPromise();
                            try (JsValue global = ctx.global()) {
                                global.set("p", cap.promise());
                            }
                            ctx.evalScript(
                                            "globalThis.out = 'pending'; p.then(v => { out = 'got '"
                                                    + " + v; });",
                                            "p.js")
                                    .close();
                            assertEquals("pending", evalToString(ctx, "out"));
                            try (JsValue v = ctx.newString("value");
                                    JsResult r = ctx.call(cap.resolve(), ctx.undefined(), v)) {
                                assertTrue(r.isOk());
                            }
                            assertTrue(rt.isJobPending());
                            JsRuntime.JobsResult jobs = rt.executePendingJobs(-1);
                            assertTrue(jobs.executed() >= 1, jobs.toString());
                            assertEquals(
                                    JsContext.PromiseState.FULFILLED,
                                    ctx.promiseState(cap.promise()));
                            cap.close();
                            return evalToString(ctx, "out");
                        });
        assertEquals("got value", s);
    }

    @Test
    void moduleLoaderServesOneAndRefusesAnother() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            rt.setModuleLoader(
                                    new ModuleLoader() {
                                        @Override
                                        public String normalize(String importer, String specifier) {
                                            if (specifier.startsWith("node:")) {
                                                throw new ModuleRefusedException(
                                                        "node builtins are not available");
                                            }
                                            return specifier;
                                        }

                                        @Override
                                        public String load(String name) {
                                            if (name.equals("lib")) {
                                                return "export const x = 41;";
                                            }
                                            throw new ModuleRefusedException("no pack serves it");
                                        }
                                    });
                            String ok;
                            try (JsValue ns =
                                            ctx.evalModule(
                                                            "import {x} from 'lib'; export default"
                                                                    + " x + 1;",
                                                            "main.js")
                                                    .orThrow();
                                    JsValue d = ns.get("default")) {
                                ok = String.valueOf((int) d.asNumber());
                            }
                            JsError missing;
                            try (JsResult r = ctx.evalModule("import 'other';", "main2.js")) {
                                missing = r.error();
                            }
                            JsError node;
                            try (JsResult r =
                                    ctx.evalModule("import fs from 'node:fs';", "main3.js")) {
                                node = r.error();
                            }
                            return ok + "|" + missing.message() + "|" + node.message();
                        });
        assertEquals(
                "42|cannot import 'other': no pack serves it|cannot import 'node:fs': node builtins"
                        + " are not available",
                s);
    }

    @Test
    void importWithoutLoaderFailsNamingSpecifier() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            try (JsResult r = ctx.evalModule("import 'somewhere';", "m.js")) {
                                return r.error().message();
                            }
                        });
        assertTrue(s.contains("somewhere"), s);
    }

    @Test
    void arrayBufferOfOneMebibyteEachWay() {
        byte[] data = new byte[1 << 20];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        byte[] back =
                inContext(
                        (rt, ctx) -> {
                            try (JsValue buf = ctx.newArrayBuffer(data);
                                    JsValue global = ctx.global()) {
                                global.set("buf", buf);
                            }
                            assertEquals(
                                    String.valueOf((byte) (12345 * 31 + 7) & 0xFF),
                                    evalToString(ctx, "String(new Uint8Array(buf)[12345])"));
                            try (JsValue copy =
                                    ctx.evalScript(
                                                    "const u = new Uint8Array(buf.byteLength);"
                                                        + " const s = new Uint8Array(buf); for (let"
                                                        + " i = 0; i < u.length; i++) u[i] = s[i] ^"
                                                        + " 0xff; u.buffer",
                                                    "ab.js")
                                            .orThrow()) {
                                return ctx.toByteArray(copy);
                            }
                        });
        assertEquals(data.length, back.length);
        for (int i = 0; i < data.length; i += 4099) {
            assertEquals((byte) (data[i] ^ 0xff), back[i], "byte " + i);
        }
        byte[] expected = new byte[data.length];
        for (int i = 0; i < data.length; i++) {
            expected[i] = (byte) (data[i] ^ 0xff);
        }
        assertArrayEquals(expected, back);
    }

    @Test
    void contextsCanBeCreatedWithoutSelectedIntrinsics() {
        String s =
                engine.call(
                        e -> {
                            try (JsRuntime rt = e.newRuntime()) {
                                JsContext ctx =
                                        rt.newContext(
                                                EnumSet.complementOf(EnumSet.of(Intrinsic.PROXY)));
                                String types = evalToString(ctx, "typeof Proxy + ',' + typeof Map");
                                // QuickJS-ng evaluates host scripts through the Eval intrinsic too.
                                JsContext noEval =
                                        rt.newContext(
                                                EnumSet.complementOf(EnumSet.of(Intrinsic.EVAL)));
                                try (JsResult r = noEval.evalScript("1", "x.js")) {
                                    return types + "|" + r.error().message();
                                }
                            }
                        });
        assertEquals("undefined,function|eval is not supported", s);
    }

    @Test
    void thousandRuntimeCyclesStayWithinMemoryBound() {
        int[] pages =
                engine.call(
                        e -> {
                            for (int i = 0; i < 20; i++) {
                                cycle(e);
                            }
                            int before = e.memoryPages();
                            for (int i = 0; i < 1000; i++) {
                                cycle(e);
                            }
                            return new int[] {before, e.memoryPages()};
                        });
        // Stated bound: after warm-up, 1,000 cycles grow linear memory by at most 16 pages (1 MiB).
        assertTrue(
                pages[1] - pages[0] <= 16, "grew from " + pages[0] + " to " + pages[1] + " pages");
    }

    private static void cycle(QuickJsEngine e) {
        try (JsRuntime rt = e.newRuntime()) {
            JsContext ctx = rt.newContext();
            ctx.evalScript("const o = {a: [1, 2, 3]}; JSON.stringify(o)", "c.js").close();
        }
    }

    @Test
    void handlesUsedAfterCloseThrow() {
        inContext(
                (rt, ctx) -> {
                    JsValue v = ctx.newString("x");
                    v.close();
                    assertThrows(IllegalStateException.class, v::asString);
                    assertThrows(IllegalStateException.class, v::close);
                    return null;
                });
        JsValue[] leaked = new JsValue[1];
        engine.call(
                e -> {
                    try (JsRuntime rt = e.newRuntime()) {
                        JsContext ctx = rt.newContext();
                        leaked[0] = ctx.newObject();
                    }
                    return null;
                });
        assertThrows(IllegalStateException.class, () -> engine.call(e -> leaked[0].typeOf()));
    }

    @Test
    void engineObjectsRefuseOtherThreads() {
        JsRuntime rt = engine.call(QuickJsEngine::newRuntime);
        assertThrows(IllegalStateException.class, rt::newContext);
        engine.call(
                e -> {
                    rt.close();
                    return null;
                });
    }

    @Test
    void handleFromAnotherContextIsRefused() {
        inContext(
                (rt, ctx) -> {
                    try (JsContext other = rt.newContext();
                            JsValue v = other.newObject();
                            JsValue g = ctx.global()) {
                        assertThrows(IllegalArgumentException.class, () -> g.set("x", v));
                    }
                    return null;
                });
    }

    @Test
    void symbolsAndBigIntsCanBeMade() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            try (JsValue g = ctx.global();
                                    JsValue sym = ctx.newSymbol("tag", true);
                                    JsValue big =
                                            ctx.newBigInt(
                                                    new java.math.BigInteger(
                                                            "123456789012345678901234567890"))) {
                                g.set("sym", sym);
                                g.set("big", big);
                            }
                            return evalToString(
                                    ctx,
                                    "[typeof sym, sym === Symbol.for('tag'), typeof big, String(big"
                                            + " * 2n)].join()");
                        });
        assertEquals("symbol,true,bigint,246913578024691357802469135780", s);
    }

    @Test
    void scopeClosesInReverseOrderAndKeepsSuppressedFailures() {
        List<String> order = new ArrayList<>();
        IllegalStateException e =
                assertThrows(
                        IllegalStateException.class,
                        () -> {
                            try (Scope scope = new Scope()) {
                                scope.manage(() -> order.add("first"));
                                scope.manage(
                                        () -> {
                                            order.add("second");
                                            throw new IllegalStateException("second failed");
                                        });
                                scope.manage(
                                        () -> {
                                            order.add("third");
                                            throw new IllegalStateException("third failed");
                                        });
                            }
                        });
        assertEquals(List.of("third", "second", "first"), order);
        assertEquals("third failed", e.getMessage());
        assertEquals("second failed", e.getSuppressed()[0].getMessage());
        inContext(
                (rt, ctx) -> {
                    try (Scope scope = new Scope()) {
                        JsValue a = scope.manage(ctx.newObject());
                        scope.manage(ctx.newString("b"));
                        a.set("k", ctx.bool(true));
                    }
                    return null;
                });
    }

    @Test
    void throwingGetterSurfacesAsJsException() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            try (JsValue o =
                                    ctx.evalScript(
                                                    "({ get x() { throw new TypeError('no x'); }"
                                                            + " })",
                                                    "g.js")
                                            .orThrow()) {
                                JsException e = assertThrows(JsException.class, () -> o.get("x"));
                                return e.error().toString()
                                        + "|"
                                        + evalToString(ctx, "'still fine'");
                            }
                        });
        assertEquals("TypeError: no x|still fine", s);
    }

    @Test
    void toByteArrayRefusesWhatIsNotAnArrayBuffer() {
        inContext(
                (rt, ctx) -> {
                    try (JsValue u = ctx.evalScript("new Uint8Array(3)", "u.js").orThrow();
                            JsValue o = ctx.newObject();
                            JsValue empty =
                                    ctx.evalScript("new ArrayBuffer(0)", "e.js").orThrow()) {
                        assertThrows(IllegalArgumentException.class, () -> ctx.toByteArray(u));
                        assertThrows(IllegalArgumentException.class, () -> ctx.toByteArray(o));
                        assertEquals(0, ctx.toByteArray(empty).length);
                    }
                    return null;
                });
    }

    @Test
    void loneSurrogatesSurviveGuestToHost() {
        assertEquals(
                "a[D800]b[DC00]",
                inContext((rt, ctx) -> escape(evalToString(ctx, "'a\\uD800b\\uDC00'"))));
        assertEquals("x[FFFD]y", inContext((rt, ctx) -> escape(evalToString(ctx, "'x\\uFFFDy'"))));
    }

    private static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(c < 128 ? String.valueOf(c) : String.format("[%04X]", (int) c));
        }
        return b.toString();
    }

    @Test
    void guestPatchedBuiltinsDoNotReachTheHost() {
        List<String> keys =
                inContext(
                        (rt, ctx) -> {
                            ctx.evalScript(
                                            "Object.keys = () => ({length: 5e6}); JSON.stringify ="
                                                    + " () => 'forged'; BigInt = () => 0;",
                                            "patch.js")
                                    .orThrow()
                                    .close();
                            try (JsValue o = ctx.evalScript("({a: 1, b: [2]})", "o.js").orThrow();
                                    JsValue big = ctx.newBigInt(java.math.BigInteger.valueOf(7))) {
                                assertEquals("{\"a\":1,\"b\":[2]}", ctx.toJson(o));
                                assertEquals("bigint", big.typeOf());
                                return ctx.keys(o);
                            }
                        });
        assertEquals(List.of("a", "b"), keys);
    }

    @Test
    void jobsOfAClosedContextNeitherBreakTheEngineNorLeak() {
        String s =
                engine.call(
                        e -> {
                            try (JsRuntime rt = e.newRuntime()) {
                                JsContext doomed = rt.newContext();
                                try (JsValue g = doomed.global();
                                        JsValue hf =
                                                doomed.newFunction(
                                                        "hf", (c, self, args) -> c.newNumber(1))) {
                                    g.set("hf", hf);
                                }
                                doomed.evalScript("Promise.resolve().then(() => hf())", "j.js")
                                        .close();
                                doomed.close();
                                rt.executePendingJobs(-1);
                                int before = e.memoryPages();
                                for (int i = 0; i < 100_000; i++) {
                                    rt.executePendingJobs(1);
                                }
                                JsContext fresh = rt.newContext();
                                return e.isBroken()
                                        + "|"
                                        + (e.memoryPages() - before)
                                        + "|"
                                        + evalToString(fresh, "'ok'");
                            }
                        });
        assertEquals("false|0|ok", s);
    }

    @Test
    void contextsCannotBeClosedFromInsideAHostFunction() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            try (JsValue g = ctx.global();
                                    JsValue f =
                                            ctx.newFunction(
                                                    "f",
                                                    (c, self, args) -> {
                                                        c.close();
                                                        return null;
                                                    })) {
                                g.set("f", f);
                            }
                            return evalToString(
                                    ctx, "try { f(); 'closed' } catch (e) { e.message }");
                        });
        assertEquals("a context cannot be closed from inside a host function", s);
    }

    @Test
    void definedPropertiesAndAccessorsBehaveAsDeclared() {
        String s =
                inContext(
                        (rt, ctx) -> {
                            try (JsValue g = ctx.global();
                                    JsValue v = ctx.newNumber(7);
                                    JsValue getter =
                                            ctx.newFunction(
                                                    "get", (c, self, args) -> c.newString("got"))) {
                                ctx.defineProperty(g, "fixed", v, false, false);
                                ctx.defineAccessor(g, "acc", getter, ctx.undefined(), true, true);
                            }
                            return evalToString(
                                    ctx,
                                    "'use strict'; let w; try { fixed = 8; w = 'wrote'; } catch (e)"
                                            + " { w = e.name; } [fixed, w, acc,"
                                            + " Object.keys(globalThis).includes('fixed')].join()");
                        });
        assertEquals("7,TypeError,got,false", s);
    }
}
