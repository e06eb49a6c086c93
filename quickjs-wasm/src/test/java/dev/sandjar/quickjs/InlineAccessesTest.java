package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasm.Parser;
import dev.sandjar.outline.Outliner;
import dev.sandjar.quickjs.internal.AccessCalls;
import dev.sandjar.quickjs.internal.BlockMemory;
import dev.sandjar.quickjs.internal.RawAccess;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The outlining pass's accesses written in place ({@code outline}'s {@code InlineAccesses}) load
 * and store exactly what the generated engine's own helper calls do, on the real memory and the
 * real helpers: every width at every offset near each block's ends, split between base and offset
 * in several ways, on clean and dirty blocks, across blocks and past the memory's end (the same
 * trap and message). With {@code Unsafe} (the default run on JDK 17-23) the written-in fast path is
 * the only bounds check between a guest address and the JVM's heap; the class runs a second time
 * with {@code sandjar.memory.access=varhandle}, where every access takes the helper call.
 */
class InlineAccessesTest {
    private static final String[] READS = {
        "readByte", "readShort", "readInt", "readLong", "readFloat", "readDouble"
    };
    private static final String[] WRITES = {
        "writeByte", "writeShort", "writeInt", "writeLong", "writeFloat", "writeDouble"
    };
    private static final int[] WIDTHS = {1, 2, 4, 8, 4, 8};
    private static final int PAGE = 65536;

    private static byte[] original() throws IOException {
        try (InputStream in = AccessCalls.class.getResourceAsStream("AccessCalls.class")) {
            return in.readAllBytes();
        }
    }

    /**
     * The rewritten bytes, renamed and defined beside {@link AccessCalls} (the helpers' class is
     * package-private, so the copy must be in the same runtime package).
     */
    private static Class<?> inPlace;

    private static String report;

    /** The rewritten class, defined once for the JVM (a package holds one class of a name). */
    private static synchronized Class<?> inPlace() throws IOException, IllegalAccessException {
        if (inPlace == null) {
            StringBuilder r = new StringBuilder();
            inPlace = define(Outliner.inlineAccesses(original(), r));
            report = r.toString();
        }
        return inPlace;
    }

