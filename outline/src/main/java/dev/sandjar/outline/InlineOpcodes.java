package dev.sandjar.outline;

import java.util.Map;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Replaces calls to Chicory's one-line opcode helpers ({@code OpcodeImpl.I32_EQZ(x)}, the integer
 * comparisons, the extensions and bit reinterpretations, {@code Value.longToDouble}) with their
 * bodies, written into the calling method; a comparison whose result is only branched on becomes
 * the branch itself ({@code I32_LT_S(a, b); ifne L} is {@code if_icmplt L}).
 *
 * <p>Why: C2 inlines nothing into a method that is already over 8,000 bytes of bytecode (its {@code
 * DesiredMethodLimit}; the interpreter loop is 14.5 KB after outlining, the regex interpreter 16
 * KB, {@code malloc} 39 KB), not even a three-instruction helper, so in those methods each of these
 * is a real call that spills the caller's registers. A profile with {@code perf}
 * (docs/performance.md) showed them as separate compiled methods under fib.
 *
 * <p>The unsigned comparisons are written without an unsigned or sign-flipped comparison, for the
 * reason {@link UnsignedCompares} gives: 32-bit ones as that class's long arithmetic, 64-bit ones
 * as the sign bit of Hacker's Delight's {@code (~x & y) | (~(x ^ y) & (x - y))} (x below y,
 * unsigned). Helpers with more than one line of logic (division and its traps, float rounding,
 * saturating truncation) stay calls.
 */
final class InlineOpcodes implements Opcodes {
    static final String OPCODES = "com/dylibso/chicory/runtime/OpcodeImpl";
    static final String VALUE = "com/dylibso/chicory/wasm/types/Value";

    /** How a helper is written: a comparison by its jump, or a fixed replacement. */
    private enum Shape {
        /** Two ints; {@code jump} is the if_icmp opcode taken when the result is 1. */
        INT2,
        /** One int; {@code jump} is the if opcode. */
        INT1,
        /** Two longs: lcmp, then the if opcode {@code jump}. */
        LONG2,
        /** One long against 0: lconst_0, lcmp, then {@code jump}. */
        LONG1,
        /** Two ints, unsigned: 0 or 1 computed branch-free. */
        UINT,
        /** Two longs, unsigned: 0 or 1 computed branch-free. */
        ULONG,
        /** A straight replacement of the call. */
        PLAIN
    }

    /**
     * A helper: its shape, the jump (compares), and for unsigned compares whether the operands swap
     * and the result flips. For {@code PLAIN}, {@code insns} are the replacement.
     */
    private record Helper(
            String desc,
            Shape shape,
            int jump,
            boolean swap,
            boolean flip,
            AbstractInsnNode[] insns) {}

    private static Helper cmp(String desc, Shape shape, int jump) {
        return new Helper(desc, shape, jump, false, false, null);
    }

    private static Helper unsigned(String desc, Shape shape, boolean swap, boolean flip) {
        return new Helper(desc, shape, 0, swap, flip, null);
    }

    private static Helper plain(String desc, AbstractInsnNode... insns) {
        return new Helper(desc, Shape.PLAIN, 0, false, false, insns);
    }

    private static MethodInsnNode jdk(String owner, String name, String desc) {
        return new MethodInsnNode(INVOKESTATIC, owner, name, desc, false);
    }

    private static final String II = "(II)I";
    private static final String JJ = "(JJ)I";

