package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsContext.PromiseState;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsRuntime;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.QuickJsEngine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The language stays whole: every case of {@code conformance.txt} (small programs and the outcome
 * the language gives them) runs through {@link Sandbox#run} and through the bare engine, a plain
 * QuickJS context with nothing of the sandbox, and both must give the case's outcome, except the
 * known exclusions in {@link #EXCLUSIONS}, the one list.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConformanceTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The known exclusions, the one list: cases whose outcome differs from the language's, with the
     * outcome each side gives instead and why. The sandbox's intended differences (docs/sandbox.md,
     * "Hardening") change the sandbox's outcome only; the engine's own gaps change both.
     */
    static final Map<String, Exclusion> EXCLUSIONS =
            Map.of(
                    "eval-indirect", sandbox("throws ReferenceError", "eval is removed"),
                    "eval-direct", sandbox("throws ReferenceError", "eval is removed"),
                    "function-constructor", sandbox("throws EvalError", "no code from strings"),
                    "async-function-constructor",
                            sandbox("throws EvalError", "no code from strings"),
                    "generator-function-constructor",
                            sandbox("throws EvalError", "no code from strings"),
                    "this-top-level",
                            sandbox(
                                    "\"undefined\"",
                                    "the body is called with this undefined, as a module's body"
                                            + " sees it; a plain script's top-level this is the"
                                            + " global object"),
                    "array-copy-getter-receiver",
                            sandbox(
                                    "[false]",
                                    "toSorted, toReversed, toSpliced and with read the source"
                                            + " through a view that fixes its length (the bound on"
                                            + " array copies): a getter's this is the view"),
                    "regex-unicode-sets",
                            new Exclusion(
                                    "throws SyntaxError",
                                    "throws SyntaxError",
                                    "QuickJS-ng 0.10 has no RegExp v flag"));

    /**
     * A known exclusion: what the bare engine and the sandbox give instead of the case's outcome
     * (null: the case's outcome), and why.
     */
    record Exclusion(String engine, String sandbox, String why) {}

    private static Exclusion sandbox(String outcome, String why) {
        return new Exclusion(null, outcome, why);
    }

    /** One program and the outcome the language gives it. */
    record Case(String name, String outcome, String code) {}

    static Sandbox sandbox;
    static QuickJsEngine bare;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
        bare = QuickJsEngine.create();
    }

    @AfterAll
    static void stop() {
        bare.close();
    }

    static List<Case> cases() {
        List<Case> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        String text;
        try (InputStream in = ConformanceTest.class.getResourceAsStream("conformance.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", 3);
            assertEquals(3, f.length, "a case is name, outcome, code: " + line);
            assertTrue(names.add(f[0]), "two cases are named " + f[0]);
            out.add(new Case(f[0], f[1], f[2].replace(" ¶ ", "\n")));
        }
        return out;
    }

    @Test
    void theSandboxAndTheBareEngineGiveTheLanguagesOutcome() {
        List<Case> cases = cases();
        assertTrue(cases.size() >= 250, "the set has " + cases.size() + " cases");
        for (String name : EXCLUSIONS.keySet()) {
            assertTrue(
                    cases.stream().anyMatch(c -> c.name().equals(name)),
                    "an exclusion names no case: " + name);
        }
        List<String> failures = new ArrayList<>();
        for (Case c : cases) {
            Exclusion x = EXCLUSIONS.get(c.name());
            String forEngine = x == null || x.engine() == null ? c.outcome() : x.engine();
            String engine = bare(c.code());
            if (!same(forEngine, engine)) {
                failures.add(c.name() + ": the bare engine gave " + engine + ", not " + forEngine);
            }
            String forSandbox = x == null ? c.outcome() : x.sandbox();
            String sandboxed = sandboxed(c.code());
            if (!same(forSandbox, sandboxed)) {
                failures.add(c.name() + ": the sandbox gave " + sandboxed + ", not " + forSandbox);
            }
        }
        assertTrue(failures.isEmpty(), () -> String.join("\n", failures));
    }

    private static String sandboxed(String code) {
        RunResult r = sandbox.run(RunRequest.builder(code).build());
        return r.isOk() ? r.valueJson() : "throws " + r.error().name();
    }

    /**
     * The program in a plain QuickJS context: the same strict async function body, called with the
     * global object as {@code this} (what a script's top level has), its promise driven by the
     * engine's own job queue.
     */
    private static String bare(String code) {
        return bare.call(
                e -> {
                    try (JsRuntime rt = e.newRuntime()) {
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        rt.setInterruptHandler(() -> System.nanoTime() > deadline);
                        JsContext ctx = rt.newContext();
                        try (JsResult fn =
                                        ctx.evalScript(
                                                "(async function () {\"use strict\";\n"
                                                        + code
                                                        + "\n})",
                                                "case.js");
                                JsValue global = ctx.global()) {
                            if (!fn.isOk()) {
                                return "throws " + fn.error().name();
                            }
                            try (JsResult called = ctx.call(fn.value(), global)) {
                                if (!called.isOk()) {
                                    return "throws " + called.error().name();
                                }
                                JsValue p = called.value();
                                while (ctx.promiseState(p) == PromiseState.PENDING) {
                                    if (rt.executePendingJobs(-1).executed() == 0) {
                                        return "pending";
                                    }
                                }
                                try (JsValue v = ctx.promiseResult(p)) {
                                    if (ctx.promiseState(p) == PromiseState.REJECTED) {
                                        return "throws " + ctx.errorOf(v).name();
                                    }
                                    String json = ctx.toJson(v);
                                    return json == null ? "undefined" : json;
                                }
                            }
                        }
                    }
                });
    }

    /** Outcomes are equal as JSON values (numbers by value), or as text for errors. */
    private static boolean same(String expected, String actual) {
        if (expected.startsWith("throws ") || actual.startsWith("throws ")) {
            return expected.equals(actual);
        }
        try {
            JsonNode a = JSON.readTree(expected);
            JsonNode b = JSON.readTree(actual);
            Comparator<JsonNode> numbers =
                    (x, y) ->
                            x.isNumber() && y.isNumber()
                                    ? Double.compare(x.doubleValue(), y.doubleValue())
                                    : x.equals(y) ? 0 : 1;
            return a.equals(numbers, b);
        } catch (IOException e) {
            return false;
        }
    }
}
