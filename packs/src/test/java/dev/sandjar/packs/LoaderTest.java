package dev.sandjar.packs;

import static dev.sandjar.packs.Fixtures.manifest;
import static dev.sandjar.packs.Fixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Limits;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Packs through {@link Sandbox#run} with the real engine: imports read off the body, the loader's
 * denials as one table, hardening before pack modules evaluate, the shipped packs, the diff host
 * module, and scalar WebAssembly with its budgets.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LoaderTest {
    // WasmRunner's worker pool and timer are process-wide and never end, by design.
    @RegisterExtension
    static final SandboxExtension SANDBOX =
            SandboxExtension.poolSize(2).preloadAnalyzer().ignoringThreads("sandjar-wasm");

    static Sandbox sandbox;
    @TempDir static Path root;
    static ModuleCatalog catalog;

    static final WasmBudgets BUDGETS =
            // 1 s per call: a wall-clock timeout that also covers instantiating the module, and the
            // first call in a JVM loads and runs a cold Chicory interpreter.
            new WasmBudgets(Duration.ofMillis(1000), 20, 2, Duration.ofSeconds(10));

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
        Path geo = root.resolve("geo");
        write(
                geo,
                "package.json",
                manifest(
                        "@acme/geo",
                        "{'name': '.', 'kind': 'js', 'file': 'a.js'},"
                                + "{'name': 'extra', 'kind': 'js', 'file': 'extra.js'},"
                                + "{'name': 'reexport', 'kind': 'js', 'file': 'reexport.js'},"
                                + "{'name': 'sneaky', 'kind': 'js', 'file': 'sneaky.js'},"
                                + "{'name': 'busy', 'kind': 'js', 'file': 'busy.js'},"
                                + "{'name': 'math', 'kind': 'wasm', 'file': 'math.wasm',"
                                + " 'memoryPagesMax': 2, 'exports': ['add', 'div', 'fround',"
                                + " 'mul', 'spin', 'counter', 'grow', 'store', {'wasm':"
                                + " 'foo-bar', 'as': 'fooBar'}]}",
                        ", 'internal': ['lib/util.js']"));
        write(
                geo,
                "a.js",
                "import { helper } from './lib/util.js';\n"
                        + "import { add } from '@acme/geo/math';\n"
                        + "export const distance = (a, b) => helper(Math.abs(a - b));\n"
                        + "export const sum = (a, b) => add(a, b);\n"
                        + "export const seen = {\n"
                        + "  timers: typeof setTimeout,\n"
                        + "  code: (() => { try { return Function('return 1')(); }"
                        + " catch (e) { return e.name; } })(),\n"
                        + "};\n");
        write(geo, "lib/util.js", "export const helper = (x) => x * 2;\n");
        write(geo, "extra.js", "export default 'extra';\n");
        write(geo, "reexport.js", "export * from './lib/util.js';\n");
        write(geo, "sneaky.js", "export * from 'node:fs';\n");
        write(geo, "busy.js", "while (true) {}\nexport {};\n");
        write(geo, "math.wasm", mathWasm());
        Path other = root.resolve("other");
        write(
                other,
                "package.json",
                manifest(
                        "@acme/other",
                        "{'name': '.', 'kind': 'js', 'file': 'o.js'}",
                        ", 'internal': ['lib/secret.js']"));
        write(other, "o.js", "import { s } from './lib/secret.js';\nexport default s;\n");
        write(other, "lib/secret.js", "export const s = 'secret';\n");
        catalog = ModuleCatalog.builder(sandbox).searchPath(root).wasmBudgets(BUDGETS).build();
        // A re-export's source is read like an import, so one that leaves the pack is refused
        // before anything runs.
        assertEquals(1, catalog.diagnostics().size(), catalog.diagnostics().toString());
        assertTrue(
                catalog.diagnostics().get(0).toString().contains("sneaky.js")
                        && catalog.diagnostics().get(0).toString().contains("'node:fs'"),
                catalog.diagnostics().toString());
    }

    static byte[] mathWasm() {
        WasmBytes w = new WasmBytes();
        int ii = w.type(new int[] {WasmBytes.I32, WasmBytes.I32}, new int[] {WasmBytes.I32});
        int ff = w.type(new int[] {WasmBytes.F32}, new int[] {WasmBytes.F32});
        int dd = w.type(new int[] {WasmBytes.F64, WasmBytes.F64}, new int[] {WasmBytes.F64});
        int vv = w.type(new int[] {}, new int[] {});
        int vi = w.type(new int[] {}, new int[] {WasmBytes.I32});
        int add = w.function(ii, 0x20, 0, 0x20, 1, 0x6a, 0x0b);
        int div = w.function(ii, 0x20, 0, 0x20, 1, 0x6d, 0x0b);
        int fround = w.function(ff, 0x20, 0, 0x0b);
        int mul = w.function(dd, 0x20, 0, 0x20, 1, 0xa2, 0x0b);
        int spin = w.function(vv, 0x03, 0x40, 0x0c, 0, 0x0b, 0x0b);
        int counter = w.function(vi, 0x23, 0, 0x41, 1, 0x6a, 0x24, 0, 0x23, 0, 0x0b);
        int grow = w.function(vi, 0x41, 0xe4, 0x00, 0x40, 0x00, 0x0b);
        int store =
                w.function(
                        vi, 0x41, 0, 0x41, 0, 0x28, 2, 0, 0x41, 1, 0x6a, 0x36, 2, 0, 0x41, 0, 0x28,
                        2, 0, 0x0b);
        return w.memory(1, 2, false)
                .mutableGlobal()
                .export("add", WasmBytes.FUNC, add)
                .export("div", WasmBytes.FUNC, div)
                .export("fround", WasmBytes.FUNC, fround)
                .export("mul", WasmBytes.FUNC, mul)
                .export("spin", WasmBytes.FUNC, spin)
                .export("counter", WasmBytes.FUNC, counter)
                .export("grow", WasmBytes.FUNC, grow)
                .export("store", WasmBytes.FUNC, store)
                .export("foo-bar", WasmBytes.FUNC, add)
                .build();
    }

    /** Runs a body the way an application does: its imports are its declaration. */
    static RunResult run(ModuleCatalog c, String code) {
        CatalogResolution r = c.resolveBody(code);
        assertTrue(r.isOk(), () -> r.errors().toString());
        return sandbox.run(RunRequest.builder(code).modules(r.moduleResolution()).build());
    }

    static Object value(ModuleCatalog c, String code) {
        RunResult r = run(c, code);
        assertTrue(r.isOk(), () -> "expected success: " + r.error() + "\n" + r.error().stack());
        return r.value();
    }

    @Test
    void theShippedPacksRunEndToEnd() {
        assertEquals(
                List.of(
                        "creme-brulee-2-ways",
                        "xmlHttpRequest",
                        "Hi Ada",
                        List.of("a", "b"),
                        java.util.Arrays.asList(1L, 2L, null),
                        List.of(List.of(1L, 2L), List.of(3L)),
                        2.5,
                        2L,
                        "hello…",
                        "&lt;b&gt;"),
                value(
                        catalog,
                        "import { slugify, camelCase, template, truncate, escapeHtml } from"
                                + " '@sandjar/text';\n"
                                + "import { groupBy, sortBy, chunk } from"
                                + " '@sandjar/collections';\n"
                                + "import { mean, median } from '@sandjar/collections/stats';\n"
                                + "return [slugify('Crème Brûlée: 2 Ways!'), camelCase('XML http"
                                + " request'),\n"
                                + "  template('Hi {{ user.name }}', { user: { name: 'Ada' } }),\n"
                                + "  Object.keys(groupBy([{ k: 'a' }, { k: 'b' }, { k: 'a' }],"
                                + " 'k')),\n"
                                + "  sortBy([{ n: 2 }, { n: null }, { n: 1 }], 'n').map((x) =>"
                                + " x.n),\n"
                                + "  chunk([1, 2, 3], 2), mean([1, 2, 3, 4]), median([3, 1, 2]),\n"
                                + "  truncate('hello wonderful world', 7), escapeHtml('<b>')];"));
    }

    @Test
    void aPackModuleReachesItsInternalFileAndItsWasmSiblingAfterHardening() {
        assertEquals(
                List.of(6L, 5L, "undefined", "EvalError"),
                value(
                        catalog,
                        "import { distance, sum, seen } from '@acme/geo';\n"
                                + "return [distance(1, 4), await sum(2, 3), seen.timers,"
                                + " seen.code];"));
    }

    @Test
    void packModulesEvaluateUnderTheRunsLimits() {
        String code = "import '@acme/geo/busy';\nreturn 1;";
        RunResult r =
                sandbox.run(
                        RunRequest.builder(code)
                                .modules(catalog.resolveBody(code).moduleResolution())
                                .limits(Limits.builder().timeout(Duration.ofMillis(300)).build())
                                .build());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind(), r.toString());
    }

    /** A specifier the user's code imports and a fragment the refusal must contain. */
    record Denial(String code, String expected) {}

    static final List<Denial> DENIALS =
            List.of(
                    new Denial("import fs from 'node:fs';", "Node built-in modules"),
                    new Denial("import { Buffer } from 'node:buffer';", "Node built-in modules"),
                    new Denial("import fs from 'fs';", "install the pack fs"),
                    new Denial("import p from '/etc/passwd';", "not paths, URLs"),
                    new Denial("import p from 'file:///etc/passwd';", "not paths, URLs"),
                    new Denial("import p from 'https://x.test/m.js';", "not paths, URLs"),
                    new Denial("import a from './a.js';", "not paths, URLs"),
                    new Denial("import a from '../geo/a.js';", "not paths, URLs"),
                    new Denial("import a from '%2e%2e/geo/a.js';", "not paths, URLs"),
                    new Denial("import a from '@acme%2Fgeo';", "not paths, URLs"),
                    new Denial(
                            "import { helper } from '@acme/geo/lib/util.js';",
                            "files inside a pack cannot be imported"),
                    new Denial("import { helper } from '@acme/geo::lib/util.js';", "internal"),
                    new Denial(
                            "import { s } from '@acme/other/lib/secret.js';", "no public module"),
                    new Denial("import o from '@acme/other';", "not declared for this run"),
                    new Denial("import e from '@acme/geo/extra';", "not declared for this run"),
                    new Denial("import x from '@acme/nope';", "install the pack @acme/nope"),
                    new Denial(
                            "import h from 'sandjar:bridge/packs.host.diff';",
                            "only be imported by the module that declares it"),
                    new Denial(
                            "import '@acme/geo';\n"
                                    + "try { await import('@acme/geo'); } catch (e) { throw e; }",
                            "dynamic import()"),
                    new Denial(
                            "import '@acme/geo';\nconst m = 'node:' + 'fs';\nawait import(m);",
                            "dynamic import()"));

    @Test
    void theLoaderRefusesEverythingButDeclaredSpecifiersAndTheirSiblings() {
        // Declared: the root module and the two whose pack-side imports are refused at run
        // time. Each body below imports something else, and only the loader stands in its way.
        var modules =
                catalog.resolveForExecution(
                                List.of(
                                        ModuleDeclaration.of("@acme/geo"),
                                        ModuleDeclaration.of("@acme/geo/reexport")))
                        .moduleResolution();
        // A re-export of a sibling works: discovery read its source like an import.
        assertEquals(
                42L,
                sandbox.run(
                                RunRequest.builder(
                                                "import { helper } from '@acme/geo/reexport';\n"
                                                        + "return helper(21);")
                                        .modules(modules)
                                        .build())
                        .valueOrThrow());
        List<String> failures = new ArrayList<>();
        for (Denial d : DENIALS) {
            RunResult r =
                    sandbox.run(
                            RunRequest.builder(d.code() + "\nreturn 1;").modules(modules).build());
            if (r.isOk()) {
                failures.add(d.code() + ": ran");
            } else if (!r.error().message().contains(d.expected())) {
                failures.add(d.code() + ": " + r.error());
            } else if (r.error().kind() != RunError.Kind.IMPORT
                    && !d.expected().equals("dynamic import()")) {
                failures.add(d.code() + ": kind " + r.error().kind());
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    @Test
    void aBodyImportingWhatNoPackServesFailsBeforeTheGuestStarts() {
        CatalogResolution r =
                catalog.resolveBody(
                        "import { a } from '@acme/geo';\nimport z from '@zed/tools/x';\nreturn a;");
        assertFalse(r.isOk());
        assertEquals(
                "'@zed/tools/x': no installed pack provides it; install the pack @zed/tools",
                r.errors().get(0).toString());
        CatalogResolution forged = catalog.resolveBody("import { x } from '@evil/x';");
        assertTrue(forged.errors().get(0).message().contains("install the pack @evil/x"));
        CatalogResolution syntax = catalog.resolveBody("import { from 'x';");
        assertTrue(syntax.isOk(), "the run reports the syntax error itself");
        CatalogResolution dynamic = catalog.resolveBody("await import('@acme/geo');");
        assertTrue(dynamic.warnings().get(0).message().contains("dynamic import()"));
    }

    @Test
    void theDiffHostModuleRunsBehindItsFacade() {
        Object v =
                value(
                        catalog,
                        "import diff, { diffLines, unifiedDiff } from '@sandjar/diff';\n"
                            + "const changes = await diffLines('a\\n"
                            + "b\\n"
                            + "c\\n"
                            + "', 'a\\n"
                            + "B\\n"
                            + "c\\n"
                            + "');\n"
                            + "const patch = await diff.unifiedDiff('a\\n"
                            + "b\\n"
                            + "', 'a\\n"
                            + "c\\n"
                            + "', { context: 0 });\n"
                            + "let refused;\n"
                            + "try { await diffLines(1, 'x'); } catch (e) { refused = e.name + ' '"
                            + " + e.code; }\n"
                            + "let badOption;\n"
                            + "try { await unifiedDiff('a', 'b', { context: 5000 }); } catch (e) {"
                            + " badOption = e.message; }\n"
                            + "return [changes.map((c) => c.op + ':' + c.count), patch, refused,"
                            + " badOption, Object.isFrozen(diff), unifiedDiff ==="
                            + " diff.unifiedDiff,\n"
                            + "  typeof"
                            + " globalThis[Symbol.for('sandjar.bridge.packs.host.diff')]];");
        assertEquals(
                List.of(
                        List.of("equal:1", "remove:1", "add:1", "equal:1"),
                        "--- a\n+++ b\n@@ -2 +2 @@\n-b\n+c\n",
                        "TypeError INVALID_ARGUMENT",
                        "packs.host.diff.unifiedDiff: options.context must be an integer from"
                                + " 0 to 1000",
                        true,
                        true,
                        "undefined"),
                v);
    }

    @Test
    void scalarWasmCallsAreCheckedFreshAndStateless() {
        Object v =
                value(
                        catalog,
                        "import m from '@acme/geo/math';\n"
                                + "const code = async (f) => { try { return await f(); } catch (e)"
                                + " { return e.code; } };\n"
                                + "return [await m.add(2, 3), await m.fooBar(-1, -2),"
                                + " await m.fround(0.1), await m.mul(1.5, 1e300),\n"
                                + "  await m.counter(), await m.counter(), await m.store(), await"
                                + " m.store(), await m.grow(),\n"
                                + "  await code(() => m.add(2 ** 31, 0)), await code(() =>"
                                + " m.add(1.5, 0)), await code(() => m.add(NaN, 0)),\n"
                                + "  await code(() => m.div(1, 0)), await code(() => m.spin())];");
        assertEquals(
                List.of(
                        5L,
                        -3L,
                        (double) 0.1f,
                        1.5e300,
                        1L,
                        1L,
                        1L,
                        1L,
                        -1L,
                        "INVALID_ARGUMENT",
                        "INVALID_ARGUMENT",
                        "INVALID_ARGUMENT",
                        "WASM_TRAP",
                        "WASM_TIMEOUT"),
                v);
    }

    @Test
    void wasmCallsAreLimitedPerRunInNumberConcurrencyAndTime(@TempDir Path dir) {
        // Calls per run: the 21st call of a run is refused (BUDGETS allows 20).
        assertEquals(
                List.of(20L, "WASM_CALL_LIMIT"),
                value(
                        catalog,
                        "import { add } from '@acme/geo/math';\n"
                                + "let n = 0;\n"
                                + "try { for (let i = 0; i < 30; i++) n = await add(n, 1); }"
                                + " catch (e) { return [n, e.code]; }"));
        // Two at a time: four calls that each time out at 1,000 ms take at least two rounds.
        long t0 = System.nanoTime();
        assertEquals(
                List.of("rejected", "rejected", "rejected", "rejected"),
                value(
                        catalog,
                        "import { spin } from '@acme/geo/math';\n"
                                + "const all = await Promise.allSettled([spin(), spin(), spin(),"
                                + " spin()]);\n"
                                + "return all.map((r) => r.status);"));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms >= 1980, "four 1,000 ms calls, two at a time, took " + ms + " ms");
        // Time: with 500 ms for the run and 200 ms per call, the third call gets what remains
        // and the fourth none.
        write(
                dir,
                "geo/package.json",
                manifest(
                        "@acme/spin",
                        "{'name': '.', 'kind': 'wasm', 'file': 'm.wasm', 'memoryPagesMax': 2,"
                                + " 'exports': ['spin']}"));
        WasmBytes w = new WasmBytes();
        int f = w.function(w.type(new int[] {}, new int[] {}), 0x03, 0x40, 0x0c, 0, 0x0b, 0x0b);
        write(dir, "geo/m.wasm", w.export("spin", WasmBytes.FUNC, f).build());
        ModuleCatalog tight =
                ModuleCatalog.builder(sandbox)
                        .shippedPacks(false)
                        .searchPath(dir)
                        .wasmBudgets(
                                new WasmBudgets(
                                        Duration.ofMillis(200), 256, 2, Duration.ofMillis(500)))
                        .build();
        List<?> codes =
                (List<?>)
                        value(
                                tight,
                                "import { spin } from '@acme/spin';\n"
                                        + "const codes = [];\n"
                                        + "for (let i = 0; i < 8; i++) { try { await spin(); }"
                                        + " catch (e) { codes.push(e.code); } }\n"
                                        + "return codes;");
        // Each call is cut at 200 ms; how many fit into the run's 500 ms depends on how long each
        // really took on a loaded machine, so the test asserts the order, not a count: timeouts
        // first, then the exhausted budget refuses every later call.
        assertEquals("WASM_TIMEOUT", codes.get(0), codes.toString());
        int first = codes.indexOf("WASM_TIME_BUDGET");
        assertTrue(first > 0, "the run's time budget never ran out: " + codes);
        assertTrue(
                codes.subList(0, first).stream().allMatch("WASM_TIMEOUT"::equals),
                codes.toString());
        assertTrue(
                codes.subList(first, codes.size()).stream().allMatch("WASM_TIME_BUDGET"::equals),
                codes.toString());
    }

    @Test
    void endingARunStopsItsWasmCallsAndFreesTheWorkers() throws Exception {
        ModuleCatalog slow = ModuleCatalog.builder(sandbox).searchPath(root).build(); // 5 s calls
        String code = "import { spin } from '@acme/geo/math';\nawait spin();\nreturn 1;";
        var run =
                sandbox.submit(
                        RunRequest.builder(code)
                                .modules(slow.resolveBody(code).moduleResolution())
                                .build());
        long started = System.nanoTime() + 30_000_000_000L;
        while (spinning() == 0 && System.nanoTime() < started) {
            Thread.sleep(20);
        }
        assertTrue(spinning() > 0, "the call is running");
        run.cancel();
        assertEquals(
                RunError.Kind.CANCELLED, run.result().get(10, TimeUnit.SECONDS).error().kind());
        long deadline = System.nanoTime() + 10_000_000_000L; // generous for a loaded machine
        while (spinning() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, spinning(), "no worker still runs the cancelled call");
    }

    /** WASM worker threads currently running guest WebAssembly. */
    static long spinning() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().startsWith("sandjar-wasm-"))
                .filter(
                        e ->
                                java.util.Arrays.stream(e.getValue())
                                        .anyMatch(f -> f.getClassName().contains("chicory")))
                .count();
    }

    @Test
    void aReloadLeavesResolutionsInFlightAsTheyWere(@TempDir Path dir) {
        write(
                dir,
                "p/package.json",
                manifest("@acme/v", "{'name': '.', 'kind': 'js', 'file': 'v.js'}"));
        write(dir, "p/v.js", "export default 'one';\n");
        ModuleCatalog c =
                ModuleCatalog.builder(sandbox).shippedPacks(false).searchPath(dir).build();
        String code = "import v from '@acme/v';\nreturn v;";
        CatalogResolution before = c.resolveBody(code);

        write(dir, "p/v.js", "export default 'two';\n");
        c.reload();
        CatalogResolution after = c.resolveBody(code);

        assertEquals(
                "one",
                sandbox.run(RunRequest.builder(code).modules(before.moduleResolution()).build())
                        .valueOrThrow());
        assertEquals(
                "two",
                sandbox.run(RunRequest.builder(code).modules(after.moduleResolution()).build())
                        .valueOrThrow());
        assertFalse(
                before.modules().get(0).graphDigest().equals(after.modules().get(0).graphDigest()));
    }
}
