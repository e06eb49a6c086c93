package dev.sandjar.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sandjar.bridges.Capabilities;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Sandbox;
import dev.sandjar.server.agents.ActionResult;
import dev.sandjar.server.agents.AgentExecutor;
import dev.sandjar.server.agents.ToolRegistry;
import dev.sandjar.server.agents.ToolsFile;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sandjar act FILE.js --tools TOOLS.json [options]}: runs FILE as one agent action ({@link
 * AgentExecutor}, docs/agents.md) and prints one JSON object on stdout: {@code {"finished",
 * "result", "toolCalls", "logs", "error"}}. Exits 0 when the action ran to its end (finished or
 * not), 2 when it was refused or failed (the object still printed), 1 on bad usage.
 */
final class ActCommand {
    static final String USAGE =
            String.join(
                    "\n",
                    "       sandjar act FILE.js --tools TOOLS.json [--finish-schema SCHEMA.json]"
                            + " [--allow-pack NAME]... [--max-tool-calls N] [--packs DIR]...",
                    "act options:",
                    "  --tools TOOLS.json       the tools the action imports from"
                            + " @sandjar/tools/<namespace> (docs/agents.md)",
                    "  --finish-schema FILE     the JSON Schema finish(result) checks",
                    "  --allow-pack NAME        a package the action may import (none unless"
                            + " allowed)",
                    "  --max-tool-calls N       tool calls per action (default "
                            + AgentExecutor.DEFAULT_MAX_TOOL_CALLS
                            + ", 1.."
                            + AgentExecutor.MAX_TOOL_CALLS
                            + ")");

    private static final ObjectMapper JSON =
            new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private ActCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        Path file = null;
        Path tools = null;
        Path finishSchema = null;
        List<String> allowed = new ArrayList<>();
        long maxToolCalls = AgentExecutor.DEFAULT_MAX_TOOL_CALLS;
        List<SandjarCli.PackPath> packs = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--tools" -> tools = Path.of(SandjarCli.value(args, ++i, a));
                case "--finish-schema" -> finishSchema = Path.of(SandjarCli.value(args, ++i, a));
                case "--allow-pack" -> allowed.add(SandjarCli.value(args, ++i, a));
                case "--max-tool-calls" ->
                        maxToolCalls =
                                SandjarCli.number(args, ++i, a, 1, AgentExecutor.MAX_TOOL_CALLS);
                case "--packs", "--trust-packs" -> packs.add(SandjarCli.PackPath.of(a, args, i++));
                default -> {
                    if (a.startsWith("--")) {
                        throw new IllegalArgumentException("unknown act option " + a);
                    }
                    if (file != null) {
                        throw new IllegalArgumentException("more than one file given");
                    }
                    file = Path.of(a);
                }
            }
        }
        if (file == null) {
            throw new IllegalArgumentException("act needs a FILE.js");
        }
        if (tools == null) {
            throw new IllegalArgumentException("act needs --tools TOOLS.json");
        }
        String code;
        String schema = null;
        try {
            code = Files.readString(file, StandardCharsets.UTF_8);
            if (finishSchema != null) {
                schema = Files.readString(finishSchema, StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            err.println("error: usage: " + e.getMessage());
            return 1;
        }
        ToolsFile toolsFile;
        try {
            toolsFile = ToolsFile.load(tools);
        } catch (InvalidRequestException e) {
            err.println("error: usage: " + e.getMessage());
            return 1;
        }
        ActionResult result;
        try (toolsFile;
                Sandbox sandbox = Sandbox.builder().poolSize(1).build()) {
            ToolRegistry registry = toolsFile.registry();
            AgentExecutor.Builder b =
                    AgentExecutor.builder(sandbox, registry)
                            .addBridges(Capabilities.defaults())
                            .withMaxToolCalls((int) maxToolCalls);
            if (schema != null) {
                b.withFinishSchema(schema);
            }
            if (!allowed.isEmpty()) {
                b.withCatalog(SandjarCli.catalog(sandbox, packs));
                allowed.forEach(b::addAllowedPack);
            }
            result = b.build().execute(code);
        } catch (InvalidRequestException e) {
            err.println("error: usage: " + e.getMessage());
            return 1;
        }
        try {
            out.println(JSON.writeValueAsString(result.toMap()));
        } catch (JsonProcessingException e) {
            err.println("error: internal: the outcome is not JSON: " + e.getOriginalMessage());
            return 2;
        }
        return result.ran() ? 0 : 2;
    }
}