    /**
     * The helpers of {@code OpcodeImpl}. x {@code <u} y is ULONG's base; the others follow: {@code
     * x >=u y} is its flip, {@code x >u y} is {@code y <u x}, {@code x <=u y} that flipped. For
     * UINT the base is {@code x >=u y} ({@link UnsignedCompares}).
     */
    private static final Map<String, Helper> OPCODE_HELPERS =
            Map.ofEntries(
                    Map.entry("I32_EQZ", cmp("(I)I", Shape.INT1, IFEQ)),
                    Map.entry("I32_EQ", cmp(II, Shape.INT2, IF_ICMPEQ)),
                    Map.entry("I32_NE", cmp(II, Shape.INT2, IF_ICMPNE)),
                    Map.entry("I32_LT_S", cmp(II, Shape.INT2, IF_ICMPLT)),
                    Map.entry("I32_LE_S", cmp(II, Shape.INT2, IF_ICMPLE)),
                    Map.entry("I32_GT_S", cmp(II, Shape.INT2, IF_ICMPGT)),
                    Map.entry("I32_GE_S", cmp(II, Shape.INT2, IF_ICMPGE)),
                    Map.entry("I32_GE_U", unsigned(II, Shape.UINT, false, false)),
                    Map.entry("I32_LT_U", unsigned(II, Shape.UINT, false, true)),
                    Map.entry("I32_LE_U", unsigned(II, Shape.UINT, true, false)),
                    Map.entry("I32_GT_U", unsigned(II, Shape.UINT, true, true)),
                    Map.entry("I64_EQZ", cmp("(J)I", Shape.LONG1, IFEQ)),
                    Map.entry("I64_EQ", cmp(JJ, Shape.LONG2, IFEQ)),
                    Map.entry("I64_NE", cmp(JJ, Shape.LONG2, IFNE)),
                    Map.entry("I64_LT_S", cmp(JJ, Shape.LONG2, IFLT)),
                    Map.entry("I64_LE_S", cmp(JJ, Shape.LONG2, IFLE)),
                    Map.entry("I64_GT_S", cmp(JJ, Shape.LONG2, IFGT)),
                    Map.entry("I64_GE_S", cmp(JJ, Shape.LONG2, IFGE)),
                    Map.entry("I64_LT_U", unsigned(JJ, Shape.ULONG, false, false)),
                    Map.entry("I64_GE_U", unsigned(JJ, Shape.ULONG, false, true)),
                    Map.entry("I64_GT_U", unsigned(JJ, Shape.ULONG, true, false)),
                    Map.entry("I64_LE_U", unsigned(JJ, Shape.ULONG, true, true)),
                    Map.entry(
                            "I64_EXTEND_I32_U",
                            plain(
                                    "(I)J",
                                    new InsnNode(I2L),
                                    new LdcInsnNode(0xFFFF_FFFFL),
                                    new InsnNode(LAND))),
                    Map.entry(
                            "I64_EXTEND_32_S", plain("(J)J", new InsnNode(L2I), new InsnNode(I2L))),
                    Map.entry("I32_EXTEND_8_S", plain("(I)I", new InsnNode(I2B))),
                    Map.entry("I32_EXTEND_16_S", plain("(I)I", new InsnNode(I2S))),
                    Map.entry("F64_CONVERT_I32_S", plain("(I)D", new InsnNode(I2D))),
                    Map.entry(
                            "I64_REINTERPRET_F64",
                            plain("(D)J", jdk("java/lang/Double", "doubleToRawLongBits", "(D)J"))),
                    Map.entry(
                            "F64_REINTERPRET_I64",
                            plain("(J)D", jdk("java/lang/Double", "longBitsToDouble", "(J)D"))),
                    Map.entry(
                            "I32_REINTERPRET_F32",
                            plain("(F)I", jdk("java/lang/Float", "floatToRawIntBits", "(F)I"))),
                    Map.entry(
                            "F32_REINTERPRET_I32",
                            plain("(I)F", jdk("java/lang/Float", "intBitsToFloat", "(I)F"))),
                    Map.entry(
                            "I32_CLZ",
                            plain(
                                    "(I)I",
                                    jdk("java/lang/Integer", "numberOfLeadingZeros", "(I)I"))),
                    Map.entry(
                            "I32_CTZ",
                            plain(
                                    "(I)I",
                                    jdk("java/lang/Integer", "numberOfTrailingZeros", "(I)I"))));

