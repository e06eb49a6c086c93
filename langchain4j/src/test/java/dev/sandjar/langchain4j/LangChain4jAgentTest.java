package dev.sandjar.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Sandbox;
import dev.sandjar.server.agents.AgentExecutor;
import dev.sandjar.server.agents.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A LangChain4j {@code AiServices} agent whose one tool is Sandjar's {@code execute_code}, driven
 * by a scripted chat model (no network): the model's action imports two of the agent's LangChain4j
 * tools, calls them, and finishes; the model reads the outcome and answers.
 */
@Timeout(120)
class LangChain4jAgentTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static final AtomicInteger adds = new AtomicInteger();

    public static class Calculator {
        @Tool("Adds two integers")
        public int add(
                @P(name = "a", value = "the first") int a,
                @P(name = "b", value = "the second") int b) {
            adds.incrementAndGet();
            return a + b;
        }
    }

    public static class Words {
        public record Shout(String text, int length) {}

        @Tool("Shouts a word")
        public Shout shout(@P(name = "word", value = "the word") String word) {
            String s = word.toUpperCase() + "!";
            return new Shout(s, s.length());
        }

        @Tool("Always fails")
        public String broken() {
            throw new IllegalStateException("the printer is on fire");
        }
    }

    interface Agent {
        String chat(String message);
    }

    static final String ACTION =
            String.join(
                    "\n",
                    "import { add } from \"@sandjar/tools/calc\";",
                    "import { shout, broken } from \"@sandjar/tools/words\";",
                    "let total = 0;",
                    "for (const n of [1, 2, 3, 4]) total = await add({ a: total, b: n });",
                    "let failure;",
                    "try { await broken(); } catch (e) { failure = e.code + ': ' + e.message; }",
                    "finish({ total, shout: await shout({ word: 'done' }), failure });");

    /** Acts once with {@link #ACTION}, then answers with what the action finished with. */
    static final class ScriptedModel implements ChatModel {
        final List<ChatRequest> requests = new CopyOnWriteArrayList<>();
        final Function<String, String> arguments;

        ScriptedModel(Function<String, String> arguments) {
            this.arguments = arguments;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            requests.add(request);
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (!(last instanceof ToolExecutionResultMessage observation)) {
                return ChatResponse.builder()
                        .aiMessage(
                                AiMessage.from(
                                        ToolExecutionRequest.builder()
                                                .id("act_1")
                                                .name("execute_code")
                                                .arguments(arguments.apply(ACTION))
                                                .build()))
                        .build();
            }
            try {
                JsonNode outcome = JSON.readTree(observation.text());
                return ChatResponse.builder()
                        .aiMessage(
                                AiMessage.from(
                                        outcome.get("finished").asBoolean()
                                                ? "total "
                                                        + outcome.at("/result/total").asInt()
                                                        + ", "
                                                        + outcome.at("/result/shout/text").asText()
                                                        + " ("
                                                        + outcome.at("/result/failure").asText()
                                                        + ")"
                                                : "not finished: " + outcome.get("error")))
                        .build();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static Sandbox sandbox;
    private static SandjarCodeTool sandjar;

    @BeforeAll
    static void start() {
        sandbox = Sandbox.create();
        ToolRegistry registry =
                ToolRegistry.builder()
                        .addTools(LangChain4jTools.from("calc", new Calculator()))
                        .addTools(LangChain4jTools.from("words", new Words()))
                        .build();
        sandjar = new SandjarCodeTool(AgentExecutor.builder(sandbox, registry).build());
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    private static String codeArgument(String code) {
        try {
            return JSON.writeValueAsString(Map.of("code", code));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anAiServicesAgentActsThroughExecuteCode() {
        int before = adds.get();
        ScriptedModel model = new ScriptedModel(LangChain4jAgentTest::codeArgument);
        Agent agent =
                AiServices.builder(Agent.class)
                        .chatModel(model)
                        .systemMessageProvider(id -> sandjar.systemPrompt())
                        .tools(sandjar)
                        .build();

        String answer = agent.chat("Add 1 to 4, then shout done");

        assertEquals("total 10, DONE! (TOOL_FAILED: words/broken: the printer is on fire)", answer);
        assertEquals(4, adds.get() - before);
        assertEquals(2, model.requests.size());
        // the model was offered execute_code, and told what an action may import
        ChatRequest first = model.requests.get(0);
        assertEquals(
                List.of("execute_code"),
                first.toolSpecifications().stream().map(t -> t.name()).toList());
        String system = ((SystemMessage) first.messages().get(0)).text();
        assertTrue(system.contains("import { add } from \"@sandjar/tools/calc\";"), system);
        assertTrue(
                system.contains(
                        "add(args: {a: number, b: number}): Promise<any> - Adds two" + " integers"),
                system);
        assertTrue(
                system.contains("import { broken, shout } from \"@sandjar/tools/words\";"), system);
    }

    @Test
    void theManifestDescribedToolMapWorksTheSame() {
        ScriptedModel model = new ScriptedModel(LangChain4jAgentTest::codeArgument);
        Agent agent =
                AiServices.builder(Agent.class)
                        .chatModel(model)
                        .tools(Map.of(sandjar.toolSpecification(), sandjar.toolExecutor()))
                        .build();
        assertTrue(agent.chat("go").startsWith("total 10, DONE!"));
        String description = model.requests.get(0).toolSpecifications().get(0).description();
        assertTrue(
                description.contains("import { add } from \"@sandjar/tools/calc\";"), description);
    }

    @Test
    void aRefusedActionIsAnObservationNotAnException() throws Exception {
        JsonNode outcome =
                JSON.readTree(
                        sandjar.execute("import { x } from \"@sandjar/tools/nope\";\nfinish(1);"));
        assertEquals(false, outcome.get("finished").asBoolean());
        assertEquals("IMPORT", outcome.at("/error/kind").asText());
        assertTrue(
                outcome.at("/error/message")
                        .asText()
                        .contains("'@sandjar/tools/nope' is not a tool module"),
                outcome.toString());
    }

    @Test
    void anObjectWithoutToolMethodsIsRefused() {
        InvalidRequestException e =
                assertThrows(
                        InvalidRequestException.class,
                        () -> LangChain4jTools.from("x", new Object()));
        assertEquals("java.lang.Object has no @Tool method", e.getMessage());
    }
}
