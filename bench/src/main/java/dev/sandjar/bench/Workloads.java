package dev.sandjar.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The guest code every system runs, and the data the transport workloads move. Each workload is a
 * function body in {@code workloads/NAME.js} sized by a constant {@code N} that {@link #body}
 * defines; the Node script is handed the same bodies.
 *
 * <p>The size is {@code full} unless the system property {@code sandjar.bench.size} is {@code
 * tiny}: the smoke test's setting, which checks every benchmark works without timing anything.
 */
public final class Workloads {
    /** Guest compute workloads, in report order. */
    public static final List<String> COMPUTE = List.of("fib", "strings", "json", "regex");

    private static final Map<String, Integer> FULL =
            Map.of("fib", 25, "strings", 50_000, "json", 6_000, "regex", 5_000);
    private static final Map<String, Integer> TINY =
            Map.of("fib", 12, "strings", 500, "json", 20, "regex", 20);

    private Workloads() {}

    /** True when the property {@code sandjar.bench.size} asks for the smoke test's tiny sizes. */
    public static boolean tiny() {
        return "tiny".equals(System.getProperty("sandjar.bench.size"));
    }

    /** Rows the transport workload moves: 5,000 (20 when tiny). */
    public static int rowCount() {
        return tiny() ? 20 : 5_000;
    }

    /** Bytes the transport workload moves: 4 MiB (4 KiB when tiny). */
    public static int byteCount() {
        return tiny() ? 4 << 10 : 4 << 20;
    }

    /** The function body of workload {@code name}, with its size {@code N} defined first. */
    public static String body(String name) {
        Integer n = (tiny() ? TINY : FULL).get(name);
        String source = source(name);
        return n == null ? source : "const N = " + n + ";\n" + source;
    }

    /** The function body of workload {@code name} at size {@code n}, whatever the property says. */
    static String body(String name, int n) {
        return "const N = " + n + ";\n" + source(name);
    }

    private static String source(String name) {
        String path = "workloads/" + name + ".js";
        try (InputStream in = Workloads.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalArgumentException("no workload " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #rowCount} rows of 10 fields: strings, integers, a double, a boolean and a null. */
    public static List<Map<String, Object>> rows() {
        int count = rowCount();
        List<Map<String, Object>> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", (long) i);
            row.put("name", "customer-" + i);
            row.put("email", "c" + i + "@example.com");
            row.put("city", "City " + (i % 97));
            row.put("country", i % 2 == 0 ? "DE" : "FR");
            row.put("orders", (long) (i % 50));
            row.put("balance", i * 3.25);
            row.put("active", i % 3 != 0);
            row.put("note", i % 5 == 0 ? null : "note " + i);
            row.put("created", "2026-12-0" + (1 + i % 9) + "T10:00:00Z");
            rows.add(row);
        }
        return rows;
    }

    /** {@link #byteCount} deterministic bytes. */
    public static byte[] bytes() {
        byte[] b = new byte[byteCount()];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 31 + (i >>> 8));
        }
        return b;
    }

    /**
     * The body as a script for engines without Sandjar's function-body wrapper: an IIFE whose
     * result is returned as JSON text (the host parses it where it needs the value).
     */
    static String asJsonScript(String body) {
        return "JSON.stringify((function () {\n" + body + "\n})())";
    }
}
