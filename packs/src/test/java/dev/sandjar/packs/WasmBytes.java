package dev.sandjar.packs;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Hand-assembles small WebAssembly modules for tests, so no binary fixture is committed. Sections
 * are emitted in the order the format requires; bodies are raw instruction bytes ending in {@code
 * 0x0b}.
 */
final class WasmBytes {
    static final int I32 = 0x7f;
    static final int I64 = 0x7e;
    static final int F32 = 0x7d;
    static final int F64 = 0x7c;

    static final int FUNC = 0;
    static final int TABLE = 1;
    static final int MEMORY = 2;
    static final int GLOBAL = 3;

    private final List<byte[]> types = new ArrayList<>();
    private final List<byte[]> imports = new ArrayList<>();
    private final List<Integer> functions = new ArrayList<>();
    private final List<byte[]> tables = new ArrayList<>();
    private final List<byte[]> memories = new ArrayList<>();
    private final List<byte[]> globals = new ArrayList<>();
    private final List<byte[]> exports = new ArrayList<>();
    private final List<byte[]> bodies = new ArrayList<>();
    private Integer start;
    private int functionImports;

    /** A function type; returns its index. */
    int type(int[] params, int[] results) {
        Buf b = new Buf().u8(0x60).u32(params.length);
        for (int p : params) {
            b.u8(p);
        }
        b.u32(results.length);
        for (int r : results) {
            b.u8(r);
        }
        types.add(b.bytes());
        return types.size() - 1;
    }

    WasmBytes importFunction(String module, String name, int type) {
        imports.add(new Buf().name(module).name(name).u8(FUNC).u32(type).bytes());
        functionImports++;
        return this;
    }

    WasmBytes importMemory(String module, String name, int min, int max) {
        imports.add(new Buf().name(module).name(name).u8(MEMORY).u8(1).u32(min).u32(max).bytes());
        return this;
    }

    /** A function of {@code type} with {@code body} (no locals); returns its index. */
    int function(int type, int... body) {
        functions.add(type);
        Buf code = new Buf().u32(0);
        for (int op : body) {
            code.u8(op);
        }
        byte[] c = code.bytes();
        bodies.add(new Buf().u32(c.length).raw(c).bytes());
        return functionImports + functions.size() - 1;
    }

    /** A memory; {@code max} null for none. */
    WasmBytes memory(int min, Integer max, boolean shared) {
        Buf b = new Buf();
        if (max == null) {
            b.u8(0).u32(min);
        } else {
            b.u8(shared ? 3 : 1).u32(min).u32(max);
        }
        memories.add(b.bytes());
        return this;
    }

    WasmBytes table(int min, Integer max) {
        Buf b = new Buf().u8(0x70);
        if (max == null) {
            b.u8(0).u32(min);
        } else {
            b.u8(1).u32(min).u32(max);
        }
        tables.add(b.bytes());
        return this;
    }

    /** A mutable i32 global starting at 0. */
    WasmBytes mutableGlobal() {
        globals.add(new Buf().u8(I32).u8(1).u8(0x41).u8(0).u8(0x0b).bytes());
        return this;
    }

    WasmBytes export(String name, int kind, int index) {
        exports.add(new Buf().name(name).u8(kind).u32(index).bytes());
        return this;
    }

    WasmBytes start(int function) {
        this.start = function;
        return this;
    }

    byte[] build() {
        Buf out = new Buf().raw(new byte[] {0, 'a', 's', 'm', 1, 0, 0, 0});
        section(out, 1, types);
        section(out, 2, imports);
        if (!functions.isEmpty()) {
            Buf f = new Buf().u32(functions.size());
            functions.forEach(f::u32);
            out.u8(3).u32(f.bytes().length).raw(f.bytes());
        }
        section(out, 4, tables);
        section(out, 5, memories);
        section(out, 6, globals);
        section(out, 7, exports);
        if (start != null) {
            byte[] s = new Buf().u32(start).bytes();
            out.u8(8).u32(s.length).raw(s);
        }
        section(out, 10, bodies);
        return out.bytes();
    }

    private static void section(Buf out, int id, List<byte[]> items) {
        if (items.isEmpty()) {
            return;
        }
        Buf s = new Buf().u32(items.size());
        items.forEach(s::raw);
        byte[] b = s.bytes();
        out.u8(id).u32(b.length).raw(b);
    }

    /** {@code (a, b) -> a + b} over i32, exported as {@code name}. */
    static byte[] add(String name) {
        WasmBytes w = new WasmBytes();
        int t = w.type(new int[] {I32, I32}, new int[] {I32});
        int f = w.function(t, 0x20, 0, 0x20, 1, 0x6a, 0x0b);
        return w.export(name, FUNC, f).build();
    }

    private static final class Buf {
        private final ByteArrayOutputStream b = new ByteArrayOutputStream();

        Buf u8(int v) {
            b.write(v);
            return this;
        }

        Buf u32(int v) {
            long x = v & 0xFFFFFFFFL;
            do {
                int byt = (int) (x & 0x7f);
                x >>>= 7;
                b.write(x != 0 ? byt | 0x80 : byt);
            } while (x != 0);
            return this;
        }

        Buf name(String s) {
            byte[] n = s.getBytes(StandardCharsets.UTF_8);
            return u32(n.length).raw(n);
        }

        Buf raw(byte[] bytes) {
            b.writeBytes(bytes);
            return this;
        }

        byte[] bytes() {
            return b.toByteArray();
        }
    }
}
