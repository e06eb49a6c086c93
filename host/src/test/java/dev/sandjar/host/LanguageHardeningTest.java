package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.testing.SandboxExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the hardening keeps out of the guest's reach (the sandbox's own functions and source,
 * through stack-trace hooks and toString), what it must not change (the constructors' shape), how
 * the entry decides script or module, and how thrown non-Errors are reported.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LanguageHardeningTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static Sandbox sandbox;

    /** A bridge whose guest code validates its argument itself, with a marker in its source. */
    static final Bridge CHECKED =
            Bridge.builder("checked")
                    .guest(
                            "(host) => { const secretHelper = (x) => { if (typeof x !== 'number')"
                                    + " throw new TypeError('SECRET_MARKER wants a number');"
                                    + " return host.call('echo', x); };"
                                    + " return { checked: (x) => secretHelper(x) }; }")
                    .operation(
                            Operation.builder("echo")
                                    .param(Param.integer("n").range(0, 10))
                                    .handler(c -> c.arg(0))
                                    .build())
                    .build();

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    static RunResult run(String code) {
        return sandbox.run(RunRequest.builder(code).bridge(CHECKED).build());
    }

    static Object value(String code) {
        RunResult r = run(code);
        assertTrue(r.isOk(), () -> "expected success: " + r.error() + "\n" + r.error().stack());
        return r.value();
    }

    static RunError error(String code) {
        RunResult r = run(code);
        assertFalse(r.isOk(), () -> "expected failure, got " + r.value());
        return r.error();
    }

    // -------------------------------------------------------------------------------------------
    // Stack-trace hooks and source text.

    private static final String HOOK =
            "Error.prepareStackTrace = (e, cs) => cs.map(c => [c.getFunctionName(),"
                    + " String(c.getFunction()), c.getFileName()]);\n"
                    + "function mine() { try { %s } catch (e) { return e.stack; } }\n"
                    + "return JSON.stringify(mine());";

    @Test
    void aStackTraceHookSeesTheUsersFramesButNoneOfTheSandboxs() {
        // Thrown by the bridge's guest code, and by the host behind the dispatcher.
        for (String call : List.of("checked('x')", "checked(11)")) {
            String frames = (String) value(String.format(HOOK, call));
            assertFalse(frames.contains("SECRET_MARKER"), frames);
            assertFalse(frames.contains("secretHelper"), frames);
            assertFalse(frames.contains("host.call"), frames);
            assertFalse(frames.contains("dispatch"), frames);
            assertFalse(frames.contains("sandjar:"), frames);
            assertTrue(frames.contains("[\"mine\",\"function mine()"), frames);
            assertTrue(frames.contains("main.js"), frames);
        }
    }

    @Test
    void theHookReadsBackAndDefaultStacksNameNoSandboxFrame() {
        assertEquals(
                List.of(true, false, false, true, false),
                value(
                        "const hook = (e, cs) => cs.length;\n"
                            + "Error.prepareStackTrace = hook;\n"
                            + "const same = Error.prepareStackTrace === hook;\n"
                            + "Error.prepareStackTrace = undefined;\n"
                            + "let thrown; try { checked('x'); } catch (e) { thrown = e.stack; }\n"
                            + "const o = {}; Error.captureStackTrace(o);\n"
                            + "return [same, thrown.includes('sandjar:'),"
                            + " o.stack.includes('sandjar:'), o.stack.includes('main.js:6'), new"
                            + " Error().stack.includes('sandjar:')];"));
    }

    @Test
    void sandboxFunctionsReadAsNativeCode() {
        assertEquals(
                List.of(
                        "function checked() {\n    [native code]\n}",
                        "function toString() {\n    [native code]\n}",
                        "function f() { return 1; }"),
                value(
                        "return [String(checked), Function.prototype.toString.toString(),"
                                + " (function f() { return 1; }).toString()];"));
    }

    // -------------------------------------------------------------------------------------------
    // The blocked constructors: only calling them differs.

    @Test
    void blockedConstructorsKeepTheOriginalsShape() {
        assertEquals(
                List.of(
                        "Function:1",
                        "AsyncFunction:1",
                        "GeneratorFunction:1",
                        "AsyncGeneratorFunction:1",
                        true,
                        true,
                        true,
                        "EvalError"),
                value(
                        "const kinds = [function () {}, async function () {}, function* () {},"
                                + " async function* () {}];\n"
                                + "const out = kinds.map(k => k.constructor.name + ':' +"
                                + " k.constructor.length);\n"
                                + "const AF = (async function () {}).constructor;\n"
                                + "out.push(Object.getPrototypeOf(AF) === Function,"
                                + " (async () => {}) instanceof AF, AF.prototype ==="
                                + " Object.getPrototypeOf(async function () {}));\n"
                                + "try { new AF('return 1'); } catch (e) { out.push(e.name); }\n"
                                + "return out;"));
    }

    // -------------------------------------------------------------------------------------------
    // Script or module: the parse decides.

    @Test
    void theWordsImportAndExportInCommentsAndStringsKeepAScript() {
        assertEquals(
                "ok",
                value(
                        "// import\n"
                                + "var a; function a() {}\n"
                                + "return typeof a === 'function' ? 'ok' : 'no';"));
        assertEquals(1L, value("const s = 'export';\n<!-- an Annex B comment\nreturn 1;"));
        assertEquals(
                List.of("object", true),
                value("/* import */ return [typeof arguments," + " new.target === undefined];"));
    }

    @Test
    void importDeclarationsMakeAModuleThatStillSeesAFunctionBody() {
        ModuleResolution one =
                (importer, specifier) -> new ModuleResolution.Module("one", "export default 1;");
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "import one from 'one';\n"
                                                + "return [one, typeof arguments, new.target ==="
                                                + " undefined, typeof this];")
                                .modules(one)
                                .build());
        assertTrue(r.isOk(), () -> String.valueOf(r.error()));
        assertEquals(List.of(1L, "object", true, "undefined"), r.value());
        RunError nested = error("if (true) { import x from 'y'; }\nreturn 1;");
        assertEquals(RunError.Kind.SYNTAX, nested.kind());
        assertEquals(1, nested.line());
        RunError stray = error("// import\nreturn 1 }");
        assertEquals(RunError.Kind.SYNTAX, stray.kind());
        assertEquals(2, stray.line());
        assertEquals(10, stray.column());
    }

    // -------------------------------------------------------------------------------------------
    // Thrown values that are not Errors.

    @Test
    void aThrownInstanceIsNamedByItsClassAndAPrimitiveIsSaidPlainly() {
        RunError instance =
                error(
                        "class Test262Error { constructor(m) { this.message = m; } }\n"
                                + "throw new Test262Error('boom');");
        assertEquals("Test262Error", instance.name());
        assertEquals("boom", instance.message());
        RunError bare = error("class Plain {}\nawait null;\nthrow new Plain();");
        assertEquals("Plain", bare.name());
        RunError named = error("throw { name: 'Custom', message: 'own' };");
        assertEquals("Custom", named.name());
        RunError string = error("throw 'boom';");
        assertEquals("string", string.name());
        assertEquals("a string was thrown, not an Error: boom", string.message());
        RunError nothing = error("throw null;");
        assertEquals("null", nothing.name());
        assertEquals("null was thrown, not an Error", nothing.message());
    }

    // -------------------------------------------------------------------------------------------
    // Built-ins bounded where the engine fails badly.

    /**
     * What a call threw, as {@code [name, message]}; {@code typeof} for a value that is no object.
     */
    private static final String FAILURE =
            "const f = (fn) => { try { fn(); return 'returned'; } catch (e) {"
                    + " return e !== null && typeof e === 'object' ? [e.name, e.message]"
                    + " : [typeof e]; } };\n";

    private static Object bounded(String code) {
        RunResult r =
                sandbox.run(
                        RunRequest.builder(FAILURE + code)
                                .limits(Limits.builder().heapBytes(64L << 20).build())
                                .build());
        assertTrue(r.isOk(), () -> "expected success: " + r.error());
        return r.value();
    }

    /**
     * Without the bound, a copy of 2^29 elements or more made the engine write past its allocation
     * (the instance aborted or trapped: an INTERNAL failure) or throw a value of typeof "unknown";
     * 10^8 ran out of heap. Each is now a RangeError naming the bound, and a length getter is read
     * once, so it cannot pass the check with one answer and the copy with another.
     */
    @Test
    void anArrayCopyPastTheBoundIsARangeErrorNamingIt() {
        String bound = " elements; at most 67108864 (the sandbox's bound on array copies)";
        assertEquals(
                List.of(
                        List.of(
                                "RangeError",
                                "Array.prototype.toSorted: a copy of 536870913" + bound),
                        List.of(
                                "RangeError",
                                "Array.prototype.toSorted: a copy of 100000000" + bound),
                        List.of(
                                "RangeError",
                                "Array.prototype.toReversed: a copy of 4294967295" + bound),
                        List.of(
                                "RangeError",
                                "Array.prototype.toSpliced: a copy of 536870913" + bound),
                        List.of("RangeError", "Array.prototype.with: a copy of 536870913" + bound),
                        List.of(1L, 1L),
                        3L),
                bounded(
                        "let reads = 0;\n"
                            + "const shifty = { get length() { return reads++ === 0 ? 1 : 2 ** 29 +"
                            + " 1; } };\n"
                            + "return [f(() => Array.prototype.toSorted.call({ length: 2 ** 29 + 1"
                            + " })),\n"
                            + "  f(() => new Array(1e8).toSorted()),\n"
                            + "  f(() => Array.prototype.toReversed.call({ length: 2 ** 32 - 1"
                            + " })),\n"
                            + "  f(() => Array.prototype.toSpliced.call({ length: 2 ** 29 + 1 }, 0,"
                            + " 0)),\n"
                            + "  f(() => new Array(2 ** 29 + 1).with(0, 1)),\n"
                            + "  [Array.prototype.toSorted.call(shifty).length, reads],\n"
                            + "  [3, 1, 2].toReversed().length];"));
    }

    /**
     * Normalizing a string too large for the heap threw a value of typeof "unknown" (the engine's
     * normalization buffers fail without an exception) or an InternalError; both are now a
     * RangeError naming the heap limit, and the run goes on.
     */
    @Test
    void normalizeOutOfHeapIsARangeErrorNamingTheLimit() {
        List<String> outOfHeap =
                List.of(
                        "RangeError",
                        "String.prototype.normalize: out of memory: the normalized string does not"
                                + " fit the guest heap (the run's memory limit, memoryMb)");
        assertEquals(
                List.of(outOfHeap, outOfHeap, 1L),
                bounded(
                        "return [f(() => 'x'.repeat(1e7).normalize()),\n"
                                + "  f(() => 'x'.repeat(3e7).normalize('NFD')),\n"
                                + "  'e\\u0301'.normalize().length];"));
    }
}
