package dev.sandjar.outline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;

class UnsignedComparesTest {
    /** Chicory's helper's shape, and two callers: one returns the flag, one branches on it. */
    static final class Calls {
        private Calls() {}

        static int i32_ge_u(int a, int b) {
            return Integer.compareUnsigned(a, b) >= 0 ? 1 : 0;
        }

        static int flag(int a, int b) {
            return i32_ge_u(a, b);
        }

        static long branch(int a, int b, long x) {
            if (i32_ge_u(a + 1, b) != 0) {
                return x * 3 + i32_ge_u(b, a);
            }
            return x - 7;
        }
    }

    private static final String NAME = Calls.class.getName();

    private static int helperCalls(byte[] bytes) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, 0);
        int calls = 0;
        for (MethodNode m : cn.methods) {
            for (AbstractInsnNode i : m.instructions) {
                calls += i instanceof MethodInsnNode c && c.name.equals("i32_ge_u") ? 1 : 0;
            }
        }
        return calls;
    }

    @Test
    void theInlinedComparisonIsUnsignedGreaterOrEqual() throws Exception {
        StringBuilder report = new StringBuilder();
        byte[] before = Rewritten.original(Calls.class);
        byte[] after = Outliner.outline(before, List.of(), Profile.allCold(), 1.0, 0, report);
        assertEquals(3, helperCalls(before));
        assertEquals(0, helperCalls(after), "a call is left");
        assertTrue(report.toString().contains("i32_ge_u: 3 calls replaced"), report.toString());

        Class<?> c = Rewritten.load(NAME, after);
        Method flag = c.getDeclaredMethod("flag", int.class, int.class);
        Method branch = c.getDeclaredMethod("branch", int.class, int.class, long.class);
        flag.setAccessible(true);
        branch.setAccessible(true);
        int[] edges = {
            0,
            1,
            2,
            -1,
            -2,
            Integer.MIN_VALUE,
            Integer.MIN_VALUE + 1,
            Integer.MAX_VALUE,
            Integer.MAX_VALUE - 1,
            0x7fff,
            0x8000,
            0xffff,
            0x10000
        };
        SplittableRandom random = new SplittableRandom(42);
        int[] values = new int[edges.length + 40];
        System.arraycopy(edges, 0, values, 0, edges.length);
        for (int i = edges.length; i < values.length; i++) {
            values[i] = random.nextInt();
        }
        for (int a : values) {
            for (int b : values) {
                assertEquals(Calls.flag(a, b), (int) flag.invoke(null, a, b), a + " >= " + b);
                assertEquals(
                        Calls.branch(a, b, 11),
                        (long) branch.invoke(null, a, b, 11L),
                        a + ", " + b);
            }
        }
    }
}