    /** The helpers of {@code Value} the generated code calls for f64 bits. */
    private static final Map<String, Helper> VALUE_HELPERS =
            Map.of(
                    "longToDouble",
                    plain("(J)D", jdk("java/lang/Double", "longBitsToDouble", "(J)D")),
                    "doubleToLong",
                    plain("(D)J", jdk("java/lang/Double", "doubleToRawLongBits", "(D)J")));

    private InlineOpcodes() {}

    /** The helper {@code call} is, or null. */
    private static Helper helper(MethodInsnNode call) {
        if (call.getOpcode() != INVOKESTATIC) {
            return null;
        }
        Map<String, Helper> table =
                call.owner.equals(OPCODES)
                        ? OPCODE_HELPERS
                        : call.owner.equals(VALUE) ? VALUE_HELPERS : null;
        Helper h = table == null ? null : table.get(call.name);
        return h != null && h.desc.equals(call.desc) ? h : null;
    }

    /**
     * Rewrites {@code m}'s helper calls; returns how many. Two long locals past the method's own
     * are taken when a 64-bit unsigned comparison needs them.
     */
    static int rewrite(MethodNode m) {
        int n = 0;
        int temps = -1;
        for (AbstractInsnNode i : m.instructions.toArray()) {
            if (!(i instanceof MethodInsnNode call)) {
                continue;
            }
            if (isInterruptionCheck(call)) {
                m.instructions.insert(call, interruptionCheck(call));
                m.instructions.remove(call);
                n++;
                continue;
            }
            Helper h = helper(call);
            if (h == null) {
                continue;
            }
            if (h.shape == Shape.ULONG && temps < 0) {
                temps = InlineAccesses.localsUsed(m);
                m.maxLocals = temps + 4;
            }
            AbstractInsnNode next = call.getNext();
            boolean branched =
                    next instanceof JumpInsnNode j
                            && (j.getOpcode() == IFEQ || j.getOpcode() == IFNE)
                            && h.jump != 0;
            InsnList o;
            if (branched) {
                JumpInsnNode j = (JumpInsnNode) next;
                // ifne: jump when the comparison holds; ifeq: when it does not.
                int op = j.getOpcode() == IFNE ? h.jump : negate(h.jump);
                o = compare(h);
                o.add(new JumpInsnNode(op, j.label));
                m.instructions.remove(j);
            } else {
                o = value(h, temps);
            }
            m.instructions.insert(call, o);
            m.instructions.remove(call);
            n++;
        }
        return n;
    }

    private static boolean isInterruptionCheck(MethodInsnNode call) {
        return call.getOpcode() == INVOKESTATIC
                && call.owner.endsWith("Shaded")
                && call.name.equals("checkInterruption")
                && call.desc.equals("()V");
    }

    /**
     * Chicory's {@code checkInterruption()} ({@code if (Thread.currentThread().isInterrupted())
     * throw ...}) as a volatile load of the thread's {@code interrupted} field through {@code
     * RawAccess}, with the call kept for when the field is set (it throws) or not known.
     */
    private static InsnList interruptionCheck(MethodInsnNode call) {
        InsnList o = new InsnList();
        LabelNode slow = new LabelNode();
        LabelNode done = new LabelNode();
        String raw = InlineAccesses.RAW_ACCESS;
        o.add(new FieldInsnNode(GETSTATIC, raw, "INTERRUPTED_FIELD", "Z"));
        o.add(new JumpInsnNode(IFEQ, slow));
        o.add(new FieldInsnNode(GETSTATIC, raw, "UNSAFE", "L" + InlineAccesses.UNSAFE + ";"));
        o.add(jdk("java/lang/Thread", "currentThread", "()Ljava/lang/Thread;"));
        o.add(new FieldInsnNode(GETSTATIC, raw, "THREAD_INTERRUPTED", "J"));
        o.add(
                new MethodInsnNode(
                        INVOKEVIRTUAL,
                        InlineAccesses.UNSAFE,
                        "getBooleanVolatile",
                        "(Ljava/lang/Object;J)Z",
                        false));
        o.add(new JumpInsnNode(IFEQ, done));
        o.add(slow);
        o.add(call.clone(Map.of()));
        o.add(done);
        return o;
    }

