package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.dylibso.chicory.runtime.ChicoryInterruptedException;
import dev.sandjar.outline.Outliner;
import dev.sandjar.quickjs.internal.AccessCalls;
import dev.sandjar.quickjs.internal.RawAccess;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The outlining pass's opcode helpers written in place ({@code outline}'s {@code InlineOpcodes})
 * compute exactly what Chicory's {@code OpcodeImpl} and {@code Value} helpers do, in the three
 * shapes the generated code uses them: the result as a value, branched on with {@code ifne}, and
 * with {@code ifeq}; on every pair of edge values of each type and random ones. The interruption
 * check written in place throws exactly when the thread is interrupted, through Chicory's own
 * check. A class is generated with those calls, rewritten by the pass's public entry, and both run
 * side by side.
 */
class InlineOpcodesTest implements Opcodes {
    private static final String OPCODES = "com/dylibso/chicory/runtime/OpcodeImpl";
    private static final String VALUE = "com/dylibso/chicory/wasm/types/Value";
    private static final String SHADED =
            "dev/sandjar/quickjs/internal/QuickJsEngineModuleMachineShaded";

    /** Every helper the pass writes in place, with its owner and descriptor. */
    private static final String[][] HELPERS = {
        {OPCODES, "I32_EQZ", "(I)I"},
        {OPCODES, "I32_EQ", "(II)I"},
        {OPCODES, "I32_NE", "(II)I"},
        {OPCODES, "I32_LT_S", "(II)I"},
        {OPCODES, "I32_LE_S", "(II)I"},
        {OPCODES, "I32_GT_S", "(II)I"},
        {OPCODES, "I32_GE_S", "(II)I"},
        {OPCODES, "I32_LT_U", "(II)I"},
        {OPCODES, "I32_LE_U", "(II)I"},
        {OPCODES, "I32_GT_U", "(II)I"},
        {OPCODES, "I32_GE_U", "(II)I"},
        {OPCODES, "I64_EQZ", "(J)I"},
        {OPCODES, "I64_EQ", "(JJ)I"},
        {OPCODES, "I64_NE", "(JJ)I"},
        {OPCODES, "I64_LT_S", "(JJ)I"},
        {OPCODES, "I64_LE_S", "(JJ)I"},
        {OPCODES, "I64_GT_S", "(JJ)I"},
        {OPCODES, "I64_GE_S", "(JJ)I"},
        {OPCODES, "I64_LT_U", "(JJ)I"},
        {OPCODES, "I64_LE_U", "(JJ)I"},
        {OPCODES, "I64_GT_U", "(JJ)I"},
        {OPCODES, "I64_GE_U", "(JJ)I"},
        {OPCODES, "I64_EXTEND_I32_U", "(I)J"},
        {OPCODES, "I64_EXTEND_32_S", "(J)J"},
        {OPCODES, "I32_EXTEND_8_S", "(I)I"},
        {OPCODES, "I32_EXTEND_16_S", "(I)I"},
        {OPCODES, "F64_CONVERT_I32_S", "(I)D"},
        {OPCODES, "I64_REINTERPRET_F64", "(D)J"},
        {OPCODES, "F64_REINTERPRET_I64", "(J)D"},
        {OPCODES, "I32_REINTERPRET_F32", "(F)I"},
        {OPCODES, "F32_REINTERPRET_I32", "(I)F"},
        {OPCODES, "I32_CLZ", "(I)I"},
        {OPCODES, "I32_CTZ", "(I)I"},
        {VALUE, "longToDouble", "(J)D"},
        {VALUE, "doubleToLong", "(D)J"},
    };

    private static final int[] INTS = {
        0,
        1,
        -1,
        2,
        -2,
        7,
        0x7f,
        0x80,
        0xff,
        0x100,
        0x7fff,
        0x8000,
        0xffff,
        0x10000,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE - 1,
        Integer.MIN_VALUE + 1,
        0x8000_0001,
        0xffff_fffe
    };

    private static final long[] LONGS = {
        0,
        1,
        -1,
        2,
        -2,
        0xffff_ffffL,
        0x1_0000_0000L,
        0x7fff_ffffL,
        0x8000_0000L,
        Long.MAX_VALUE,
        Long.MIN_VALUE,
        Long.MAX_VALUE - 1,
        Long.MIN_VALUE + 1,
        0x8000_0000_0000_0001L,
        0xffff_ffff_0000_0000L,
        0x0000_0001_ffff_ffffL,
        Double.doubleToRawLongBits(Double.NaN),
        0x7ff0_0000_0000_0001L,
        0xfff8_0000_dead_beefL
    };

    private static final double[] DOUBLES = {
        0.0,
        -0.0,
        1.5,
        -1.5,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        Double.MAX_VALUE,
        Double.longBitsToDouble(0x7ff0_0000_0000_0001L),
        Double.longBitsToDouble(0xfff8_0000_dead_beefL)
    };

    private static final float[] FLOATS = {
        0f,
        -0f,
        1.5f,
        Float.NaN,
        Float.POSITIVE_INFINITY,
        Float.MIN_VALUE,
        Float.intBitsToFloat(0x7f80_0001),
        Float.intBitsToFloat(0xffc0_dead)
    };

