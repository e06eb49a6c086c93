package dev.sandjar.packs;

import static dev.sandjar.packs.WasmBytes.F32;
import static dev.sandjar.packs.WasmBytes.F64;
import static dev.sandjar.packs.WasmBytes.FUNC;
import static dev.sandjar.packs.WasmBytes.GLOBAL;
import static dev.sandjar.packs.WasmBytes.I32;
import static dev.sandjar.packs.WasmBytes.I64;
import static dev.sandjar.packs.WasmBytes.MEMORY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The section-level contract for pack WebAssembly, as a table of binaries and their verdicts. */
class WasmCheckTest {
    static PackManifest.WasmEntry spec(int pages, String... exports) {
        return new PackManifest.WasmEntry(
                "m",
                "",
                "m.wasm",
                pages,
                java.util.Arrays.stream(exports)
                        .map(e -> new PackManifest.WasmExport(e, e))
                        .toList());
    }

    record Case(String name, Supplier<byte[]> wasm, PackManifest.WasmEntry spec, String code) {}

    static byte[] withMemory(Integer max, boolean shared) {
        WasmBytes w = new WasmBytes();
        int t = w.type(new int[] {}, new int[] {I32});
        int f = w.function(t, 0x41, 7, 0x0b);
        return w.memory(1, max, shared).export("f", FUNC, f).build();
    }

    static byte[] signature(int[] params, int[] results, int... body) {
        WasmBytes w = new WasmBytes();
        int t = w.type(params, results);
        int f = w.function(t, body);
        return w.export("f", FUNC, f).build();
    }

