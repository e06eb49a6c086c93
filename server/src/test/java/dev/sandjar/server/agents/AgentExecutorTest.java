package dev.sandjar.server.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.host.RunError;
import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.ModuleCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class AgentExecutorTest {
    private static Sandbox sandbox;
    private static final AtomicInteger addCalls = new AtomicInteger();

    private static final String ADD_SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},"
                    + "\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"],"
                    + "\"additionalProperties\":false}";

    @BeforeAll
    static void start() {
        sandbox = Sandbox.create();
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    static ToolRegistry registry() {
        return ToolRegistry.builder()
                .addTool(
                        Tool.builder("math", "add")
                                .withDescription("Adds two numbers")
                                .withParameters(ADD_SCHEMA)
                                .withHandler(
                                        call -> {
                                            addCalls.incrementAndGet();
                                            Map<String, Object> a = call.argumentMap();
                                            return ((Number) a.get("a")).doubleValue()
                                                    + ((Number) a.get("b")).doubleValue();
                                        })
                                .build())
                .addTool(
                        Tool.builder("math", "slow_double")
                                .withDescription("Doubles a number later")
                                .withParameters(
                                        "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"}}}")
                                .withHandler(
                                        call ->
                                                CompletableFuture.supplyAsync(
                                                        () ->
                                                                ((Number)
                                                                                        call.argumentMap()
                                                                                                .get(
                                                                                                        "x"))
                                                                                .doubleValue()
                                                                        * 2,
                                                        call.executor()))
                                .build())
                .addTool(
                        Tool.builder("web", "web_search")
                                .withDescription("Searches the web for pages about a query")
                                .withHandler(call -> Map.of("error", "the index is offline"))
                                .build())
                .addTool(
                        Tool.builder("web", "fetch_page")
                                .withDescription("Fetches one page")
                                .withHandler(
                                        call -> {
                                            throw new IllegalStateException("connection reset");
                                        })
                                .build())
                .build();
    }

    static AgentExecutor.Builder executor() {
        return AgentExecutor.builder(sandbox, registry()).addBridges(Capabilities.defaults());
    }

    @Test
    void anActionImportsAndCallsTools() {
        List<ToolCallEvent> events = new CopyOnWriteArrayList<>();
        ActionResult r =
                executor()
                        .build()
                        .execute(
                                "import { add, slow_double } from \"@sandjar/tools/math\";\n"
                                    + "let s = 0;\n"
                                    + "for (let i = 1; i <= 3; i++) s = await add({a: s, b: i});\n"
                                    + "return await slow_double({x: s});",
                                events::add);
        assertTrue(r.ran(), () -> String.valueOf(r.error()));
        assertEquals(12.0, ((Number) r.run().value()).doubleValue());
        assertFalse(r.finished());
        assertEquals(4, r.toolCalls().size());
        assertEquals(r.toolCalls(), events);
        List<String> ids = new ArrayList<>();
        events.forEach(e -> ids.add(e.id() + " " + e.name() + " " + e.ok()));
        assertEquals(
                List.of(
                        "call_1 math/add true",
                        "call_2 math/add true",
                        "call_3 math/add true",
                        "call_4 math/slow_double true"),
                ids);
        assertEquals(Map.of("a", 1.0, "b", 2L), normalize(events.get(1).arguments()));
        assertEquals(12.0, ((Number) events.get(3).value()).doubleValue());
    }

    private static Object normalize(Object args) {
        // 1 + 0 arrives as an integer, s as a double: compare by numeric value where it matters
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) args;
        return Map.of("a", ((Number) m.get("a")).doubleValue(), "b", m.get("b"));
    }

    @Test
    void argumentsOffTheSchemaAreRefusedBeforeTheHandlerRuns() {
        int before = addCalls.get();
        List<ToolCallEvent> events = new CopyOnWriteArrayList<>();
        ActionResult r =
                executor()
                        .build()
                        .execute(
                                "import { add } from \"@sandjar/tools/math\";\n"
                                        + "try { await add({a: 1, b: 'two'}); return 'no'; }\n"
                                        + "catch (e) { return [e.name, e.code, e.message]; }",
                                events::add);
        assertTrue(r.ran(), () -> String.valueOf(r.error()));
        List<?> v = (List<?>) r.run().value();
        assertEquals("ToolError", v.get(0));
        assertEquals("INVALID_ARGUMENTS", v.get(1));
        assertTrue(((String) v.get(2)).contains("math/add"), v.get(2).toString());
        assertTrue(((String) v.get(2)).contains("b"), v.get(2).toString());
        assertEquals(before, addCalls.get(), "the handler ran");
        assertEquals(1, events.size());
        assertFalse(events.get(0).ok());
        assertEquals("INVALID_ARGUMENTS", events.get(0).errorCode());
    }

    @Test
    void anErrorPayloadAndAHandlerExceptionThrowInTheGuest() {
        ActionResult r =
                executor()
                        .build()
                        .execute(
                                "import { web_search, fetch_page } from \"@sandjar/tools/web\";\n"
                                        + "const out = [];\n"
                                        + "try { await web_search({q: 'x'}); } catch (e) {"
                                        + " out.push(e.code + ': ' + e.message); }\n"
                                        + "try { await fetch_page(); } catch (e) {"
                                        + " out.push(e.code + ': ' + e.message); }\n"
                                        + "return out;");
        assertTrue(r.ran(), () -> String.valueOf(r.error()));
        assertEquals(
                List.of(
                        "TOOL_ERROR: web/web_search: the index is offline",
                        "TOOL_FAILED: connection reset"),
                r.run().value());
        assertEquals(2, r.toolCalls().size());
        assertEquals("TOOL_ERROR", r.toolCalls().get(0).errorCode());
        assertEquals("TOOL_FAILED", r.toolCalls().get(1).errorCode());
    }

    @Test
    void theCallAfterTheCapThrows() {
        ActionResult r =
                executor()
                        .withMaxToolCalls(3)
                        .build()
                        .execute(
                                "import { add } from \"@sandjar/tools/math\";\n"
                                        + "let n = 0;\n"
                                        + "try { for (;;) { await add({a: 1, b: 1}); n++; } }\n"
                                        + "catch (e) { return [n, e.code, e.message]; }");
        assertTrue(r.ran(), () -> String.valueOf(r.error()));
        List<?> v = (List<?>) r.run().value();
        assertEquals(3L, ((Number) v.get(0)).longValue());
        assertEquals("TOOL_CALL_LIMIT", v.get(1));
        assertTrue(((String) v.get(2)).contains("at most 3 tool calls"), v.get(2).toString());
        assertEquals(4, r.toolCalls().size());
        assertEquals("call_4", r.toolCalls().get(3).id());
    }

    @Test
    void theDefaultCapIsFifty() {
        ActionResult r =
                executor()
                        .build()
                        .execute(
                                "import { add } from \"@sandjar/tools/math\";\n"
                                        + "let n = 0;\n"
                                        + "try { for (;;) { await add({a: 1, b: 1}); n++; } }\n"
                                        + "catch (e) { return [n, e.code]; }");
        assertTrue(r.ran(), () -> String.valueOf(r.error()));
        List<?> v = (List<?>) r.run().value();
        assertEquals(50L, ((Number) v.get(0)).longValue());
        assertEquals("TOOL_CALL_LIMIT", v.get(1));
    }

    @Test
    void finishValidatesAgainstTheStepSchemaAndTheActionCanRepair() {
        AgentExecutor ex =
                executor()
                        .withFinishSchema(
                                "{\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"number\"}},"
                                    + "\"required\":[\"answer\"]}")
                        .build();
        ActionResult r =
                ex.execute(
                        "let first;\n"
                                + "try { finish({answer: 'forty-two'}); } catch (e) {"
                                + " first = [e.name, e.code, e.message]; }\n"
                                + "finish({answer: 42});\n"
                                + "return first;");
        assertTrue(r.ran(), () -> String.valueOf(r.error()));
        assertTrue(r.finished());
        assertEquals(Map.of("answer", 42L), r.result());
        List<?> first = (List<?>) r.run().value();
        assertEquals("FinishError", first.get(0));
        assertEquals("INVALID_RESULT", first.get(1));
        assertTrue(((String) first.get(2)).contains("answer"), first.get(2).toString());

        ActionResult valid = ex.execute("finish({answer: 1});");
        assertTrue(valid.finished());
        assertEquals(Map.of("answer", 1L), valid.result());

        ActionResult none = ex.execute("return 1;");
        assertFalse(none.finished());
        assertNull(none.result());
    }

    @Test
    void anImportOutsideTheConsentIsRefusedBeforeTheGuestStarts() {
        int before = addCalls.get();
        ActionResult r =
                executor()
                        .build()
                        .execute(
                                "import { add } from \"@sandjar/tools/math\";\n"
                                        + "import { diffLines } from \"@sandjar/diff\";\n"
                                        + "await add({a: 1, b: 2});\n"
                                        + "return 1;");
        assertNull(r.run());
        assertEquals(RunError.Kind.IMPORT, r.error().kind());
        assertTrue(
                r.error().message().contains("package @sandjar/diff is not allowed")
                        && r.error().message().contains("allowed: none"),
                r.error().message());
        assertEquals(before, addCalls.get());

        ActionResult unknown =
                executor().build().execute("import { x } from \"@sandjar/tools/nope\";");
        assertTrue(
                unknown.error().message().contains("@sandjar/tools/math"),
                unknown.error().message());
    }

    @Test
    void anAllowedPackImports() {
        ActionResult r =
                executor()
                        .withCatalog(ModuleCatalog.builder(sandbox).build())
                        .addAllowedPack("@sandjar/diff")
                        .build()
                        .execute("import diff from \"@sandjar/diff\";\n" + "return typeof diff;");
        assertTrue(r.ran(), () -> String.valueOf(r.error()));
        assertEquals("object", r.run().value());
    }

    @Test
    void theToolsGlobalNamesTheImportThatReplacesIt() {
        ActionResult r =
                executor()
                        .build()
                        .execute(
                                "const out = [];\n"
                                    + "try { tools.web_search({}); } catch (e) {"
                                    + " out.push(e.message); }\n"
                                    + "try { tools.nothing; } catch (e) { out.push(e.message); }\n"
                                    + "return out;");
        assertTrue(r.ran(), () -> String.valueOf(r.error()));
        List<?> v = (List<?>) r.run().value();
        assertEquals(
                "tools.web_search does not exist: import { web_search } from"
                        + " \"@sandjar/tools/web\";",
                v.get(0));
        assertTrue(((String) v.get(1)).contains("sandjar.searchTools"), v.get(1).toString());
    }

    @Test
    void searchToolsFindsToolsAndTheirImports() {
        ActionResult r =
                executor().build().execute("return await sandjar.searchTools('search web');");
        assertTrue(r.ran(), () -> String.valueOf(r.error()));
        List<?> hits = (List<?>) r.run().value();
        Map<?, ?> first = (Map<?, ?>) hits.get(0);
        assertEquals("web_search", first.get("name"));
        assertEquals("web", first.get("namespace"));
        assertEquals("import { web_search } from \"@sandjar/tools/web\";", first.get("import"));
        assertEquals("web_search(args: object): Promise<any>", first.get("signature"));

        List<ToolRegistry.Hit> add = registry().search("add");
        assertEquals("add", add.get(0).name());
        assertEquals("add(args: {a: number, b: number}): Promise<any>", add.get(0).signature());
        assertEquals(List.of(), registry().search("zebra"));
    }
}