    private static String internalName(String simple) {
        return "dev/sandjar/quickjs/internal/" + simple;
    }

    /**
     * A class with, per helper, {@code v_NAME} (the result stored in a local and returned), and for
     * comparisons {@code ne_NAME} and {@code eq_NAME} (7 or 11 from a branch on the result with
     * ifne or ifeq), plus {@code check()}, the interruption check, and {@code mixed}, where two
     * 64-bit unsigned comparisons share the method's temporaries with locals of its own.
     */
    private static byte[] calls(String name) {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        cw.visit(V17, ACC_PUBLIC | ACC_FINAL, name, null, "java/lang/Object", null);
        for (String[] h : HELPERS) {
            Type t = Type.getMethodType(h[2]);
            value(cw, h, t);
            if (isComparison(h)) {
                branch(cw, "ne_", IFNE, h, t);
                branch(cw, "eq_", IFEQ, h, t);
            }
        }
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "check", "()V", null, null);
        mv.visitCode();
        mv.visitMethodInsn(INVOKESTATIC, SHADED, "checkInterruption", "()V", false);
        mv.visitInsn(RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        // mixed(a, b, c): (a <u b) * 4 + (b >=u c) * 2 + (c >u a), with a local of its own live
        // across both.
        mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "mixed", "(JJJ)I", null, null);
        mv.visitCode();
        mv.visitLdcInsn(5L);
        mv.visitVarInsn(LSTORE, 6);
        mv.visitVarInsn(LLOAD, 0);
        mv.visitVarInsn(LLOAD, 2);
        mv.visitMethodInsn(INVOKESTATIC, OPCODES, "I64_LT_U", "(JJ)I", false);
        mv.visitInsn(ICONST_4);
        mv.visitInsn(IMUL);
        mv.visitVarInsn(LLOAD, 2);
        mv.visitVarInsn(LLOAD, 4);
        mv.visitMethodInsn(INVOKESTATIC, OPCODES, "I64_GE_U", "(JJ)I", false);
        mv.visitInsn(ICONST_2);
        mv.visitInsn(IMUL);
        mv.visitInsn(IADD);
        mv.visitVarInsn(LLOAD, 4);
        mv.visitVarInsn(LLOAD, 0);
        mv.visitMethodInsn(INVOKESTATIC, OPCODES, "I64_GT_U", "(JJ)I", false);
        mv.visitInsn(IADD);
        mv.visitVarInsn(LLOAD, 6);
        mv.visitInsn(L2I);
        mv.visitInsn(IADD);
        mv.visitInsn(IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** Whether helper {@code h} is a comparison: an int result, 1 when it holds. */
    private static boolean isComparison(String[] h) {
        return h[2].endsWith(")I") && h[1].matches(".*(EQ|NE|LT|LE|GT|GE).*");
    }

    private static void loadArgs(MethodVisitor mv, Type t) {
        int slot = 0;
        for (Type a : t.getArgumentTypes()) {
            mv.visitVarInsn(a.getOpcode(ILOAD), slot);
            slot += a.getSize();
        }
    }

    private static int argSize(Type t) {
        return (t.getArgumentsAndReturnSizes() >> 2) - 1;
    }

    private static void value(ClassWriter cw, String[] h, Type t) {
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "v_" + h[1], h[2], null, null);
        mv.visitCode();
        loadArgs(mv, t);
        mv.visitMethodInsn(INVOKESTATIC, h[0], h[1], h[2], false);
        Type r = t.getReturnType();
        int slot = argSize(t);
        mv.visitVarInsn(r.getOpcode(ISTORE), slot);
        mv.visitVarInsn(r.getOpcode(ILOAD), slot);
        mv.visitInsn(r.getOpcode(IRETURN));
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    private static void branch(ClassWriter cw, String prefix, int jump, String[] h, Type t) {
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, prefix + h[1], h[2], null, null);
        mv.visitCode();
        loadArgs(mv, t);
        mv.visitMethodInsn(INVOKESTATIC, h[0], h[1], h[2], false);
        Label taken = new Label();
        mv.visitJumpInsn(jump, taken);
        mv.visitIntInsn(BIPUSH, 7);
        mv.visitInsn(IRETURN);
        mv.visitLabel(taken);
        mv.visitIntInsn(BIPUSH, 11);
        mv.visitInsn(IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    private static Class<?> define(byte[] bytes) throws IllegalAccessException {
        return AccessCalls.lookup().defineClass(bytes);
    }

    private static int helperCalls(byte[] bytes) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, 0);
        int n = 0;
        for (MethodNode m : cn.methods) {
            for (AbstractInsnNode i : m.instructions) {
                if (i instanceof MethodInsnNode c
                        && (c.owner.equals(OPCODES) || c.owner.equals(VALUE))) {
                    n++;
                }
            }
        }
        return n;
    }

