package dev.sandjar.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.node.CodeNode;
import dev.sandjar.bridges.node.NodeEvent;
import dev.sandjar.bridges.node.NodeExecution;
import dev.sandjar.bridges.node.NodeInvocation;
import dev.sandjar.bridges.node.NodeResult;
import dev.sandjar.bridges.node.NodeStream;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.ValueJson;
import dev.sandjar.packs.CatalogResolution;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;

/**
 * {@code sandjar node FILE.js [--input NAME=JSON]... --outputs a,b [--stream NAME=JSONARRAY]...
 * [--state JSON] [--emit-queue N] [run options]}: runs a Code-node body (docs/code-node.md) and
 * prints one JSON line per event on stdout as it happens: {@code {"emit": "row", "value": ...}},
 * {@code {"progress": 50, "message": "..."}}, {@code {"log": "..."}} (with {@code "level"} when not
 * info), and after each invocation {@code {"outputs": {...}, "state": {...}}}. A failure prints the
 * usual one-line error on stderr and exits 2; warnings go to stderr.
 *
 * <p>The declared inputs are the names given with {@code --input} and {@code --stream}. {@code
 * --stream} feeds a handle from a JSON array; {@code stream.any()} interleaves the handles
 * round-robin by index. A body that never mentions {@code stream} runs once per streamed item.
 */
final class NodeCommand {
    static final String USAGE =
            String.join(
                    "\n",
                    "       sandjar node FILE.js --outputs A,B [--input NAME=JSON]..."
                            + " [--stream NAME=JSONARRAY]... [--state JSON] [--emit-queue N]"
                            + " [run options]");

    private static final ObjectMapper JSON = new ObjectMapper();

    private NodeCommand() {}

    /** The node's own flags, around the run options. */
    static final class NodeOptions {
        final Map<String, Object> inputs = new LinkedHashMap<>();
        final Map<String, List<?>> streams = new LinkedHashMap<>();
        Set<String> outputs;
        String stateJson;
        Integer emitQueue;
        SandjarCli.Options run;

        static NodeOptions parse(String[] args) {
            NodeOptions n = new NodeOptions();
            n.run =
                    SandjarCli.Options.parse(
                            args,
                            "node",
                            (a, i) -> {
                                String flag = a[i];
                                switch (flag) {
                                    case "--input" -> n.input(SandjarCli.value(a, i + 1, flag));
                                    case "--stream" -> n.stream(SandjarCli.value(a, i + 1, flag));
                                    case "--outputs" ->
                                            n.outputs =
                                                    SandjarCli.names(
                                                            SandjarCli.value(a, i + 1, flag));
                                    case "--state" ->
                                            n.stateJson = SandjarCli.value(a, i + 1, flag);
                                    case "--emit-queue" ->
                                            n.emitQueue =
                                                    (int)
                                                            SandjarCli.number(
                                                                    a,
                                                                    i + 1,
                                                                    flag,
                                                                    1,
                                                                    CodeNode.MAX_EMIT_QUEUE);
                                    case "--global" ->
                                            throw new IllegalArgumentException(
                                                    "node bodies read their inputs as"
                                                            + " inputs.NAME: give them with --input"
                                                            + " NAME=JSON, not --global");
                                    default -> {
                                        return -1;
                                    }
                                }
                                return i + 1;
                            });
            if (n.outputs == null) {
                throw new IllegalArgumentException(
                        "node needs --outputs A,B (the output handles emit and output may name)");
            }
            if (n.stateJson != null) {
                // read once here, so bad JSON is a usage error found while parsing
                NodeInvocation.builder().jsonState(n.stateJson);
            }
            return n;
        }

        private void input(String spec) {
            int eq = spec.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--input needs NAME=JSON, got '" + spec + "'");
            }
            String name = spec.substring(0, eq);
            if (inputs.containsKey(name) || streams.containsKey(name)) {
                throw new IllegalArgumentException("input '" + name + "' is given twice");
            }
            inputs.put(name, read("--input " + name, spec.substring(eq + 1)));
        }

