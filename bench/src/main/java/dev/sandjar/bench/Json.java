package dev.sandjar.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;

/** Jackson, the way a peer's user moves rows across: JSON text each way. */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeReference<List<Map<String, Object>>> ROWS = new TypeReference<>() {};

    private Json() {}

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<Map<String, Object>> readRows(String json) {
        try {
            return MAPPER.readValue(json, ROWS);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The script a peer runs for the rows workload: parse the injected JSON, return JSON. */
    static String rowsScript(String inputExpression) {
        return rowsPrelude(inputExpression) + Workloads.asJsonScript(Workloads.body("rows"));
    }

    static String rowsPrelude(String inputExpression) {
        return "globalThis.rows = JSON.parse(" + inputExpression + ");\n";
    }
}
