package dev.sandjar.server.agents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Schema;
import dev.sandjar.host.InvalidRequestException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The tools an agent's actions may import, by namespace and name. Immutable and thread-safe; one
 * registry serves any number of actions. Each tool's schema is compiled once, when the registry is
 * built.
 */
public final class ToolRegistry {
    /** At most this many hits from {@link #search}. */
    public static final int MAX_SEARCH_RESULTS = 10;

    private final Map<String, Map<String, Tool>> byNamespace;
    private final Map<Tool, Schema> schemas;

    private ToolRegistry(Builder b) {
        Map<String, Map<String, Tool>> copy = new LinkedHashMap<>();
        b.byNamespace.forEach(
                (ns, tools) ->
                        copy.put(ns, Collections.unmodifiableMap(new LinkedHashMap<>(tools))));
        this.byNamespace = Collections.unmodifiableMap(copy);
        this.schemas = Map.copyOf(b.schemas);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** An empty registry. */
    public static ToolRegistry empty() {
        return builder().build();
    }

    public Set<String> namespaces() {
        return byNamespace.keySet();
    }

    /** The tools of {@code namespace} by name, in registration order; empty when it has none. */
    public Map<String, Tool> tools(String namespace) {
        return byNamespace.getOrDefault(namespace, Map.of());
    }

    public Optional<Tool> find(String namespace, String name) {
        return Optional.ofNullable(tools(namespace).get(name));
    }

    /** Every tool, by namespace then registration order. */
    public List<Tool> all() {
        List<Tool> out = new ArrayList<>();
        byNamespace.values().forEach(m -> out.addAll(m.values()));
        return out;
    }

    Schema schema(Tool tool) {
        return schemas.get(tool);
    }

    /**
     * Tools matching {@code query}, best first, at most {@link #MAX_SEARCH_RESULTS}. The query is
     * split into lower-case words (letters and digits; '_' and '-' split too); each word scores 3
     * when the tool's {@code namespace/name} contains it and 1 when its description does, and a
     * query equal to the tool's name adds 10. Tools scoring 0 are left out; ties keep registration
     * order. A blank query lists the first tools in registration order.
     */
    public List<Hit> search(String query) {
        String q = query == null ? "" : query.trim().toLowerCase(Locale.ROOT);
        List<String> words = new ArrayList<>();
        for (String w : q.split("[^\\p{L}\\p{N}]+")) {
            if (!w.isEmpty()) {
                words.add(w);
            }
        }
        List<Hit> hits = new ArrayList<>();
        List<Integer> scores = new ArrayList<>();
        for (Tool t : all()) {
            String name = (t.namespace() + "/" + t.name()).toLowerCase(Locale.ROOT);
            String description = t.description().toLowerCase(Locale.ROOT);
            int score = words.isEmpty() ? 1 : 0;
            for (String w : words) {
                score += name.contains(w) ? 3 : 0;
                score += description.contains(w) ? 1 : 0;
            }
            if (!q.isEmpty() && t.name().toLowerCase(Locale.ROOT).equals(q)) {
                score += 10;
            }
            if (score > 0) {
                hits.add(hit(t));
                scores.add(score);
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < hits.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparing((Integer i) -> -scores.get(i)).thenComparing(i -> i));
        return order.stream().limit(MAX_SEARCH_RESULTS).map(hits::get).toList();
    }

    /** One search result: what the action needs to call the tool. */
    public record Hit(
            String name,
            String namespace,
            String signature,
            String description,
            String importLine) {
        /** As the guest sees it ({@code import} holds the import line). */
        public Map<String, Object> toGuest() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("namespace", namespace);
            m.put("signature", signature);
            m.put("description", description);
            m.put("import", importLine);
            return m;
        }
    }

    static Hit hit(Tool t) {
        return new Hit(t.name(), t.namespace(), signature(t), t.description(), t.importLine());
    }

    /**
     * A TypeScript-like signature read off the schema's top-level properties: {@code add(args: {a:
     * number, b?: number}): Promise<any>}.
     */
    static String signature(Tool t) {
        StringBuilder s = new StringBuilder(t.name()).append("(args: ");
        try {
            JsonNode schema = JsonSchemas.JSON.readTree(t.parametersSchema());
            JsonNode props = schema.path("properties");
            Set<String> required = new LinkedHashSet<>();
            schema.path("required").forEach(r -> required.add(r.asText()));
            if (props.isObject() && props.size() > 0) {
                s.append("{");
                Iterator<Map.Entry<String, JsonNode>> it = props.properties().iterator();
                boolean first = true;
                while (it.hasNext()) {
                    Map.Entry<String, JsonNode> p = it.next();
                    s.append(first ? "" : ", ").append(p.getKey());
                    s.append(required.contains(p.getKey()) ? ": " : "?: ");
                    s.append(typeOf(p.getValue()));
                    first = false;
                }
                s.append("}");
            } else {
                s.append("object");
            }
        } catch (JsonProcessingException e) {
            s.append("object"); // unreachable: the schema parsed when the tool was built
        }
        return s.append("): Promise<any>").toString();
    }

    private static String typeOf(JsonNode schema) {
        JsonNode type = schema.path("type");
        String t = type.isTextual() ? type.asText() : "any";
        return switch (t) {
            case "integer", "number" -> "number";
            case "string", "boolean", "object", "null" -> t;
            case "array" -> typeOf(schema.path("items")) + "[]";
            default -> "any";
        };
    }

    public static final class Builder {
        private final Map<String, Map<String, Tool>> byNamespace = new LinkedHashMap<>();
        private final Map<Tool, Schema> schemas = new LinkedHashMap<>();

        private Builder() {}

        /**
         * @throws InvalidRequestException when the namespace already has a tool of that name
         */
        public Builder addTool(Tool tool) {
            Objects.requireNonNull(tool, "tool");
            Map<String, Tool> ns =
                    byNamespace.computeIfAbsent(tool.namespace(), k -> new LinkedHashMap<>());
            if (ns.putIfAbsent(tool.name(), tool) != null) {
                throw new InvalidRequestException(
                        "tool " + tool.namespace() + "/" + tool.name() + " is registered twice");
            }
            schemas.put(
                    tool,
                    JsonSchemas.compile(
                            tool.parametersSchema(),
                            "parameters of tool " + tool.namespace() + "/" + tool.name()));
            return this;
        }

        public Builder addTools(Collection<Tool> tools) {
            tools.forEach(this::addTool);
            return this;
        }

        public ToolRegistry build() {
            return new ToolRegistry(this);
        }
    }
}
