package dev.sandjar.outline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.internal.BlockMemory;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The size step ({@link SizeSplit}) on small methods with a small limit: every method ends under
 * it, the class verifies (loading it does) and computes what the original does.
 */
class SizeSplitTest {
    private static final String NAME = SizeSynthetic.class.getName();

    private static final int STACK_LIMIT = 600;
    private static final int GROUP_LIMIT = 500;
    private static final int[] PIECE_LIMITS = {480, 540, 620};

    private static byte[] original() throws IOException {
        return Rewritten.original(SizeSynthetic.class);
    }

    private static Object call(Class<?> c, String name, Class<?>[] types, Object... args)
            throws Exception {
        Method m = c.getDeclaredMethod(name, types);
        m.setAccessible(true);
        return m.invoke(null, args);
    }

    /** Every method of {@code bytes} at most {@code limit} bytes, as the step measures them. */
    private static void allUnder(byte[] bytes, int limit, String report) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, ClassReader.SKIP_FRAMES);
        for (MethodNode m : cn.methods) {
            int size = SizeSplit.measure(cn, m);
            assertTrue(size <= limit, m.name + " is " + size + " bytes: " + report);
        }
    }

    private static int count(String report, String what) {
        Matcher m = Pattern.compile("(\\d+) " + what).matcher(report);
        assertTrue(m.find(), report);
        return Integer.parseInt(m.group(1));
    }

    @Test
    void carriedOperandStacksAreSpilledAndTheMethodStillComputesTheSame() throws Exception {
        StringBuilder report = new StringBuilder();
        byte[] split =
                Outliner.splitHuge(
                        Rewritten.original(StackSynthetic.class), STACK_LIMIT, false, report);
        allUnder(split, STACK_LIMIT, report.toString());
        assertTrue(count(report.toString(), "methods;") >= 1, "nothing spilled: " + report);
        Class<?> c = Rewritten.load(StackSynthetic.class.getName(), split);
        Class<?>[] types = {long.class, int.class};
        for (int b = 0; b < (1 << 14); b += 7) {
            for (long a : new long[] {0, 1, -1, 12345678901L, Long.MIN_VALUE, 0x5555_0000_1234L}) {
                assertEquals(
                        StackSynthetic.chain(a, b), call(c, "chain", types, a, b), a + " " + b);
            }
        }
    }

    @Test
    void outlinedPiecesSplitAgainKeepTheirResultsInTheSharedScratchArray() throws Exception {
        // the engine's pipeline: outline every region, share the scratch array (the method has a
        // memory parameter), then split whatever is over the limit, pieces included
        StringBuilder report = new StringBuilder();
        byte[] outlined =
                Outliner.outline(original(), List.of("loop"), Profile.allCold(), 1.0, 0, report);
        byte[] shared = Outliner.inlineAccesses(outlined, report);
        assertTrue(report.toString().contains("shared one in 1 methods"), report.toString());
        for (int limit : PIECE_LIMITS) {
            StringBuilder r = new StringBuilder();
            byte[] split = Outliner.splitHuge(shared, limit, true, r);
            allUnder(split, limit, r.toString());
            Class<?> c = Rewritten.load(NAME, split);
            ClassNode cn = new ClassNode();
            new ClassReader(split).accept(cn, ClassReader.SKIP_FRAMES);
            assertTrue(
                    cn.methods.stream().anyMatch(m -> m.name.matches("loop\\$cold\\d+\\$split.*")),
                    "no outlined piece was split at " + limit + ": " + r);
            Class<?>[] types = {com.dylibso.chicory.runtime.Memory.class, int.class, long.class};
            BlockMemory mem = new BlockMemory();
            for (long seed = 0; seed < 1500; seed++) {
                for (int steps : new int[] {0, 5, 60, 400}) {
                    long want = SizeSynthetic.loop(new BlockMemory(), steps, seed);
                    assertEquals(
                            want,
                            call(c, "loop", types, mem, steps, seed),
                            limit + " " + steps + " " + seed);
                }
            }
        }
    }

    @Test
    void severalRegionsShareOneMethodBehindAnEntrySwitch() throws Exception {
        StringBuilder report = new StringBuilder();
        byte[] split = Outliner.splitHuge(original(), GROUP_LIMIT, false, report);
        allUnder(split, GROUP_LIMIT, report.toString());
        assertTrue(count(report.toString(), "of them several regions") >= 1, report.toString());
        Class<?> c = Rewritten.load(NAME, split);
        Class<?>[] types = {com.dylibso.chicory.runtime.Memory.class, int.class, long.class};
        for (long seed = 0; seed < 1500; seed++) {
            assertEquals(
                    SizeSynthetic.loop(new BlockMemory(), 300, seed),
                    call(c, "loop", types, new BlockMemory(), 300, seed),
                    "seed " + seed);
        }
    }

    @Test
    void offLeavesTheClassAsItWas() throws Exception {
        StringBuilder report = new StringBuilder();
        byte[] a = Outliner.splitHuge(original(), 0, true, report);
        byte[] b = Outliner.splitHuge(a, 0, true, report);
        assertTrue(Arrays.equals(a, b));
        assertEquals("", report.toString());
    }
}
