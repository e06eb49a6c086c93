package dev.sandjar.outline;

import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * Replaces every call to Chicory's {@code i32_ge_u(II)I} helper with the comparison itself, written
 * in long arithmetic.
 *
 * <p>Why: on JDK 17 and older, Chicory 1.7.5 routes {@code i32.ge_u} through a deliberately
 * megamorphic interface call ({@code MemCopyWorkaround}), because C2 on those JDKs miscompiled
 * {@code Integer.compareUnsigned} in some large wasm functions (Chicory issues #755 and #843). The
 * call cannot be inlined, so every unsigned {@code >=} in the guest costs a static call, a field
 * load and an itable dispatch: 9% of the engine thread's samples in a JFR profile of the bench's
 * compute workloads (docs/performance.md). The replacement never uses an unsigned or sign-flipped
 * comparison, the shape C2 folds into the unsigned compare node the bug is in: both operands are
 * widened to longs in [0, 2^32), and {@code a >= b} is bit 63 of {@code b - a - 1}, flipped. It is
 * branch-free, so it adds no blocks, and the same on every JDK.
 */
final class UnsignedCompares implements Opcodes {
    /** The helper's name and descriptor in the classes Chicory generates. */
    static final String NAME = "i32_ge_u";

    static final String DESC = "(II)I";

    private UnsignedCompares() {}

    /**
     * Rewrites every call in {@code cn}'s methods; returns how many it replaced. The class must be
     * written with {@code COMPUTE_MAXS}: the widened operands need two more stack words.
     */
    static int rewrite(ClassNode cn) {
        int replaced = 0;
        for (MethodNode m : cn.methods) {
            for (AbstractInsnNode i : m.instructions.toArray()) {
                if (i instanceof MethodInsnNode call
                        && call.getOpcode() == INVOKESTATIC
                        && call.name.equals(NAME)
                        && call.desc.equals(DESC)) {
                    m.instructions.insert(call, inline());
                    m.instructions.remove(call);
                    replaced++;
                }
            }
        }
        return replaced;
    }

    /** Stack: a, b (ints) -> a >= b unsigned, as 1 or 0. */
    static InsnList inline() {
        InsnList o = new InsnList();
        for (AbstractInsnNode i :
                List.of(
                        // b as an unsigned long
                        new InsnNode(I2L),
                        new LdcInsnNode(0xFFFF_FFFFL),
                        new InsnNode(LAND),
                        // under a: b_l, a
                        new InsnNode(DUP2_X1),
                        new InsnNode(POP2),
                        // a as an unsigned long: b_l, a_l
                        new InsnNode(I2L),
                        new LdcInsnNode(0xFFFF_FFFFL),
                        new InsnNode(LAND),
                        // b - a - 1 < 0 exactly when a >= b; both are in [0, 2^32)
                        new InsnNode(LSUB),
                        new InsnNode(LCONST_1),
                        new InsnNode(LSUB),
                        new IntInsnNode(BIPUSH, 63),
                        new InsnNode(LUSHR),
                        new InsnNode(L2I))) {
            o.add(i);
        }
        return o;
    }
}
