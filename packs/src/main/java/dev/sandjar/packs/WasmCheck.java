package dev.sandjar.packs;

import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.Export;
import com.dylibso.chicory.wasm.types.ExternalType;
import com.dylibso.chicory.wasm.types.FunctionType;
import com.dylibso.chicory.wasm.types.Import;
import com.dylibso.chicory.wasm.types.MemoryLimits;
import com.dylibso.chicory.wasm.types.MemorySection;
import com.dylibso.chicory.wasm.types.TableLimits;
import com.dylibso.chicory.wasm.types.ValType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The v1 contract for a pack's WebAssembly, checked on the parsed sections before anything compiles
 * or runs: a pure scalar function set. No imports of any kind (so no I/O, no host functions, no
 * imported memory), no start function, exactly the manifest's exports and each one a function,
 * {@code i32}/{@code f32}/{@code f64} signatures with at most {@value PackManifest#MAX_WASM_PARAMS}
 * parameters and at most one result, every memory with a declared maximum within both the
 * manifest's {@code memoryPagesMax} and the host ceiling, no shared memory, and bounded tables.
 * Chicory's parser also validates every function body.
 */
final class WasmCheck {
    /** Largest table a module may declare, in entries. */
    static final long MAX_TABLE_ENTRIES = 65_536;

    private static final Set<ValType> SCALARS = Set.of(ValType.I32, ValType.F32, ValType.F64);

    /** The scalar type of one parameter or result. */
    enum Scalar {
        I32,
        F32,
        F64;

        static Scalar of(ValType t) {
            if (t.equals(ValType.I32)) {
                return I32;
            }
            return t.equals(ValType.F32) ? F32 : F64;
        }

        String wat() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One checked export: its binary name, its JavaScript name and its signature. */
    record Function(String wasm, String as, List<Scalar> params, Scalar result) {
        Function {
            params = List.copyOf(params);
        }

        String signature() {
            StringBuilder s = new StringBuilder("(");
            for (int i = 0; i < params.size(); i++) {
                s.append(i == 0 ? "" : ", ").append(params.get(i).wat());
            }
            return s.append(") -> ").append(result == null ? "void" : result.wat()).toString();
        }
    }

    /**
     * A module that passed: parsed once, instantiated per call. {@code bytes} is the binary that
     * was checked, kept for delivery to a browser runner (never handed out without a copy).
     */
    record Checked(WasmModule module, List<Function> functions, byte[] bytes) {
        Checked {
            functions = List.copyOf(functions);
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Checked c
                    && module.equals(c.module)
                    && functions.equals(c.functions)
                    && java.util.Arrays.equals(bytes, c.bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(module, functions, java.util.Arrays.hashCode(bytes));
        }

        @Override
        public String toString() {
            return "Checked[" + functions + ", " + bytes.length + " bytes]";
        }
    }

    /** A refusal: a diagnostic code and what is wrong. */
    record Problem(String code, String message) {}

    private WasmCheck() {}

    /** The checked module, or null with {@code problems} filled. */
    static Checked check(byte[] bytes, PackManifest.WasmEntry spec, List<Problem> problems) {
        WasmModule module;
        try {
            module = Parser.parse(bytes);
        } catch (RuntimeException e) {
            problems.add(new Problem("wasm-malformed", "does not parse: " + e.getMessage()));
            return null;
        } catch (StackOverflowError e) {
            problems.add(new Problem("wasm-malformed", "is nested too deeply to parse"));
            return null;
        }
        int before = problems.size();
        var imports = module.importSection();
        for (int i = 0; i < imports.importCount(); i++) {
            Import imp = imports.getImport(i);
            problems.add(
                    new Problem(
                            "wasm-import",
                            "imports "
                                    + imp.importType().name().toLowerCase(java.util.Locale.ROOT)
                                    + " '"
                                    + imp.module()
                                    + "."
                                    + imp.name()
                                    + "'; pack WebAssembly may import nothing"));
        }
        if (module.startSection().isPresent()) {
            problems.add(
                    new Problem(
                            "wasm-start",
                            "has a start function (index "
                                    + module.startSection().get().startIndex()
                                    + "); instantiation must run no code"));
        }
        MemorySection memories = module.memorySection().orElse(null);
        int memoryCount = memories == null ? 0 : memories.memoryCount();
        for (int i = 0; i < memoryCount; i++) {
            MemoryLimits limits = memories.getMemory(i).limits();
            String which = "memory " + i;
            if (limits.shared()) {
                problems.add(new Problem("wasm-memory-shared", which + " is shared"));
            }
            if (limits.maximumPages() >= MemoryLimits.MAX_PAGES) {
                problems.add(
                        new Problem(
                                "wasm-memory-no-max",
                                which
                                        + " declares no maximum; every memory needs one of at most"
                                        + " memoryPagesMax ("
                                        + spec.memoryPagesMax()
                                        + ") pages"));
            } else if (limits.maximumPages() > spec.memoryPagesMax()
                    || limits.maximumPages() > PackManifest.MAX_MEMORY_PAGES) {
                problems.add(
                        new Problem(
                                "wasm-memory-too-large",
                                which
                                        + " may grow to "
                                        + limits.maximumPages()
                                        + " pages; the limit is memoryPagesMax ("
                                        + spec.memoryPagesMax()
                                        + ") and at most "
                                        + PackManifest.MAX_MEMORY_PAGES));
            }
        }
        for (int i = 0; i < module.tableSection().tableCount(); i++) {
            TableLimits limits = module.tableSection().getTable(i).limits();
            if (limits.max() > MAX_TABLE_ENTRIES) {
                problems.add(
                        new Problem(
                                "wasm-table",
                                "table "
                                        + i
                                        + " has no maximum of at most "
                                        + MAX_TABLE_ENTRIES
                                        + " entries"));
            }
        }
        List<Function> functions = exports(module, spec, problems);
        return problems.size() == before ? new Checked(module, functions, bytes) : null;
    }

    private static List<Function> exports(
            WasmModule module, PackManifest.WasmEntry spec, List<Problem> problems) {
        Map<String, Export> byName = new LinkedHashMap<>();
        var section = module.exportSection();
        for (int i = 0; i < section.exportCount(); i++) {
            Export e = section.getExport(i);
            byName.put(e.name(), e);
        }
        Set<String> declared = new java.util.HashSet<>();
        List<Function> functions = new ArrayList<>();
        int imported = module.importSection().count(ExternalType.FUNCTION);
        for (PackManifest.WasmExport d : spec.exports()) {
            declared.add(d.wasm());
            Export e = byName.get(d.wasm());
            if (e == null) {
                problems.add(
                        new Problem(
                                "wasm-export-missing",
                                "has no export '"
                                        + d.wasm()
                                        + "' (it exports: "
                                        + String.join(", ", byName.keySet())
                                        + ")"));
                continue;
            }
            if (e.exportType() != ExternalType.FUNCTION) {
                problems.add(
                        new Problem(
                                "wasm-export-not-function",
                                "export '"
                                        + d.wasm()
                                        + "' is a "
                                        + e.exportType().name().toLowerCase(java.util.Locale.ROOT)
                                        + ", not a function"));
                continue;
            }
            int local = e.index() - imported;
            if (local < 0) {
                continue; // an imported function, already refused
            }
            FunctionType type =
                    module.functionSection().getFunctionType(local, module.typeSection());
            String problem = signatureProblem(type);
            if (problem != null) {
                problems.add(
                        new Problem(
                                "wasm-signature",
                                "export '"
                                        + d.wasm()
                                        + "' has signature "
                                        + type
                                        + ": "
                                        + problem));
                continue;
            }
            functions.add(
                    new Function(
                            d.wasm(),
                            d.as(),
                            type.params().stream().map(Scalar::of).toList(),
                            type.returns().isEmpty() ? null : Scalar.of(type.returns().get(0))));
        }
        for (String name : byName.keySet()) {
            if (!declared.contains(name)) {
                problems.add(
                        new Problem(
                                "wasm-export-extra",
                                "exports '"
                                        + name
                                        + "', which the manifest does not declare; a pack's"
                                        + " WebAssembly exports exactly its declared functions"));
            }
        }
        return functions;
    }

    private static String signatureProblem(FunctionType type) {
        if (type.params().size() > PackManifest.MAX_WASM_PARAMS) {
            return type.params().size() + " parameters; at most " + PackManifest.MAX_WASM_PARAMS;
        }
        if (type.returns().size() > 1) {
            return type.returns().size() + " results; at most 1";
        }
        for (ValType t : type.params()) {
            if (!SCALARS.contains(t)) {
                return "parameter type " + t + " is not i32, f32 or f64";
            }
        }
        for (ValType t : type.returns()) {
            if (!SCALARS.contains(t)) {
                return "result type " + t + " is not i32, f32 or f64";
            }
        }
        return null;
    }
}
