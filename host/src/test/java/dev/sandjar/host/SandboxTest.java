package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandjar.host.testing.SandboxExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The entry module, hardening, errors and limits, through {@link Sandbox#run}. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SandboxTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(2);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    static RunResult run(String code) {
        return sandbox.run(RunRequest.builder(code).build());
    }

    static RunResult run(String code, Limits limits) {
        return sandbox.run(RunRequest.builder(code).limits(limits).build());
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
    // The JVM.

    /**
     * The memory path is reported as this JVM decides it: portable only where varhandle is chosen
     * or JDK 24+ lacks its flag (docs/jvm-flags.md), and then with the reason.
     */
    @Test
    void theMemoryPathIsReportedWithItsReason() {
        String arch = System.getProperty("os.arch");
        assumeTrue(
                arch.equals("amd64") || arch.equals("aarch64"),
                "the portable path only on " + arch);
        boolean chosen = "varhandle".equals(System.getProperty("sandjar.memory.access"));
        boolean flagMissing =
                Runtime.version().feature() >= 24
                        && !"allow".equals(System.getProperty("sun.misc.unsafe.memory.access"));
        assertEquals(chosen || flagMissing, Sandbox.portableMemoryReason().isPresent());
        Sandbox.portableMemoryReason()
                .ifPresent(
                        why -> assertTrue(why.contains(chosen ? "varhandle" : "--sun-misc"), why));
    }

    // -------------------------------------------------------------------------------------------
    // The entry module.

    @Test
    void theReturnValueIsTheResultAndTopLevelAwaitWorks() {
        assertEquals(2L, value("return 1 + 1"));
        assertEquals(42L, value("const x = await Promise.resolve(41);\nreturn x + 1;"));
        assertEquals(
                dev.sandjar.transport.Undefined.INSTANCE, value("const unused = 1; // no return"));
        assertEquals(
                List.of(1L, 4L, 9L),
                value(
                        "const out = [];\n"
                                + "for await (const n of [1, 2, 3]) out.push(n * n);\n"
                                + "return out;"));
    }

    @Test
    void codeWithoutImportsSeesWhatModuleCodeSees() {
        // Such code is evaluated as a script for speed; it must not notice: strict mode, this
        // undefined, no arguments of its own, the same results as with an import present.
        String probe =
                "let sloppy = true; try { undeclared = 1; } catch (e) { sloppy = false; }\n"
                        + "return [typeof this, sloppy, (function () { return this; })() ===\n"
                        + " undefined, typeof globalThis.undeclared];";
        List<Object> expected = List.of("undefined", false, true, "undefined");
        assertEquals(expected, value(probe));
        assertEquals(
                expected,
                value(probe + "\n// the word import sends this through the module path"),
                "the module path agrees");
        RunError e = error("const a = 1;\nfunction f() { throw new Error('deep'); }\nf();");
        assertEquals(2, e.line());
        assertTrue(e.stack().contains("main.js:3:"), e.stack());
        assertEquals(
                2, e.stack().strip().split("\n").length, "only the user's frames: " + e.stack());
    }

    @Test
    void codeWithATopLevelExportRunsAsTheModuleItIs() {
        assertEquals(
                Map.of("greeting", "Hello, Sandjar!"),
                value(
                        "const greet = async (n) => `Hello, ${n}!`;\n"
                                + "export default { greeting: await greet('Sandjar') };"));
        assertEquals(dev.sandjar.transport.Undefined.INSTANCE, value("export const x = 1;"));
    }

    @Test
    void aHashbangLineIsIgnoredAndLinesStayTheUsers() {
        RunError e = error("#!/usr/bin/env node\nconst a = 1;\nnull.boom;");
        assertEquals(RunError.Kind.EXCEPTION, e.kind());
        assertEquals(3, e.line());
    }

    @Test
    void syntaxErrorsReportTheUsersOwnLineAndColumn() {
        RunError fast = error("const a = 1;\nreturn a +;");
        assertEquals(RunError.Kind.SYNTAX, fast.kind());
        assertEquals(2, fast.line());
        assertEquals(11, fast.column());
        assertTrue(fast.message().contains("line 2, column 11"), fast.message());

        RunError parsed = error("import x from 'y';\n\nlet = = 2;");
        assertEquals(RunError.Kind.SYNTAX, parsed.kind());
        assertEquals(3, parsed.line());

        RunError firstLine = error("return 1 +");
        assertEquals(1, firstLine.line());
        assertEquals(11, firstLine.column());
    }

    @Test
    void runtimeErrorsPointAtTheUsersCodeWithoutSandboxFrames() {
        RunError e = error("const a = 1;\n  throw new TypeError('boom ' + a);");
        assertEquals(RunError.Kind.EXCEPTION, e.kind());
        assertEquals("TypeError", e.name());
        assertEquals("boom 1", e.message());
        assertEquals(2, e.line());
        assertTrue(e.column() > 2, "column " + e.column()); // QuickJS points into the expression
        assertFalse(e.stack().contains("sandjar:"), e.stack());
        // Line 1: the wrapper's columns are taken back out.
        RunError one = error("null.x");
        assertEquals(1, one.line());
        assertEquals(1, one.column());
        assertTrue(one.stack().contains("main.js:1:1"), one.stack());
    }

    @Test
    void aThrownNonErrorAndAnUnsettlablePromiseAreReported() {
        RunError thrown = error("throw 42");
        assertEquals("number", thrown.name());
        assertEquals("a number was thrown, not an Error: 42", thrown.message());
        RunError stuck = error("await new Promise(() => {});");
        assertEquals(RunError.Kind.EXCEPTION, stuck.kind());
        assertTrue(stuck.message().contains("nothing can settle"), stuck.message());
    }

    @Test
    void withoutAModuleResolutionEveryImportFailsNamingTheSpecifier() {
        RunError e = error("import { x } from 'lodash';\nreturn x;");
        assertEquals(RunError.Kind.IMPORT, e.kind());
        assertTrue(e.message().contains("'lodash'"), e.message());
    }

    @Test
    void staticImportsAnywhereAtTheTopAreHoistedAndResolved() {
        ModuleResolution modules =
                (importer, specifier) -> {
                    if (specifier.equals("math")) {
                        return new ModuleResolution.Module(
                                "pack:math",
                                "import { base } from 'base'; export const twice = (n) => n * 2 +"
                                        + " base; export default 'math';");
                    }
                    if (specifier.equals("base") && importer.equals("pack:math")) {
                        return new ModuleResolution.Module("pack:base", "export const base = 0;");
                    }
                    throw new ModuleResolution.Refused("'" + specifier + "' is not declared");
                };
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const a = 20;\n"
                                                + "import name, { twice as t } from \"math\";\n"
                                                + "return `${name} ${t(a + 1)}`;")
                                .modules(modules)
                                .build());
        assertEquals("math 42", r.valueOrThrow());

        RunResult refused =
                sandbox.run(
                        RunRequest.builder("import 'base';\nreturn 1").modules(modules).build());
        assertEquals(RunError.Kind.IMPORT, refused.error().kind());
        assertTrue(
                refused.error().message().contains("'base' is not declared"),
                refused.error().message());
    }

    @Test
    void aModuleReachesItsOwnBridgeAndNothingElseCan() {
        Bridge zip =
                Bridge.builder("zip")
                        .guest("(host) => ({})")
                        .operation(
                                Operation.builder("size")
                                        .param(Param.bytes("data"))
                                        .handler(c -> (long) c.bytes(0).length)
                                        .build())
                        .build();
        ModuleResolution modules =
                (importer, specifier) -> {
                    if (specifier.equals("pack-zip")) {
                        return new ModuleResolution.Module(
                                "pack-zip",
                                "import host from 'sandjar:bridge/zip';\n"
                                        + "export const size = (b) => host.call('size', b);",
                                List.of(zip));
                    }
                    if (specifier.equals("sneaky")) {
                        return new ModuleResolution.Module(
                                "sneaky", "import h from 'sandjar:bridge/zip'; export default h;");
                    }
                    throw new ModuleResolution.Refused("'" + specifier + "' is not declared");
                };
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "import { size } from 'pack-zip';\n"
                                                + "return [size(new Uint8Array(7)), typeof"
                                                + " globalThis[Symbol.for('sandjar.bridge.zip')]];")
                                .modules(modules)
                                .build());
        assertEquals(List.of(7L, "undefined"), r.valueOrThrow());
        for (String code :
                List.of(
                        "import h from 'sandjar:bridge/zip';\nreturn 1;",
                        "import { size } from 'pack-zip';\nimport h from 'sneaky';\nreturn 1;")) {
            RunResult refused = sandbox.run(RunRequest.builder(code).modules(modules).build());
            assertEquals(RunError.Kind.IMPORT, refused.error().kind(), code);
            assertTrue(
                    refused.error()
                            .message()
                            .contains("only be imported by the module that declares"),
                    refused.error().message());
        }
    }

    @Test
    void dynamicImportIsAlwaysRefusedEvenForADeclaredModule() {
        ModuleResolution modules =
                (importer, specifier) -> new ModuleResolution.Module("m", "export default 1;");
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "import one from 'm';\n"
                                                + "try { await import('m'); return 'loaded'; }\n"
                                                + "catch (e) { return one + ': ' + e.message; }")
                                .modules(modules)
                                .build());
        String v = (String) r.valueOrThrow();
        assertTrue(v.startsWith("1: cannot import 'm': dynamic import()"), v);
        assertEquals(
                List.of(new CodeAnalysis.Position(2, 13)),
                sandbox.analyze("import one from 'm';\ntry { await import('m'); } catch {}")
                        .dynamicImports());
    }

    @Test
    void analyzeReportsImportsExportsAndSyntaxErrors() {
        CodeAnalysis a =
                sandbox.analyze(
                        "import a from 'x';\nimport * as b from 'y';\nimport 'x';\nreturn a + b;");
        assertEquals(List.of("x", "y"), a.specifiers());
        assertEquals(new CodeAnalysis.Import("y", 2, 1), a.imports().get(1));
        assertFalse(a.hasExports());
        assertNull(a.syntaxError());
        assertTrue(sandbox.analyze("export default 1").hasExports());
        assertEquals(
                List.of(new CodeAnalysis.Position(2, 12)),
                sandbox.analyze("import a from 'x';\nconst fs = require('fs');").requireCalls());
        assertEquals(RunError.Kind.SYNTAX, sandbox.analyze("return (").syntaxError().kind());
    }

    // -------------------------------------------------------------------------------------------
    // Hardening: before any user code runs.

    @Test
    void noCodeCanBeCreatedFromStrings() {
        for (String code :
                List.of(
                        "return eval('1')",
                        "return (0, globalThis.eval)('1')",
                        "return Function('return 1')()",
                        "return new Function('return 1')()",
                        "return (() => {}).constructor('return 1')()",
                        "return (function () {}).constructor('return 1')()",
                        "return (async () => {}).constructor('return 1')",
                        "return (function* () {}).constructor('yield 1')",
                        "return (async function* () {}).constructor('yield 1')",
                        "return class {}.constructor('return 1')()",
                        "return Reflect.construct(Object.getPrototypeOf(async () =>"
                                + " {}).constructor, ['return 1'])")) {
            RunError e = error(code);
            assertTrue(
                    e.name().equals("EvalError")
                            || e.name().equals("ReferenceError")
                            || e.name().equals("TypeError"),
                    code + " -> " + e);
        }
        assertEquals(
                List.of(true, true, "undefined", false),
                value(
                        "return [(() => {}) instanceof Function, (async () => {}) instanceof"
                                + " Function, typeof eval, Object.getOwnPropertyDescriptor("
                                + "Function.prototype, 'constructor').writable]"));
    }

    @Test
    void thereAreNoTimersAndNoPrivateDispatcher() {
        assertEquals(
                List.of(
                        "undefined",
                        "undefined",
                        "undefined",
                        "undefined",
                        "undefined",
                        "undefined"),
                value(
                        "return ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout',"
                                + " 'clearInterval', 'clearImmediate'].map((n) => typeof"
                                + " globalThis[n])"));
        Object names =
                value(
                        "return Object.getOwnPropertyNames(globalThis).filter((n) =>"
                                + " /dispatch|host|sandjar|install|codec/i.test(n))");
        assertEquals(List.of(), names);
    }

    @Test
    void bridgeCodeNeverLeaksTheHostObject() {
        TestBridges.Typed typed = new TestBridges.Typed();
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const seen = [];\n"
                                                + "for (const k of"
                                                + " Object.getOwnPropertyNames(globalThis)) {\n"
                                                + "  const v = globalThis[k];\n"
                                                + "  if (v && typeof v === 'object' && 'call' in v)"
                                                + " seen.push(k);\n"
                                                + "}\n"
                                                + "return [seen, typeof typed, typeof host];")
                                .bridge(typed.bridge)
                                .build());
        assertEquals(List.of(List.of(), "function", "undefined"), r.valueOrThrow());
    }

    // -------------------------------------------------------------------------------------------
    // Limits.

    @Test
    void aCpuBoundLoopStopsAtItsBudgetEvenWhenItCatchesTheInterrupt() {
        RunResult r =
                run(
                        "let n = 0;\n"
                                + "while (true) { try { while (true) n++; } catch (e) { n = 0; } }",
                        Limits.builder().timeout(Duration.ofMillis(1000)).build());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind());
        assertTrue(
                r.error().message().contains("CPU budget (timeout) of 1000 ms"),
                r.error().message());
        // The budget is charged from setup on, and setup includes building the engine's template
        // the first time (hundreds of ms on a cold JVM), so the guest alone may get much less
        // than the budget: the run as a whole used it before it was stopped.
        long charged = r.stats().guestCpuNanos() + Math.max(0, r.stats().setupCpuNanos());
        assertTrue(charged >= TimeUnit.MILLISECONDS.toNanos(900), r.stats().summary());
    }

    @Test
    void runawayMicrotasksStopAtTheBudgetToo() {
        RunResult r =
                run(
                        "const spin = () => Promise.resolve().then(spin);\nspin();\nawait new"
                                + " Promise(() => {});",
                        Limits.builder().timeout(Duration.ofMillis(200)).build());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind());
    }

    @Test
    void theHeapLimitBoundsTypedArraysAndStringsNotOnlyObjects() {
        RunResult arrays =
                run(
                        "const keep = [];\nwhile (true) keep.push(new Uint8Array(1 << 20));",
                        Limits.builder().heapBytes(16L << 20).build());
        assertEquals(RunError.Kind.MEMORY, arrays.error().kind());
        assertTrue(arrays.error().message().contains("heapBytes"), arrays.error().message());
        assertTrue(
                arrays.stats().memoryBytes() <= (16L << 20) + (6L << 20),
                "memory " + arrays.stats().memoryBytes());

        RunResult strings =
                run(
                        "const keep = [];\n"
                                + "for (let i = 0; ; i++) keep.push('x'.repeat(1 << 19) + i);",
                        Limits.builder().heapBytes(16L << 20).build());
        assertEquals(RunError.Kind.MEMORY, strings.error().kind());

        RunResult caught =
                run(
                        "const keep = []; let n = 0;\n"
                            + "try { while (true) { keep.push(new Uint8Array(1 << 20)); n++; } }\n"
                            + "catch (e) { keep.length = 0; return [n, String(e)]; }",
                        Limits.builder().heapBytes(24L << 20).build());
        List<?> v = (List<?>) caught.valueOrThrow();
        long n = (Long) v.get(0);
        assertTrue(n >= 16 && n <= 25, "allocated " + n + " MiB under a 24 MiB limit");
        assertEquals("InternalError: out of memory", v.get(1));

        // Millions of tiny objects fill the heap so completely that QuickJS cannot even make its
        // error object and throws null: still a MEMORY error, while a guest's own throw null is
        // not.
        RunResult tiny =
                run(
                        "let a = [];\nfor (let i = 0; i < 5e6; i++) a = [a];\nreturn 1;",
                        Limits.builder().heapBytes(16L << 20).build());
        assertEquals(RunError.Kind.MEMORY, tiny.error().kind(), tiny.error().toString());
        assertTrue(tiny.error().message().contains("heapBytes"), tiny.error().message());
        assertEquals(RunError.Kind.EXCEPTION, error("throw null").kind());
    }

    @Test
    void aSmallLimitAfterABigRunStillHolds() {
        RunResult big =
                run(
                        "const keep = []; for (let i = 0; i < 100; i++) keep.push(new"
                                + " Uint8Array(1 << 20)); return keep.length;",
                        Limits.builder().heapBytes(200L << 20).build());
        assertEquals(100L, big.valueOrThrow());
        for (int i = 0; i < 2; i++) { // whichever engine runs it, the small limit holds
            RunResult small =
                    run(
                            "const keep = []; let n = 0;\n"
                                + "try { while (true) { keep.push(new Uint8Array(1 << 20)); n++; }"
                                + " }\n"
                                + "catch (e) { keep.length = 0; return n; }",
                            Limits.builder().heapBytes(16L << 20).build());
            long n = (Long) small.valueOrThrow();
            assertTrue(n >= 8 && n <= 17, "allocated " + n + " MiB under a 16 MiB limit");
        }
    }

    @Test
    void deepRecursionIsAStackErrorAndTheStackLimitIsClamped() {
        RunError e = error("function f(n) { return f(n + 1) + 1; }\nreturn f(0);");
        assertEquals(RunError.Kind.STACK, e.kind());
        assertTrue(e.message().contains("stackBytes"), e.message());
        RunResult r = run("return 1", Limits.builder().stackBytes(64 << 20).build());
        assertEquals(4 << 20, r.limits().stackBytes());
    }

    @Test
    void overridesAreClampedToCeilingsAndReported() {
        RunResult r =
                run(
                        "return 1",
                        Limits.builder()
                                .timeout(Duration.ofHours(5))
                                .heapBytes(4L << 30)
                                .outputBytes(1L << 40)
                                .build());
        assertEquals(Duration.ofMinutes(10), r.limits().timeout());
        assertEquals(512L << 20, r.limits().heapBytes());
        assertEquals(10L << 20, r.limits().outputBytes());
        assertEquals(Duration.ofMinutes(20), r.limits().wallTimeout());
        RunResult d = run("return 1");
        assertEquals(Limits.DEFAULTS.timeout(), d.limits().timeout());
        assertEquals(Duration.ofSeconds(60), d.limits().wallTimeout());
        assertThrows(InvalidRequestException.class, () -> Limits.builder().timeout(Duration.ZERO));
        InvalidRequestException raise =
                assertThrows(
                        InvalidRequestException.class,
                        () ->
                                Sandbox.builder()
                                        .ceilings(Limits.builder().heapBytes(1L << 30).build()));
        assertTrue(raise.getMessage().contains("heapBytes"), raise.getMessage());
    }

    @Test
    void anOutputOverTheLimitFailsOrIsTruncatedWhenAsked() {
        Limits small = Limits.builder().outputBytes(2048).build();
        RunResult big = run("return 'x'.repeat(5000)", small);
        assertEquals(RunError.Kind.OUTPUT, big.error().kind());
        assertTrue(big.error().message().contains("outputBytes) is 2048"), big.error().message());

        RunResult bytes = run("return new Uint8Array(4096)", small);
        assertEquals(RunError.Kind.OUTPUT, bytes.error().kind());

        // A key is written inline and escaped however long it is: 9,000 quotes are 18,002
        // characters of JSON, over a 16,000 limit that 9,000 units of a sidecar string are not.
        Limits mid = Limits.builder().outputBytes(16_000).build();
        RunResult longKey = run("return {['\"'.repeat(9000)]: 1}", mid);
        assertEquals(RunError.Kind.OUTPUT, longKey.error().kind(), String.valueOf(longKey.value()));
        assertTrue(run("return {['x'.repeat(9000)]: 1}", mid).isOk());

        RunResult cut =
                sandbox.run(
                        RunRequest.builder("return {s: 'y'.repeat(5000)}")
                                .limits(small)
                                .truncateOutput(true)
                                .build());
        assertTrue(cut.isOk());
        assertTrue(cut.outputTruncated());
        String text = (String) cut.value();
        assertEquals(2048, text.length());
        assertTrue(text.startsWith("{\"s\":\"yyy"), text.substring(0, 20));
    }

    @Test
    void codeOverItsSizeLimitIsRefusedBeforeAnythingRuns() {
        InvalidRequestException e =
                assertThrows(
                        InvalidRequestException.class,
                        () ->
                                run(
                                        "return 1;" + " ".repeat(200),
                                        Limits.builder().codeChars(100).build()));
        assertTrue(e.getMessage().contains("codeChars) is 100"), e.getMessage());
    }

    @Test
    void valueAsConvertsThroughJackson() {
        record Row(String name, long n, java.time.Instant at) {}
        RunResult r = run("return {name: 'a', n: 3, at: new Date(86400000), extra: true}");
        Row row = r.valueAs(Row.class);
        assertEquals(new Row("a", 3, java.time.Instant.ofEpochMilli(86_400_000)), row);
        List<Long> list =
                run("return [1, 2, 3]")
                        .valueAs(
                                new com.fasterxml.jackson.core.type.TypeReference<List<Long>>() {});
        assertEquals(List.of(1L, 2L, 3L), list);
        SandboxException failed =
                assertThrows(
                        SandboxException.class,
                        () -> run("throw new Error('x')").valueAs(Row.class));
        assertEquals(RunError.Kind.EXCEPTION, failed.error().kind());
    }
}
