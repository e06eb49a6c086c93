package dev.sandjar.server.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.packs.ModuleSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The prompt side against the sandbox: every global, tool and pack the manifest names is what an
 * action really gets, and nothing else. {@link #drift} runs actions to find each disagreement; the
 * last test shows it finds one.
 */
@Timeout(120)
class ActionManifestDriftTest {
    private static Sandbox sandbox;
    private static ModuleCatalog catalog;

    @BeforeAll
    static void start() {
        sandbox = Sandbox.create();
        catalog = ModuleCatalog.builder(sandbox).build();
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    private static AgentExecutor.Builder executor() {
        return AgentExecutor.builder(sandbox, AgentExecutorTest.registry())
                .addBridges(Capabilities.defaults())
                .withCatalog(catalog)
                .addAllowedPack("@sandjar/text")
                .addAllowedPack("@sandjar/collections");
    }

    /** Every disagreement between {@code executor}'s manifest and what its actions get. */
    static List<String> drift(AgentExecutor executor) {
        ActionManifest manifest = ActionManifest.of(executor);
        List<String> problems = new ArrayList<>();

        // globals: what an action has on top of a run without capabilities
        RunResult bare =
                sandbox.run(
                        RunRequest.builder("return Object.getOwnPropertyNames(globalThis);")
                                .build());
        ActionResult probe =
                executor.execute("finish(Object.getOwnPropertyNames(globalThis)); return 0;");
        assertTrue(probe.finished(), () -> String.valueOf(probe.error()));
        Set<String> actual = new TreeSet<>(names(probe.result()));
        actual.removeAll(names(bare.valueOrThrow()));
        Set<String> promised = new TreeSet<>();
        manifest.globals().forEach(g -> promised.add(g.name()));
        Set<String> unlisted = new TreeSet<>(actual);
        unlisted.removeAll(promised);
        Set<String> missing = new TreeSet<>(promised);
        missing.removeAll(actual);
        if (!unlisted.isEmpty()) {
            problems.add("globals the manifest does not list: " + unlisted);
        }
        if (!missing.isEmpty()) {
            problems.add("globals the manifest lists that actions do not have: " + missing);
        }
        if (!manifest.undocumentedBridges().isEmpty()) {
            problems.add(
                    "bridges without globals in the manifest: " + manifest.undocumentedBridges());
        }

        // tools: each namespace module exports exactly the manifest's names, by its import line
        Map<String, List<String>> byNamespace = new java.util.LinkedHashMap<>();
        for (ToolRegistry.Hit h : manifest.tools()) {
            byNamespace.computeIfAbsent(h.namespace(), k -> new ArrayList<>()).add(h.name());
            ActionResult r =
                    executor.execute(h.importLine() + "\nfinish(typeof " + h.name() + ");");
            if (!r.finished() || !"function".equals(r.result())) {
                problems.add(h.importLine() + " does not give a function: " + r.error());
            }
        }
        for (String ns : executor.registry().namespaces()) {
            ActionResult r =
                    executor.execute(
                            "import * as m from \"@sandjar/tools/"
                                    + ns
                                    + "\";\nfinish(Object.keys(m).sort());");
            List<String> promisedNames = new ArrayList<>(byNamespace.getOrDefault(ns, List.of()));
            promisedNames.add("default"); // the manifest says: all of a module's tools
            promisedNames.sort(null);
            if (!r.finished() || !promisedNames.equals(r.result())) {
                problems.add(
                        "tools of "
                                + ns
                                + ": the module exports "
                                + (r.finished() ? r.result() : r.error())
                                + ", the manifest "
                                + promisedNames);
            }
        }

        // packs: every listed module imports; the shipped packs not listed are refused
        Set<String> listedPacks = new TreeSet<>();
        for (ActionManifest.Pack p : manifest.packs()) {
            listedPacks.add(p.name());
            for (ModuleSummary m : p.modules()) {
                ActionResult r =
                        executor.execute(
                                "import * as m from \"" + m.specifier() + "\";\nfinish(typeof m);");
                if (!r.finished()) {
                    problems.add(m.specifier() + " is listed but does not import: " + r.error());
                }
            }
        }
        for (ModuleSummary m : catalog.summaries()) {
            if (listedPacks.contains(m.pack())) {
                continue;
            }
            ActionResult r =
                    executor.execute("import * as m from \"" + m.specifier() + "\";\nfinish(1);");
            if (r.refusal() == null) {
                problems.add(m.specifier() + " is not listed but imports");
            }
        }
        return problems;
    }

    private static List<String> names(Object list) {
        List<String> out = new ArrayList<>();
        ((List<?>) list).forEach(o -> out.add(String.valueOf(o)));
        return out;
    }

    @Test
    void theManifestMatchesTheSandbox() {
        AgentExecutor executor = executor().build();
        assertEquals(List.of(), drift(executor));
        ActionManifest m = ActionManifest.of(executor);
        assertEquals(4, m.tools().size());
        assertEquals(
                List.of("@sandjar/collections", "@sandjar/text"),
                m.packs().stream().map(ActionManifest.Pack::name).toList());
        assertTrue(m.packs().stream().allMatch(p -> !p.modules().isEmpty()));
    }

    @Test
    void aManifestWithoutPacksOrCapabilitiesMatchesToo() {
        AgentExecutor executor = AgentExecutor.builder(sandbox, ToolRegistry.empty()).build();
        assertEquals(List.of(), drift(executor));
        assertEquals(
                String.join(
                        "\n",
                        "Run JavaScript as one action. The code is the body of an ES module: use"
                                + " top-level await, import what you need, and end the step with"
                                + " finish(result).",
                        "",
                        "Globals:",
                        "- finish: " + ActionManifest.AGENT_GLOBALS.get(0).description(),
                        "- sandjar: " + ActionManifest.AGENT_GLOBALS.get(1).description(),
                        "- tools: " + ActionManifest.AGENT_GLOBALS.get(2).description(),
                        "",
                        "Tools: none.",
                        "",
                        "Packages: none may be imported (an import of any package is refused).",
                        "",
                        "At most 50 tool calls per action.",
                        "The outcome is {finished, result, toolCalls, logs, error}.",
                        ""),
                ActionManifest.of(executor).text());
    }

    @Test
    void theTextListsImportsSignaturesPacksAndTheSchema() {
        String text =
                ActionManifest.of(
                                executor()
                                        .withFinishSchema(
                                                "{\"type\": \"object\",\n \"required\": [\"x\"]}")
                                        .withMaxToolCalls(7)
                                        .build())
                        .text();
        assertTrue(
                text.contains(
                        "import { add, slow_double } from \"@sandjar/tools/math\";\n"
                                + "  add(args: {a: number, b: number}): Promise<any> - Adds two"
                                + " numbers\n"),
                text);
        assertTrue(
                text.contains("import { web_search, fetch_page } from \"@sandjar/tools/web\";"),
                text);
        assertTrue(
                text.contains(
                        "Packages you may import (any other import is refused):\n"
                                + "- @sandjar/collections\n"),
                text);
        assertTrue(
                text.contains(
                        "finish(result) takes a result matching this JSON Schema: {\"type\":"
                                + " \"object\", \"required\": [\"x\"]}\n"),
                text);
        assertTrue(text.contains("At most 7 tool calls per action."), text);
        assertTrue(text.contains("- console: "), text);
    }

    @Test
    void aGlobalTheManifestDoesNotKnowIsDrift() {
        Bridge extra = Bridge.builder("extra").guest("(host) => ({ extra: 1 })").build();
        AgentExecutor executor =
                AgentExecutor.builder(sandbox, ToolRegistry.empty()).addBridge(extra).build();
        List<String> problems = drift(executor);
        assertEquals(2, problems.size(), problems.toString());
        assertEquals("globals the manifest does not list: [extra]", problems.get(0));
        assertEquals("bridges without globals in the manifest: [extra]", problems.get(1));
    }
}