    static final List<Case> CASES =
            List.of(
                    new Case("scalar add", () -> WasmBytes.add("add"), spec(0, "add"), null),
                    new Case(
                            "memory within both bounds",
                            () -> withMemory(2, false),
                            spec(2, "f"),
                            null),
                    new Case(
                            "an imported function",
                            () -> {
                                WasmBytes w = new WasmBytes();
                                int t = w.type(new int[] {}, new int[] {});
                                w.importFunction("env", "log", t);
                                int f = w.function(t, 0x0b);
                                return w.export("f", FUNC, f).build();
                            },
                            spec(0, "f"),
                            "wasm-import"),
                    new Case(
                            "an imported memory",
                            () -> {
                                WasmBytes w = new WasmBytes();
                                int t = w.type(new int[] {}, new int[] {});
                                w.importMemory("env", "memory", 1, 1);
                                int f = w.function(t, 0x0b);
                                return w.export("f", FUNC, f).build();
                            },
                            spec(1, "f"),
                            "wasm-import"),
                    new Case(
                            "i64 parameter",
                            () -> signature(new int[] {I64}, new int[] {}, 0x0b),
                            spec(0, "f"),
                            "wasm-signature"),
                    new Case(
                            "i64 result",
                            () -> signature(new int[] {}, new int[] {I64}, 0x42, 0, 0x0b),
                            spec(0, "f"),
                            "wasm-signature"),
                    new Case(
                            "two results",
                            () ->
                                    signature(
                                            new int[] {},
                                            new int[] {I32, I32},
                                            0x41,
                                            0,
                                            0x41,
                                            0,
                                            0x0b),
                            spec(0, "f"),
                            "wasm-signature"),
                    new Case(
                            "nine parameters",
                            () ->
                                    signature(
                                            new int[] {I32, I32, I32, I32, I32, I32, I32, I32, I32},
                                            new int[] {},
                                            0x0b),
                            spec(0, "f"),
                            "wasm-signature"),
                    new Case(
                            "eight f32/f64 parameters",
                            () ->
                                    signature(
                                            new int[] {F32, F64, F32, F64, I32, I32, I32, I32},
                                            new int[] {F64},
                                            0x20,
                                            1,
                                            0x0b),
                            spec(0, "f"),
                            null),
                    new Case(
                            "memory without a maximum",
                            () -> withMemory(null, false),
                            spec(16, "f"),
                            "wasm-memory-no-max"),
                    new Case(
                            "memory above memoryPagesMax",
                            () -> withMemory(17, false),
                            spec(16, "f"),
                            "wasm-memory-too-large"),
                    new Case(
                            "memory above the host ceiling",
                            () -> withMemory(4097, false),
                            spec(4096, "f"),
                            "wasm-memory-too-large"),
                    new Case(
                            "shared memory",
                            () -> withMemory(1, true),
                            spec(1, "f"),
                            "wasm-memory-shared"),
                    new Case(
                            "a start function",
                            () -> {
                                WasmBytes w = new WasmBytes();
                                int t = w.type(new int[] {}, new int[] {});
                                int f = w.function(t, 0x0b);
                                return w.export("f", FUNC, f).start(f).build();
                            },
                            spec(0, "f"),
                            "wasm-start"),
                    new Case(
                            "a declared export missing",
                            () -> WasmBytes.add("add"),
                            spec(0, "add", "sub"),
                            "wasm-export-missing"),
                    new Case(
                            "an undeclared export (the memory)",
                            () -> {
                                WasmBytes w = new WasmBytes();
                                int t = w.type(new int[] {}, new int[] {I32});
                                int f = w.function(t, 0x41, 7, 0x0b);
                                return w.memory(1, 1, false)
                                        .export("f", FUNC, f)
                                        .export("memory", MEMORY, 0)
                                        .build();
                            },
                            spec(1, "f"),
                            "wasm-export-extra"),
                    new Case(
                            "a declared export that is a global",
                            () -> {
                                WasmBytes w = new WasmBytes();
                                return w.mutableGlobal().export("g", GLOBAL, 0).build();
                            },
                            spec(0, "g"),
                            "wasm-export-not-function"),
                    new Case(
                            "a table without a maximum",
                            () -> {
                                WasmBytes w = new WasmBytes();
                                int t = w.type(new int[] {}, new int[] {});
                                int f = w.function(t, 0x0b);
                                return w.table(1, null).export("f", FUNC, f).build();
                            },
                            spec(0, "f"),
                            "wasm-table"),
                    new Case(
                            "not WebAssembly",
                            () -> "hello".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                            spec(0, "f"),
                            "wasm-malformed"),
                    new Case(
                            "a body that does not type-check",
                            () -> signature(new int[] {}, new int[] {I32}, 0x0b),
                            spec(0, "f"),
                            "wasm-malformed"));

    @Test
    void eachBinaryGetsItsVerdict() {
        List<String> failures = new ArrayList<>();
        for (Case c : CASES) {
            List<WasmCheck.Problem> problems = new ArrayList<>();
            WasmCheck.Checked checked = WasmCheck.check(c.wasm().get(), c.spec(), problems);
            if (c.code() == null) {
                if (checked == null || !problems.isEmpty()) {
                    failures.add(c.name() + ": expected to pass, got " + problems);
                }
            } else if (checked != null
                    || problems.stream().noneMatch(p -> p.code().equals(c.code()))) {
                failures.add(c.name() + ": expected " + c.code() + ", got " + problems);
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    @Test
    void aPassingModuleReportsItsSignatures() {
        List<WasmCheck.Problem> problems = new ArrayList<>();
        WasmCheck.Checked c = WasmCheck.check(WasmBytes.add("add"), spec(0, "add"), problems);
        assertNotNull(c);
        assertEquals("(i32, i32) -> i32", c.functions().get(0).signature());
        assertEquals(List.of(), problems);
    }

    @Test
    void problemsNameWhatIsWrong() {
        List<WasmCheck.Problem> problems = new ArrayList<>();
        assertNull(WasmCheck.check(withMemory(17, false), spec(16, "f"), problems));
        assertEquals(
                "memory 0 may grow to 17 pages; the limit is memoryPagesMax (16) and at most 4096",
                problems.get(0).message());
    }
}
