package dev.sandjar.server.agents;

import dev.sandjar.host.Bridge;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.packs.ModuleSummary;
import dev.sandjar.packs.ToolModules;
import dev.sandjar.packs.Trust;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The system-prompt manifest of what an action can use: its globals, the packs it may import (and
 * their modules), its tools with their signatures and import lines, the finish schema and the
 * tool-call cap. Generated from the executor itself (its bridges, registry, allowed packs, catalog
 * and schema), the same definitions the sandbox enforces, so what the prompt promises is what an
 * action gets; {@code ActionManifestDriftTest} runs actions to check that it stays so.
 *
 * <p>Tool and pack descriptions are third-party text: each is cut to one line of at most {@value
 * #MAX_DESCRIPTION} characters.
 */
public final class ActionManifest {
    /** The longest tool or module description kept. */
    public static final int MAX_DESCRIPTION = 200;

    /** One global an action may use, with a line saying what it is. */
    public record Global(String name, String description) {}

    /**
     * One pack an action may import, with the specifiers it serves and each one's export names (a
     * module whose exports could not be read has none listed).
     */
    public record Pack(
            String name,
            boolean trusted,
            List<ModuleSummary> modules,
            Map<String, List<String>> exports) {
        public Pack {
            modules = List.copyOf(modules);
            exports = Map.copyOf(exports);
        }
    }

    /**
     * The globals each capability bridge defines, by bridge name: the manifest's one home for them
     * (the drift test fails when a bridge defines a global this does not list, or stops defining
     * one it does).
     */
    static final Map<String, List<Global>> BRIDGE_GLOBALS = bridgeGlobals();

    /** The globals every action has from the executor itself. */
    static final List<Global> AGENT_GLOBALS =
            List.of(
                    new Global(
                            "finish",
                            "finish(result) records the step's result (checked against the step's"
                                    + " schema when there is one; an invalid result throws"
                                    + " FinishError with the violations, so fix it and call"
                                    + " finish again); return after it"),
                    new Global(
                            "sandjar",
                            "sandjar.searchTools(query) finds tools by words: {name, namespace,"
                                    + " signature, description, import}[];"
                                    + " sandjar.packs.list(), .modules(pack), .exports(specifier)"
                                    + " and .docs(specifier) tell what may be imported"),
                    new Global(
                            "tools",
                            "not a way to call tools: reading tools.x throws naming the import"
                                    + " that replaces it"));

    private final List<Global> globals;
    private final List<String> undocumentedBridges;
    private final List<ToolRegistry.Hit> tools;
    private final List<Pack> packs;
    private final String finishSchema;
    private final int maxToolCalls;

    private ActionManifest(
            List<Global> globals,
            List<String> undocumentedBridges,
            List<ToolRegistry.Hit> tools,
            List<Pack> packs,
            String finishSchema,
            int maxToolCalls) {
        this.globals = List.copyOf(globals);
        this.undocumentedBridges = List.copyOf(undocumentedBridges);
        this.tools = List.copyOf(tools);
        this.packs = List.copyOf(packs);
        this.finishSchema = finishSchema;
        this.maxToolCalls = maxToolCalls;
    }

    /** The manifest of what {@code executor}'s actions can use. */
    public static ActionManifest of(AgentExecutor executor) {
        Objects.requireNonNull(executor, "executor");
        List<Global> globals = new ArrayList<>(AGENT_GLOBALS);
        List<String> undocumented = new ArrayList<>();
        for (Bridge b : executor.bridges()) {
            List<Global> g = BRIDGE_GLOBALS.get(b.name());
            if (g == null) {
                undocumented.add(b.name());
            } else {
                globals.addAll(g);
            }
        }
        List<ToolRegistry.Hit> tools =
                executor.registry().all().stream().map(ToolRegistry::hit).toList();
        List<Pack> packs = new ArrayList<>();
        ModuleCatalog catalog = executor.catalog();
        for (String pack : executor.allowedPacks()) {
            List<ModuleSummary> modules =
                    catalog == null
                            ? List.of()
                            : catalog.summaries().stream()
                                    .filter(m -> m.pack().equals(pack))
                                    .toList();
            boolean trusted =
                    catalog != null
                            && catalog.trustOf(pack).map(t -> t == Trust.TRUSTED).orElse(false);
            Map<String, List<String>> exports = new LinkedHashMap<>();
            for (ModuleSummary m : modules) {
                List<String> names = executor.exportsOf(m.specifier());
                if (names != null) {
                    exports.put(m.specifier(), names);
                }
            }
            packs.add(new Pack(pack, trusted, modules, exports));
        }
        return new ActionManifest(
                globals,
                undocumented,
                tools,
                packs,
                executor.finishSchema(),
                executor.maxToolCalls());
    }

    /** The globals an action has beyond the language's own, the executor's first. */
    public List<Global> globals() {
        return globals;
    }

    /** Capability bridges the manifest has no globals for (their globals are not listed). */
    public List<String> undocumentedBridges() {
        return undocumentedBridges;
    }

    /** Every tool, by namespace then registration order. */
    public List<ToolRegistry.Hit> tools() {
        return tools;
    }

    /** The packs an action may import, with their modules (empty when none is installed). */
    public List<Pack> packs() {
        return packs;
    }

    /** The step's result schema, or null. */
    public String finishSchema() {
        return finishSchema;
    }

    public int maxToolCalls() {
        return maxToolCalls;
    }

    /** The manifest as prompt text (plain text with code lines; no Markdown headings). */
    public String text() {
        StringBuilder s = new StringBuilder();
        s.append("Run JavaScript as one action. The code is the body of an ES module: use")
                .append(" top-level await, import what you need, and end the step with")
                .append(" finish(result).\n\nGlobals:\n");
        for (Global g : globals) {
            s.append("- ").append(g.name()).append(": ").append(g.description()).append('\n');
        }
        for (String b : undocumentedBridges) {
            s.append("- (the globals of capability '").append(b).append("')\n");
        }
        s.append('\n');
        if (tools.isEmpty()) {
            s.append("Tools: none.\n");
        } else {
            s.append("Tools (each takes one object and returns a Promise; a failed call throws")
                    .append(" ToolError with .code and .message; a module's default export is")
                    .append(" all its tools as one object):\n");
            Map<String, List<ToolRegistry.Hit>> byNamespace = new LinkedHashMap<>();
            tools.forEach(
                    t -> byNamespace.computeIfAbsent(t.namespace(), k -> new ArrayList<>()).add(t));
            byNamespace.forEach(
                    (ns, hits) -> {
                        s.append("import { ")
                                .append(
                                        String.join(
                                                ", ", hits.stream().map(h -> h.name()).toList()))
                                .append(" } from \"")
                                .append(ToolModules.specifier(ns))
                                .append("\";\n");
                        for (ToolRegistry.Hit h : hits) {
                            s.append("  ").append(h.signature());
                            String d = oneLine(h.description());
                            s.append(d.isEmpty() ? "" : " - " + d).append('\n');
                        }
                    });
        }
        s.append('\n');
        if (packs.isEmpty()) {
            s.append("Packages: none may be imported (an import of any package is refused).\n");
        } else {
            s.append("Packages you may import (any other import is refused):\n");
            for (Pack p : packs) {
                s.append("- ").append(p.name()).append(p.trusted() ? "" : " (untrusted)");
                if (p.modules().isEmpty()) {
                    s.append(": not installed\n");
                    continue;
                }
                s.append('\n');
                for (ModuleSummary m : p.modules()) {
                    String d = oneLine(m.description());
                    s.append("  ")
                            .append(m.specifier())
                            .append(d.isEmpty() ? "" : " - " + d)
                            .append('\n');
                    List<String> names = p.exports().get(m.specifier());
                    if (names != null && !names.isEmpty()) {
                        s.append("    exports: ").append(String.join(", ", names)).append('\n');
                    }
                }
            }
        }
        s.append('\n');
        if (finishSchema != null) {
            s.append("finish(result) takes a result matching this JSON Schema: ")
                    .append(oneLine(finishSchema, Integer.MAX_VALUE))
                    .append('\n');
        }
        s.append("At most ").append(maxToolCalls).append(" tool calls per action.\n");
        s.append("The outcome is {finished, result, toolCalls, logs, error}.\n");
        return s.toString();
    }

    @Override
    public String toString() {
        return text();
    }

    static String oneLine(String text) {
        return oneLine(text, MAX_DESCRIPTION);
    }

    private static String oneLine(String text, int max) {
        String t = text == null ? "" : text.replaceAll("[\\p{Cntrl}\\s]+", " ").strip();
        return t.length() <= max ? t : t.substring(0, max - 3) + "...";
    }

    private static Map<String, List<Global>> bridgeGlobals() {
        Map<String, List<Global>> m = new LinkedHashMap<>();
        m.put(
                "console",
                List.of(
                        new Global(
                                "console",
                                "console.log/info/warn/error/debug: lines collected as the"
                                        + " action's logs")));
        m.put(
                "sleep",
                List.of(new Global("sleep", "await sleep(ms) waits (counts against the time)")));
        m.put(
                "crypto",
                List.of(
                        new Global(
                                "crypto",
                                "crypto.randomUUID(), getRandomValues, await crypto.digest(alg,"
                                        + " data), await crypto.hmac(alg, key, data)")));
        m.put(
                "format",
                List.of(
                        new Global(
                                "format",
                                "await format.number/date/relativeTime/list(value, locale,"
                                        + " options): locale-aware text")));
        m.put(
                "progress",
                List.of(new Global("progress", "progress(percent, message?) reports progress")));
        m.put(
                "helpers",
                List.of(
                        new Global(
                                "parallelMap",
                                "await parallelMap(items, async fn, concurrency = 5): fn over"
                                        + " items, at most concurrency at once (up to 32), results"
                                        + " in order"),
                        new Global("TextEncoder", "new TextEncoder().encode(text): UTF-8 bytes"),
                        new Global("TextDecoder", "new TextDecoder().decode(bytes): text"),
                        new Global("toBase64", "toBase64(bytes): base64 text"),
                        new Global("fromBase64", "fromBase64(text): bytes"),
                        new Global("toHex", "toHex(bytes): hex text"),
                        new Global("fromHex", "fromHex(text): bytes")));
        m.put(
                "media",
                List.of(
                        new Global(
                                "media",
                                "await media.bytes/text/info(ref); await"
                                        + " media.toImage/toDocument/toAudio/toVideo(bytes |"
                                        + " handle): media refs and sandbox://media/ handles")));
        m.put(
                "image",
                List.of(
                        new Global(
                                "image",
                                "await image.info/stats/decode/resize/crop/rotate/flip/adjust/"
                                        + "pad/grid/composite/convert/blank(...): image"
                                        + " transforms returning handles; image.bytes(handle)")));
        m.put(
                "canvas",
                List.of(
                        new Global(
                                "createCanvas",
                                "createCanvas(w, h).getContext('2d'): Canvas 2D; await"
                                        + " surface.toBytes('image/png') or toImage()"),
                        new Global("canvas", "canvas.measureText(text, font)"),
                        new Global(
                                "ImageData",
                                "new ImageData(width, height): pixels for putImageData")));
        m.put(
                "fetch",
                List.of(new Global("fetch", "await fetch(url, init): the network, by policy")));
        m.put(
                "workspace",
                List.of(
                        new Global(
                                "workspace",
                                "await workspace.read/write/list/...: files of the run's"
                                        + " workspace")));
        m.put(
                "secrets",
                List.of(new Global("secrets", "await secrets.get(name): a granted secret")));
        m.put(
                "audio",
                List.of(
                        new Global(
                                "audio",
                                "await audio.info/normalize/trim/concat/mix/reverse/fadeIn/"
                                        + "fadeOut/repeat(ref | handle, options): WAV audio,"
                                        + " transforms return sandbox://media/ handles")));
        m.put(
                "video",
                List.of(
                        new Global(
                                "video",
                                "await video.info/trim/resize/rotate/addAudio/extractAudio/"
                                        + "extractFrame(ref | handle, options): the host's ffmpeg,"
                                        + " transforms return sandbox://media/ handles")));
        return Map.copyOf(m);
    }
}