    /** For a signed or equality comparison: what comes before its jump (lcmp for longs). */
    private static InsnList compare(Helper h) {
        InsnList o = new InsnList();
        if (h.shape == Shape.LONG1) {
            o.add(new InsnNode(LCONST_0));
            o.add(new InsnNode(LCMP));
        } else if (h.shape == Shape.LONG2) {
            o.add(new InsnNode(LCMP));
        }
        return o;
    }

    /** The helper's result on the stack, as the call left it. */
    private static InsnList value(Helper h, int temps) {
        InsnList o = new InsnList();
        switch (h.shape) {
            case PLAIN -> {
                for (AbstractInsnNode i : h.insns) {
                    o.add(i.clone(Map.of()));
                }
            }
            case UINT -> {
                if (h.swap) {
                    o.add(new InsnNode(SWAP));
                }
                o.add(UnsignedCompares.inline());
                flip(o, h);
            }
            case ULONG -> {
                int x = temps;
                int y = temps + 2;
                // stack: a, b. x <u y with x = a, y = b, or swapped.
                o.add(new VarInsnNode(LSTORE, h.swap ? x : y));
                o.add(new VarInsnNode(LSTORE, h.swap ? y : x));
                o.add(new VarInsnNode(LLOAD, x));
                o.add(new LdcInsnNode(-1L));
                o.add(new InsnNode(LXOR));
                o.add(new VarInsnNode(LLOAD, y));
                o.add(new InsnNode(LAND));
                o.add(new VarInsnNode(LLOAD, x));
                o.add(new VarInsnNode(LLOAD, y));
                o.add(new InsnNode(LXOR));
                o.add(new LdcInsnNode(-1L));
                o.add(new InsnNode(LXOR));
                o.add(new VarInsnNode(LLOAD, x));
                o.add(new VarInsnNode(LLOAD, y));
                o.add(new InsnNode(LSUB));
                o.add(new InsnNode(LAND));
                o.add(new InsnNode(LOR));
                o.add(new IntInsnNode(BIPUSH, 63));
                o.add(new InsnNode(LUSHR));
                o.add(new InsnNode(L2I));
                flip(o, h);
            }
            default -> {
                // 1 when the comparison holds, else 0.
                LabelNode holds = new LabelNode();
                LabelNode done = new LabelNode();
                o.add(compare(h));
                o.add(new JumpInsnNode(h.jump, holds));
                o.add(new InsnNode(ICONST_0));
                o.add(new JumpInsnNode(GOTO, done));
                o.add(holds);
                o.add(new InsnNode(ICONST_1));
                o.add(done);
            }
        }
        return o;
    }

    private static void flip(InsnList o, Helper h) {
        if (h.flip) {
            o.add(new InsnNode(ICONST_1));
            o.add(new InsnNode(IXOR));
        }
    }

    /** The jump taken exactly when {@code op}'s is not. */
    private static int negate(int op) {
        return switch (op) {
            case IFEQ -> IFNE;
            case IFNE -> IFEQ;
            case IFLT -> IFGE;
            case IFGE -> IFLT;
            case IFGT -> IFLE;
            case IFLE -> IFGT;
            case IF_ICMPEQ -> IF_ICMPNE;
            case IF_ICMPNE -> IF_ICMPEQ;
            case IF_ICMPLT -> IF_ICMPGE;
            case IF_ICMPGE -> IF_ICMPLT;
            case IF_ICMPGT -> IF_ICMPLE;
            case IF_ICMPLE -> IF_ICMPGT;
            default -> throw new IllegalArgumentException("not a conditional jump: " + op);
        };
    }
}