    private static Class<?> define(byte[] bytes) throws IllegalAccessException {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, 0);
        cn.name = cn.name + "InPlace";
        ClassWriter cw = new ClassWriter(0);
        cn.accept(cw);
        return AccessCalls.lookup().defineClass(cw.toByteArray());
    }

    private static Method method(Class<?> c, String name) {
        return Arrays.stream(c.getDeclaredMethods())
                .filter(m -> m.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    /**
     * The method's result (a float or double by its bits: a NaN's payload must survive too), or its
     * exception's class and message. {@link InlineOpcodesTest} compares by it as well.
     */
    static Object outcome(Method m, Object... args) throws IllegalAccessException {
        m.setAccessible(true);
        try {
            Object r = m.invoke(null, args);
            // Floats and doubles compare by their bits: a NaN's payload must survive too.
            if (r instanceof Float f) {
                return Float.floatToRawIntBits(f);
            }
            if (r instanceof Double d) {
                return Double.doubleToRawLongBits(d);
            }
            return r;
        } catch (InvocationTargetException e) {
            return e.getCause().getClass().getName() + ": " + e.getCause().getMessage();
        }
    }

    private static Object value(int kind, long bits) {
        switch (kind) {
            case 0:
                return (byte) bits;
            case 1:
                return (short) bits;
            case 2:
                return (int) bits;
            case 3:
                return bits;
            case 4:
                return Float.intBitsToFloat((int) bits);
            default:
                return Double.longBitsToDouble(bits);
        }
    }

    @Test
    void everyAccessWrittenInPlaceMatchesTheHelperCall() throws Exception {
        Class<?> fast = inPlace();
        assertTrue(report.contains("memory accesses: 12 written in place in 14 methods;"), report);
        assertEquals(
                14,
                unsafeCalls(Outliner.inlineAccesses(original(), new StringBuilder())),
                "each access method has its Unsafe access, and each use of global 0");

        int pages = 2;
        int size = pages * PAGE;
        TrackedMemory expected = new TrackedMemory(pages, pages);
        TrackedMemory actual = new TrackedMemory(pages, pages);
        Random random = new Random(11);
        // Some data in every other block, the rest never written (it reads as the shared zeros).
        for (int b = 0; b < size / TrackedMemory.BLOCK_SIZE; b += 2) {
            byte[] data = new byte[TrackedMemory.BLOCK_SIZE];
            random.nextBytes(data);
            expected.write(b * TrackedMemory.BLOCK_SIZE, data, 0, data.length);
            actual.write(b * TrackedMemory.BLOCK_SIZE, data, 0, data.length);
        }
        expected.clean();
        actual.clean();

        List<int[]> splits = new ArrayList<>();
        int checked = 0;
        for (int edge = 0; edge <= size; edge += TrackedMemory.BLOCK_SIZE) {
            for (int at = edge - 12; at < edge + 12; at++) {
                splits.clear();
                splits.add(new int[] {at, 0});
                splits.add(new int[] {at - 8, 8});
                splits.add(new int[] {at - 4096, 4096});
                for (int[] split : splits) {
                    for (int kind = 0; kind < READS.length; kind++) {
                        if (random.nextInt(5) == 0) {
                            expected.clean();
                            actual.clean();
                        }
                        Object v = value(kind, random.nextLong());
                        Object want =
                                outcome(
                                        method(AccessCalls.class, WRITES[kind]),
                                        split[0],
                                        v,
                                        split[1],
                                        expected);
                        Object got =
                                outcome(method(fast, WRITES[kind]), split[0], v, split[1], actual);
                        String where =
                                WRITES[kind] + " at base " + split[0] + " offset " + split[1];
                        assertEquals(want, got, where);
                        assertEquals(expected.dirtyBlocks(), actual.dirtyBlocks(), where);
                        for (int r = 0; r < READS.length; r++) {
                            assertEquals(
                                    outcome(
                                            method(AccessCalls.class, READS[r]),
                                            split[0],
                                            split[1],
                                            expected),
                                    outcome(method(fast, READS[r]), split[0], split[1], actual),
                                    READS[r] + " after " + where);
                        }
                        checked++;
                    }
                }
            }
        }
        assertArrayEquals(expected.readBytes(0, size), actual.readBytes(0, size));
        assertEquals(33 * 24 * 3 * 6, checked);

        // Bases the helper passes on as the address (negative) and sums that overflow.
        for (int base : new int[] {-1, -8, Integer.MIN_VALUE, Integer.MAX_VALUE - 3, size - 2}) {
            for (int offset : new int[] {0, 3, 8, 4096, Integer.MAX_VALUE}) {
                for (int kind = 0; kind < READS.length; kind++) {
                    String where = " base " + base + " offset " + offset;
                    assertEquals(
                            outcome(method(AccessCalls.class, READS[kind]), base, offset, expected),
                            outcome(method(fast, READS[kind]), base, offset, actual),
                            READS[kind] + where);
                    Object v = value(kind, WIDTHS[kind]);
                    assertEquals(
                            outcome(
                                    method(AccessCalls.class, WRITES[kind]),
                                    base,
                                    v,
                                    offset,
                                    expected),
                            outcome(method(fast, WRITES[kind]), base, v, offset, actual),
                            WRITES[kind] + where);
                }
            }
        }
        assertArrayEquals(expected.readBytes(0, size), actual.readBytes(0, size));
    }

    /**
     * A tiny module with one mutable i32 global, initialised to 5: global 0, as the engine's
     * shadow-stack pointer is.
     */
    private static final byte[] ONE_GLOBAL = {
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x06, 0x06, 0x01, 0x7f, 0x01, 0x41, 0x05,
        0x0b
    };

    @Test
    void globalZeroThroughTheMemorysFieldIsTheInstancesGlobal() throws Exception {
        Class<?> fast = inPlace();
        assertTrue(report.contains("global 0: 2 reads and writes"), report);
        Instance instance = Instance.builder(Parser.parse(ONE_GLOBAL)).build();
        TrackedMemory memory = new TrackedMemory(1, 1);
        memory.initialize(instance, null);
        assertSame(instance.global(0), memory.global0, "initialize keeps the instance's global 0");
        // The value field is used where Unsafe is (the default run on JDK 17-23), else the calls.
        assertEquals(RawAccess.ENABLED, RawAccess.GLOBAL_FIELD);

        Method read = method(fast, "readGlobal0");
        Method write = method(fast, "writeGlobal0");
        Method readBefore = method(AccessCalls.class, "readGlobal0");
        Method writeBefore = method(AccessCalls.class, "writeGlobal0");
        assertEquals(5L, outcome(read, memory, instance));
        for (long v : new long[] {0, 1, -1, 5_342_832, 0xFFFF_FFFFL, Long.MIN_VALUE}) {
            outcome(write, v, memory, instance);
            assertEquals(v, outcome(readBefore, memory, instance), "the helper sees the write");
            assertEquals(v, instance.global(0).getValue());
            outcome(writeBefore, v + 1, memory, instance);
            assertEquals(v + 1, outcome(read, memory, instance), "the field sees the helper's");
        }
    }

    /**
     * The engine class as built: the outlined methods take the memory's shared scratch array
     * instead of allocating one per call, and none of them allocates one.
     */
    @Test
    void theOutlinedMethodsShareTheMemorysScratchArray() throws Exception {
        ClassNode cn = new ClassNode();
        try (InputStream in =
                AccessCalls.class.getResourceAsStream(
                        "QuickJsEngineModuleMachineFuncGroup_0.class")) {
            new ClassReader(in.readAllBytes()).accept(cn, 0);
        }
        List<String> shared = new ArrayList<>();
        for (MethodNode m : cn.methods) {
            AbstractInsnNode first = m.instructions.getFirst();
            AbstractInsnNode second = first == null ? null : first.getNext();
            assertTrue(
                    !(second instanceof org.objectweb.asm.tree.IntInsnNode n)
                            || n.getOpcode() != org.objectweb.asm.Opcodes.NEWARRAY,
                    m.name + " still allocates its scratch array");
            for (AbstractInsnNode i = first; i != null; i = i.getNext()) {
                if (i instanceof org.objectweb.asm.tree.FieldInsnNode f
                        && f.name.equals("scratch")) {
                    shared.add(m.name);
                }
            }
        }
        List<String> outlined = List.of("func_162", "func_251", "func_684");
        if (Integer.getInteger("outline.maxMethodBytes", 0) > 0) {
            // the size step's new methods, and the methods it split, take it too
            assertTrue(shared.containsAll(outlined), shared.toString());
        } else {
            assertEquals(outlined, shared.stream().sorted().toList());
        }
        // The pass shares the array only with methods needing at most its length; both modules
        // must mean the same length, or a piece would write past the memory's array.
        assertEquals(Outliner.SCRATCH_SLOTS, BlockMemory.SCRATCH_SLOTS, "the contract");
        assertEquals(
                BlockMemory.SCRATCH_SLOTS, new TrackedMemory(1, 1).scratch.length, "the contract");
    }

    private static int unsafeCalls(byte[] bytes) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, 0);
        int n = 0;
        for (MethodNode m : cn.methods) {
            for (AbstractInsnNode i : m.instructions) {
                n +=
                        i instanceof MethodInsnNode c && Objects.equals(c.owner, "sun/misc/Unsafe")
                                ? 1
                                : 0;
            }
        }
        return n;
    }
}
