package dev.sandjar.outline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.internal.BlockMemory;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The size step ({@link SizeSplit}) on small methods with a small limit: every method ends under
 * it, the class verifies (loading it does) and computes what the original does.
 */
class SizeSplitTest {
    private static final String NAME = SizeSynthetic.class.getName();
    private static final String HEAT = HeatSynthetic.class.getName();

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

    /** The size of {@code method} in {@code bytes}. */
    private static int size(byte[] bytes, String method) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, ClassReader.SKIP_FRAMES);
        return SizeSplit.measure(
                cn,
                cn.methods.stream().filter(m -> m.name.equals(method)).findFirst().orElseThrow());
    }

    @Test
    void aSizeProfileKeepsTheHotCodeInPlaceAndMovesTheCold(@TempDir Path dir) throws Exception {
        byte[] original = Rewritten.original(HeatSynthetic.class);
        int limit = size(original, "hotCold") * 3 / 4;
        // the training run: the same class with a counter per block of every method over the limit
        StringBuilder report = new StringBuilder();
        byte[] counting = Outliner.instrumentSize(original, limit, report);
        assertTrue(report.toString().contains("block counters in"), report.toString());
        Class<?> ci = Rewritten.load(HEAT, counting);
        Class<?>[] types = {int.class, long.class};
        for (long seed = 0; seed < 20; seed++) {
            assertEquals(HeatSynthetic.hotCold(5000, seed), call(ci, "hotCold", types, 5000, seed));
        }
        Map<String, long[]> counts = new TreeMap<>();
        for (Field f : ci.getDeclaredFields()) {
            if (f.getName().startsWith("outlineCounts$")) {
                f.setAccessible(true);
                counts.put(f.getName().substring("outlineCounts$".length()), (long[]) f.get(null));
            }
        }
        assertTrue(counts.containsKey("hotCold"), counts.keySet().toString());
        // written sparse, as build/outline-profile.sh keeps it: a length line, then the non-zero
        // ids
        StringBuilder sparse = new StringBuilder();
        counts.forEach(
                (m, c) -> {
                    sparse.append(m).append(' ').append(c.length).append('\n');
                    for (int i = 0; i < c.length; i++) {
                        if (c[i] != 0) {
                            sparse.append(m).append(' ').append(i).append(' ').append(c[i]);
                            sparse.append('\n');
                        }
                    }
                });
        Path file = dir.resolve("size-profile.txt");
        Files.writeString(file, sparse);
        Profile heat = Profile.read(file);

        StringBuilder bySize = new StringBuilder();
        byte[] a = Outliner.splitHuge(original, limit, false, bySize);
        StringBuilder byHeat = new StringBuilder();
        byte[] b = Outliner.splitHuge(original, limit, false, heat, byHeat);
        allUnder(a, limit, bySize.toString());
        allUnder(b, limit, byHeat.toString());
        // by size the large hot arm moves (unmeasured without a profile: it reports none), with
        // the profile only the cold part does, and the by-size class run through the profile's
        // eyes moves a hot region
        assertEquals(0, count(byHeat.toString(), "hot regions moved"), byHeat.toString());
        StringBuilder judged = new StringBuilder();
        judged.append(SizeSplit.split(readClass(original), limit, false, heat, true));
        assertTrue(count(judged.toString(), "hot regions moved") >= 1, judged.toString());
        Class<?> ca = Rewritten.load(HEAT, a);
        Class<?> cb = Rewritten.load(HEAT, b);
        for (long seed = 0; seed < 300; seed++) {
            for (int n : new int[] {0, 1, 1023, 1024, 5000}) {
                long want = HeatSynthetic.hotCold(n, seed);
                assertEquals(want, call(ca, "hotCold", types, n, seed), n + " " + seed);
                assertEquals(want, call(cb, "hotCold", types, n, seed), n + " " + seed);
            }
        }
    }

    private static ClassNode readClass(byte[] bytes) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, ClassReader.SKIP_FRAMES);
        return cn;
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
