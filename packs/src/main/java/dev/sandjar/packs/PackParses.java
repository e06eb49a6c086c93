package dev.sandjar.packs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.RunError;
import dev.sandjar.host.Sandbox;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The parser's findings for pack code: from the {@link PackIndex} when it holds them for this exact
 * text, else from the sandbox's parser (then recorded in the index). Without an index, every call
 * parses, as discovery always did.
 */
final class PackParses {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Sandbox sandbox;
    private final PackIndex index; // null: none

    PackParses(Sandbox sandbox, PackIndex index) {
        this.sandbox = sandbox;
        this.index = index;
    }

    /** {@link Sandbox#analyze} of {@code source}. */
    CodeAnalysis analyze(String source) {
        if (index == null) {
            return sandbox.analyze(source);
        }
        String k = analysisKey(source);
        JsonNode cached = index.get(k);
        if (cached != null) {
            CodeAnalysis a = fromJson(cached);
            if (a != null) {
                return a;
            }
        }
        CodeAnalysis a = sandbox.analyze(source);
        index.put(k, toJson(a));
        return a;
    }

    /**
     * {@link PackTrust#guard} of {@code source}. The index only records that the guard keeps every
     * name the file can name ({@link PackTrust#guardUnparsed}); a file that declares one of them
     * itself is parsed every time, so the names left to a file never come from the index.
     */
    String guard(String source, Set<String> withheld) {
        if (index == null) {
            return PackTrust.guard(sandbox::analyze, source, withheld);
        }
        String full = PackTrust.guardUnparsed(source, withheld);
        String k =
                "g:" + Digests.sha256Hex(String.join(",", new TreeSet<>(withheld)) + "\n" + source);
        if (index.get(k) != null) {
            return full;
        }
        String guarded = PackTrust.guard(sandbox::analyze, source, withheld);
        if (guarded.equals(full)) {
            index.put(k, NODES.booleanNode(true));
        }
        return guarded;
    }

    /** The index key of {@code source}'s analysis. */
    static String analysisKey(String source) {
        return "a:" + Digests.sha256Hex(source);
    }

    /** The index key of {@code source}'s guard when {@code withheld} are withheld. */
    static String guardKey(String source, Set<String> withheld) {
        return "g:" + Digests.sha256Hex(String.join(",", new TreeSet<>(withheld)) + "\n" + source);
    }

    /** Writes the index if this discovery changed it. */
    void save() {
        if (index != null) {
            index.save();
        }
    }

    static JsonNode toJson(CodeAnalysis a) {
        ObjectNode o = NODES.objectNode();
        RunError e = a.syntaxError();
        if (e != null) {
            o.putArray("syntax")
                    .add(e.kind().name())
                    .add(e.name())
                    .add(e.message())
                    .add(e.line())
                    .add(e.column());
        }
        ArrayNode imports = o.putArray("imports");
        for (CodeAnalysis.Import i : a.imports()) {
            imports.addArray().add(i.specifier()).add(i.line()).add(i.column());
        }
        o.put("exports", a.hasExports());
        if (a.firstExport() != null) {
            o.set("firstExport", position(a.firstExport()));
        }
        o.set("dynamicImports", positions(a.dynamicImports()));
        o.set("requireCalls", positions(a.requireCalls()));
        return o;
    }

    /** The analysis an entry holds, or null when it is not one this class wrote. */
    static CodeAnalysis fromJson(JsonNode o) {
        try {
            RunError syntax = null;
            JsonNode s = o.get("syntax");
            if (s != null) {
                syntax =
                        new RunError(
                                RunError.Kind.valueOf(s.get(0).textValue()),
                                s.get(1).textValue(),
                                s.get(2).textValue(),
                                "",
                                s.get(3).intValue(),
                                s.get(4).intValue());
            }
            List<CodeAnalysis.Import> imports = new ArrayList<>();
            for (JsonNode i : o.get("imports")) {
                imports.add(
                        new CodeAnalysis.Import(
                                i.get(0).textValue(), i.get(1).intValue(), i.get(2).intValue()));
            }
            JsonNode first = o.get("firstExport");
            return new CodeAnalysis(
                    syntax,
                    imports,
                    o.get("exports").booleanValue(),
                    first == null ? null : position(first),
                    positions(o.get("dynamicImports")),
                    positions(o.get("requireCalls")),
                    null);
        } catch (RuntimeException malformed) {
            return null; // parse again; the entry is replaced
        }
    }

    private static ArrayNode position(CodeAnalysis.Position p) {
        return NODES.arrayNode().add(p.line()).add(p.column());
    }

    private static CodeAnalysis.Position position(JsonNode p) {
        return new CodeAnalysis.Position(p.get(0).intValue(), p.get(1).intValue());
    }

    private static ArrayNode positions(List<CodeAnalysis.Position> ps) {
        ArrayNode a = NODES.arrayNode();
        ps.forEach(p -> a.add(position(p)));
        return a;
    }

    private static List<CodeAnalysis.Position> positions(JsonNode a) {
        List<CodeAnalysis.Position> out = new ArrayList<>();
        for (JsonNode p : a) {
            out.add(position(p));
        }
        return out;
    }
}