        private void stream(String spec) {
            int eq = spec.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(
                        "--stream needs NAME=JSONARRAY, got '" + spec + "'");
            }
            String name = spec.substring(0, eq);
            if (inputs.containsKey(name) || streams.containsKey(name)) {
                throw new IllegalArgumentException("input '" + name + "' is given twice");
            }
            Object items = read("--stream " + name, spec.substring(eq + 1));
            if (!(items instanceof List<?> list)) {
                throw new IllegalArgumentException(
                        "--stream " + name + ": needs a JSON array of the items, in order");
            }
            streams.put(name, list);
        }

        private static Object read(String what, String json) {
            try {
                return ValueJson.read(json, what);
            } catch (InvalidRequestException e) {
                throw new IllegalArgumentException(e.getMessage());
            }
        }

        Set<String> declaredInputs() {
            Set<String> all = new LinkedHashSet<>(inputs.keySet());
            all.addAll(streams.keySet());
            return all;
        }
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        NodeOptions options = NodeOptions.parse(args);
        String code = SandjarCli.readCode(options.run.file, err);
        if (code == null) {
            return 1;
        }
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build();
                Fetch fetch =
                        options.run.fetch
                                ? Fetch.create(SandjarCli.fetchConfig(options.run))
                                : null) {
            CodeNode.Builder node =
                    CodeNode.builder(sandbox, code)
                            .filename(options.run.file.getFileName().toString())
                            .inputs(options.declaredInputs())
                            .outputs(options.outputs)
                            .limits(options.run.limits())
                            .bridges(SandjarCli.capabilities(options.run, fetch).build());
            if (options.emitQueue != null) {
                node.emitQueue(options.emitQueue);
            }
            Optional<CatalogResolution> modules =
                    SandjarCli.resolveImports(sandbox, options.run.packs, code, err);
            if (modules.isPresent()) {
                if (!modules.get().isOk()) {
                    return 2;
                }
                node.modules(modules.get().moduleResolution());
            }
            NodeInvocation.Builder invocation = NodeInvocation.builder();
            options.inputs.forEach(invocation::input);
            options.streams.forEach((name, items) -> invocation.stream(name, NodeStream.of(items)));
            if (options.stateJson != null) {
                invocation.jsonState(options.stateJson);
            }
            invocation.listener(event -> out.println(line(event)));
            return execute(node.build(), invocation.build(), out, err);
        } catch (IllegalArgumentException | InvalidRequestException e) {
            err.println("error: usage: " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println("error: internal: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return 2;
        }
    }

    private static int execute(
            CodeNode node, NodeInvocation invocation, PrintStream out, PrintStream err) {
        NodeExecution execution = node.start(invocation);
        NodeResult result;
        try {
            result = SandjarCli.awaitCancellingOnExit(execution.result(), execution::cancel);
        } catch (ExecutionException e) { // a node's result never fails; kept for the contract
            err.println("error: internal: " + e.getCause());
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("error: cancelled: interrupted");
            return 2;
        }
        for (String w : result.warnings()) {
            err.println("warning: " + w);
        }
        if (!result.isOk()) {
            err.println(SandjarCli.describe(result.error()));
            return 2;
        }
        if (result.invocations() == 0) { // every stream was empty: still end with the outputs
            out.println(line(new NodeEvent.Outputs(Map.of(), result.state(), 0)));
        }
        return 0;
    }

    /** One event as its JSON line. */
    static String line(NodeEvent event) {
        List<String> fields = new ArrayList<>();
        if (event instanceof NodeEvent.Emit e) {
            fields.add(field("emit", quote(e.handle())));
            fields.add(field("value", ValueJson.write(e.value(), "value")));
        } else if (event instanceof NodeEvent.Progress p) {
            fields.add(field("progress", SandjarCli.formatPercent(p.percent()).replace("%", "")));
            if (p.message() != null) {
                fields.add(field("message", quote(p.message())));
            }
        } else if (event instanceof NodeEvent.Log l) {
            fields.add(field("log", quote(l.entry().message())));
            if (l.entry().level() != LogEntry.Level.INFO
                    && l.entry().level() != LogEntry.Level.LOG) {
                fields.add(
                        field("level", quote(l.entry().level().name().toLowerCase(Locale.ROOT))));
            }
        } else {
            NodeEvent.Outputs o = (NodeEvent.Outputs) event;
            fields.add(field("outputs", ValueJson.write(o.outputs(), "outputs")));
            fields.add(field("state", ValueJson.write(o.state(), "state")));
        }
        return "{" + String.join(", ", fields) + "}";
    }

    private static String field(String name, String json) {
        return quote(name) + ": " + json;
    }

    private static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
