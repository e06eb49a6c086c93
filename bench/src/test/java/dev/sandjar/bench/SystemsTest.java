package dev.sandjar.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every system computes the same answers, so the benchmarks compare like with like. */
@Timeout(120)
@ExtendWith(EngineLeakCheck.class)
class SystemsTest {
    private static JsSystem sandjar;

    @BeforeAll
    static void start() {
        sandjar = JsSystem.create("sandjar", 1);
    }

    @AfterAll
    static void stop() {
        sandjar.close();
    }

    private static JsonNode tree(Object value) {
        try {
            return value instanceof String s
                    ? Json.MAPPER.readTree(s)
                    : Json.MAPPER.valueToTree(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    /** Equal as JSON values, numbers compared by value (JSON has no int/double distinction). */
    static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.doubleValue() == b.doubleValue();
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!same(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) {
                return false;
            }
            var names = a.fieldNames();
            while (names.hasNext()) {
                String n = names.next();
                if (!b.has(n) || !same(a.get(n), b.get(n))) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }

    private static void assertSame(Object expected, Object actual, String what) {
        JsonNode e = tree(expected);
        JsonNode a = tree(actual);
        if (!same(e, a)) {
            String text = a.toString();
            fail(what + ": got " + (text.length() > 300 ? text.substring(0, 300) + "..." : text));
        }
    }

    @Test
    void peersAgreeWithSandjarOnEveryWorkload() {
        List<Map<String, Object>> rows = Workloads.rows();
        byte[] bytes = Workloads.bytes();
        for (String name : JsSystem.NAMES) {
            try (JsSystem system = JsSystem.create(name, 1)) {
                assertSame(2L, system.eval(Workloads.body("trivial")), name);
                for (String w : Workloads.COMPUTE) {
                    String body = Workloads.body(w);
                    long t0 = System.nanoTime();
                    assertSame(sandjar.eval(body), system.eval(body), name + " " + w);
                    System.out.printf(
                            "%s %s %d ms%n", name, w, (System.nanoTime() - t0) / 1_000_000);
                }
                assertSame(rows, system.rows(rows), name + " rows");
                if (system.bytesUnsupported() == null) {
                    assertArrayEquals(bytes, system.bytes(bytes), name + " bytes");
                } else {
                    assertNotNull(system.bytesUnsupported());
                }
            }
        }
    }
}