    /** The argument lists to try for a descriptor: every pair of edge values, then random ones. */
    private static List<Object[]> arguments(Type t, SplittableRandom random) {
        Type[] args = t.getArgumentTypes();
        List<Object[]> out = new ArrayList<>();
        List<Object> edges = edges(args[0]);
        if (args.length == 1) {
            for (Object a : edges) {
                out.add(new Object[] {a});
            }
            for (int i = 0; i < 2000; i++) {
                out.add(new Object[] {randomValue(args[0], random)});
            }
            return out;
        }
        for (Object a : edges) {
            for (Object b : edges(args[1])) {
                out.add(new Object[] {a, b});
            }
        }
        for (int i = 0; i < 2000; i++) {
            Object a = randomValue(args[0], random);
            // Equal operands and neighbours too, where the comparisons turn.
            Object b =
                    switch (i % 3) {
                        case 0 -> a;
                        case 1 ->
                                args[1].getSort() == Type.INT
                                        ? (Object) ((Integer) a + 1)
                                        : (Object) ((Long) a + 1);
                        default -> randomValue(args[1], random);
                    };
            out.add(new Object[] {a, b});
        }
        return out;
    }

    private static List<Object> edges(Type t) {
        List<Object> out = new ArrayList<>();
        switch (t.getSort()) {
            case Type.INT -> {
                for (int v : INTS) {
                    out.add(v);
                }
            }
            case Type.LONG -> {
                for (long v : LONGS) {
                    out.add(v);
                }
            }
            case Type.DOUBLE -> {
                for (double v : DOUBLES) {
                    out.add(v);
                }
            }
            default -> {
                for (float v : FLOATS) {
                    out.add(v);
                }
            }
        }
        return out;
    }

    private static Object randomValue(Type t, SplittableRandom random) {
        return switch (t.getSort()) {
            case Type.INT -> random.nextInt();
            case Type.LONG -> random.nextLong();
            case Type.DOUBLE -> Double.longBitsToDouble(random.nextLong());
            default -> Float.intBitsToFloat(random.nextInt());
        };
    }

    private static Method method(Class<?> c, String name) {
        for (Method m : c.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        return null;
    }

    @Test
    void everyHelperWrittenInPlaceMatchesTheCall() throws Exception {
        byte[] original = calls(internalName("OpcodeCallsOriginal"));
        StringBuilder report = new StringBuilder();
        byte[] rewritten =
                Outliner.inlineAccesses(calls(internalName("OpcodeCallsInPlace")), report);
        // Each helper once as a value; each comparison twice more, branched on; three in mixed.
        int comparisons = 0;
        for (String[] h : HELPERS) {
            comparisons += isComparison(h) ? 1 : 0;
        }
        int sites = HELPERS.length + 2 * comparisons + 3;
        assertEquals(sites, helperCalls(original));
        assertEquals(0, helperCalls(rewritten), "a helper call is left");
        assertTrue(
                report.toString().contains("opcode helpers: " + (sites + 1) + " calls written"),
                report.toString());

        Class<?> want = define(original);
        Class<?> got = define(rewritten);
        SplittableRandom random = new SplittableRandom(18);
        int checked = 0;
        for (String[] h : HELPERS) {
            Type t = Type.getMethodType(h[2]);
            for (String prefix : new String[] {"v_", "ne_", "eq_"}) {
                Method w = method(want, prefix + h[1]);
                if (w == null) {
                    continue;
                }
                Method g = method(got, prefix + h[1]);
                for (Object[] args : arguments(t, random)) {
                    assertEquals(
                            InlineAccessesTest.outcome(w, args),
                            InlineAccessesTest.outcome(g, args),
                            () -> prefix + h[1] + java.util.Arrays.toString(args));
                    checked++;
                }
            }
        }
        assertTrue(checked > 100_000, "checked " + checked);

        Method wm = method(want, "mixed");
        Method gm = method(got, "mixed");
        for (long a : LONGS) {
            for (long b : LONGS) {
                for (long c : new long[] {0, -1, Long.MIN_VALUE, 0x8000_0000L, a}) {
                    assertEquals(
                            InlineAccessesTest.outcome(wm, a, b, c),
                            InlineAccessesTest.outcome(gm, a, b, c),
                            a + " " + b + " " + c);
                }
            }
        }
    }

    @Test
    void theInterruptionCheckWrittenInPlaceThrowsExactlyWhenTheThreadIsInterrupted()
            throws Exception {
        Method check =
                define(
                                Outliner.inlineAccesses(
                                        calls(internalName("OpcodeCallsCheck")),
                                        new StringBuilder()))
                        .getMethod("check");
        // The field is read where Unsafe is (the default run on JDK 17-23), else the call is made.
        assertEquals(RawAccess.ENABLED, RawAccess.INTERRUPTED_FIELD);
        for (int i = 0; i < 3; i++) {
            check.invoke(null);
            Thread.currentThread().interrupt();
            InvocationTargetException e =
                    assertThrows(InvocationTargetException.class, () -> check.invoke(null));
            assertEquals(ChicoryInterruptedException.class, e.getCause().getClass());
            // Chicory's check throws without clearing the flag, as the call did.
            assertTrue(Thread.interrupted(), "the interrupt is still pending");
        }
        check.invoke(null);
    }
}
