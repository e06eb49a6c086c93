package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.testing.SandboxExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Lambdas: exported functions called with arguments, cold and warm, and calling each other. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LambdaTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(3);

    static Sandbox sandbox;

    static final String COUNTER =
            "let calls = 0;\n"
                    + "export function count(step) { calls += step; return calls; }\n"
                    + "export async function process(rows, factor) {\n"
                    + "  await null;\n"
                    + "  return rows.map((r) => ({ ...r, total: r.price * factor }));\n"
                    + "}\n"
                    + "export const notAFunction = 1;";

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    static Object ok(RunResult r) {
        assertTrue(r.isOk(), () -> "expected success: " + r.error() + "\n" + r.error().stack());
        return r.value();
    }

    @Test
    void aColdCallGetsItsArgumentsAndAFreshContext() {
        Object rows =
                ok(
                        sandbox.call(
                                COUNTER,
                                "process",
                                List.of(List.of(Map.of("price", 2), Map.of("price", 5)), 3)));
        assertEquals(
                List.of(Map.of("price", 2L, "total", 6L), Map.of("price", 5L, "total", 15L)), rows);
        assertEquals(1L, ok(sandbox.call(COUNTER, "count", List.of(1))));
        assertEquals(1L, ok(sandbox.call(COUNTER, "count", List.of(1))), "cold: nothing persists");
    }

    @Test
    void aMissingOrNonFunctionExportOrCodeWithoutExportsFailsNamingIt() {
        RunError missing = sandbox.call(COUNTER, "nope", List.of()).error();
        assertEquals("TypeError", missing.name());
        assertTrue(
                missing.message().contains("'nope' (that export is undefined)"), missing.message());
        RunError value = sandbox.call(COUNTER, "notAFunction", List.of()).error();
        assertTrue(value.message().contains("is number"), value.message());
        RunError none = sandbox.call("return 1", "f", List.of()).error();
        assertTrue(none.message().contains("has no export"), none.message());
        RunError thrown =
                sandbox.call(
                                "export function f(x) { throw new RangeError('bad ' + x) }",
                                "f",
                                List.of(7))
                        .error();
        assertEquals("RangeError", thrown.name());
        assertEquals("bad 7", thrown.message());
        assertThrows(
                InvalidRequestException.class,
                () -> sandbox.call(COUNTER, "not a name", List.of()));
        assertThrows(
                InvalidRequestException.class,
                () -> sandbox.call(COUNTER, "count", List.of(new Object())));
    }

    @Test
    void aWarmLambdaKeepsItsModuleStateBetweenCalls() {
        try (WarmLambda warm = sandbox.warmLambda(RunRequest.builder(COUNTER).build())) {
            assertFalse(warm.isWarm());
            assertEquals(2L, ok(warm.call("count", List.of(2))));
            assertTrue(warm.isWarm());
            assertEquals(5L, ok(warm.call("count", List.of(3))));
            assertEquals(
                    List.of(Map.of("price", 1L, "total", 4L)),
                    ok(warm.call("process", List.of(List.of(Map.of("price", 1)), 4))));
            assertEquals(6L, ok(warm.call("count", List.of(1))));
            // a failing call does not lose the module
            assertFalse(warm.call("nope", List.of()).isOk());
            assertEquals(7L, ok(warm.call("count", List.of(1))));
        }
    }

    @Test
    void aWarmLambdaWhoseModuleFailsToLoadTriesAgainNextCall() {
        try (WarmLambda warm =
                sandbox.warmLambda(RunRequest.builder("export function f( { }").build())) {
            assertEquals(RunError.Kind.SYNTAX, warm.call("f", List.of()).error().kind());
            assertFalse(warm.isWarm());
            assertEquals(RunError.Kind.SYNTAX, warm.call("f", List.of()).error().kind());
        }
    }

    static final LambdaSet SET =
            LambdaSet.builder()
                    .module(
                            "a.js",
                            "export async function process(x) { return lambda('b.js:transform', [x"
                                    + " + 1]) }\n"
                                    + "export function leaf(x) { return x * 10 }")
                    .module(
                            "b.js",
                            "export async function transform(x) {\n"
                                    + "  if (x > 100) return lambda('a.js:process', [x]);\n"
                                    + "  return lambda('a.js:leaf', [x]);\n"
                                    + "}")
                    .module(
                            "c.js",
                            "export async function missing() {\n"
                                    + "  try { await lambda('zz.js:f', []); } catch (e) { return"
                                    + " [e.name, e.code, e.message]; }\n"
                                    + "}")
                    .build();

    @Test
    void lambdasCallEachOtherThroughTheHost() {
        // a.js:process → b.js:transform → a.js:leaf: a.js twice, but not the same function
        assertEquals(30L, ok(SET.call(sandbox, "a.js:process", List.of(2))));
    }

    @Test
    void aCircularCallFailsAtOnceWithItsChain() {
        RunError e = SET.call(sandbox, "a.js:process", List.of(200)).error();
        assertEquals(LambdaSet.ERROR_NAME, e.name());
        assertTrue(
                e.message().contains("circular call: a.js:process → b.js:transform → a.js:process"),
                e.message());
    }

    @Test
    void anUnknownTargetFailsWithNotFoundBeforeAnyRun() {
        assertEquals(
                List.of(
                        LambdaSet.ERROR_NAME,
                        "NOT_FOUND",
                        "no lambda module 'zz.js' (the set has "
                                + List.of("a.js", "b.js", "c.js")
                                + ")"),
                ok(SET.call(sandbox, "c.js:missing", List.of())));
        assertThrows(InvalidRequestException.class, () -> SET.call(sandbox, "zz.js:f", List.of()));
        assertThrows(InvalidRequestException.class, () -> SET.call(sandbox, "no-colon", List.of()));
    }

    @Test
    void theCallChainIsBounded() {
        LambdaSet deep =
                LambdaSet.builder()
                        .maxDepth(2)
                        .module("one.js", "export function f() { return lambda('two.js:f') }")
                        .module("two.js", "export function f() { return lambda('three.js:f') }")
                        .module("three.js", "export function f() { return 3 }")
                        .build();
        RunError e = deep.call(sandbox, "one.js:f", List.of()).error();
        assertEquals(LambdaSet.ERROR_NAME, e.name());
        assertTrue(
                e.message().contains("3 deep, past its bound of 2 (maxDepth 2, pool size 3)"),
                e.message());
        assertTrue(e.message().endsWith("one.js:f → two.js:f → three.js:f"), e.message());
    }
}
