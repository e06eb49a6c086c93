package dev.sandjar.outline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutlinerTest {
    private static final String NAME = Synthetic.class.getName();

    private static byte[] original() throws IOException {
        return Rewritten.original(Synthetic.class);
    }

    private static Class<?> load(byte[] bytes) throws ClassNotFoundException {
        return Rewritten.load(NAME, bytes);
    }

    private static long call(Class<?> c, int steps, long seed, double scale) throws Exception {
        Method m = c.getDeclaredMethod("run", int.class, long.class, double.class);
        m.setAccessible(true);
        return (long) m.invoke(null, steps, seed, scale);
    }

    @Test
    void outlinedMethodComputesWhatTheOriginalDoes() throws Exception {
        StringBuilder report = new StringBuilder();
        byte[] rewritten =
                Outliner.outline(original(), List.of("run"), Profile.allCold(), 1.0, 3000, report);
        Class<?> c = load(rewritten);
        long outlined =
                Arrays.stream(c.getDeclaredMethods())
                        .filter(m -> m.getName().startsWith("run$cold"))
                        .count();
        assertTrue(outlined >= 1, "no region was outlined: " + report);
        assertTrue(report.toString().startsWith("run: "), report.toString());
        for (int steps = 0; steps < 40; steps++) {
            for (long seed = -3; seed < 60; seed += 7) {
                long want = Synthetic.run(steps, seed, 0.5 + seed);
                assertEquals(want, call(c, steps, seed, 0.5 + seed), steps + " " + seed);
            }
        }
        // scale 3e6 takes case 2's break out of the loop; long runs reach case 1's return
        for (long seed = 0; seed < 2000; seed++) {
            assertEquals(Synthetic.run(200, seed, 3e6), call(c, 200, seed, 3e6), "seed " + seed);
        }
    }

    @Test
    void oneMethodPerRegionComputesWhatTheOriginalDoes() throws Exception {
        StringBuilder report = new StringBuilder();
        Class<?> c =
                load(
                        Outliner.outline(
                                original(), List.of("run"), Profile.allCold(), 1.0, 0, report));
        assertTrue(report.toString().contains(" into "), report.toString());
        for (long seed = 0; seed < 500; seed++) {
            assertEquals(Synthetic.run(150, seed, 2.5), call(c, 150, seed, 2.5), "seed " + seed);
            assertEquals(Synthetic.run(150, seed, 3e6), call(c, 150, seed, 3e6), "seed " + seed);
        }
    }

    @Test
    void sameInputGivesTheSameClass() throws Exception {
        byte[] a =
                Outliner.outline(
                        original(),
                        List.of("run"),
                        Profile.allCold(),
                        1.0,
                        3000,
                        new StringBuilder());
        byte[] b =
                Outliner.outline(
                        original(),
                        List.of("run"),
                        Profile.allCold(),
                        1.0,
                        3000,
                        new StringBuilder());
        assertTrue(Arrays.equals(a, b));
    }

    @Test
    void instrumentedClassCountsAndItsProfileDrivesTheOutlining(@TempDir Path dir)
            throws Exception {
        Class<?> c = load(Outliner.instrument(original(), List.of("run")));
        for (long seed = 0; seed < 50; seed++) {
            assertEquals(Synthetic.run(100, seed, 2.0), call(c, 100, seed, 2.0));
        }
        Field f = c.getDeclaredField(Outliner.counterField("run"));
        f.setAccessible(true);
        long[] counts = (long[]) f.get(null);
        assertTrue(counts.length > 0 && Arrays.stream(counts).max().getAsLong() > 0);
        Path file = dir.resolve("profile.txt");
        Files.writeString(file, Profile.format(java.util.Map.of("run", counts)));
        StringBuilder hot = new StringBuilder();
        StringBuilder cold = new StringBuilder();
        // with a zero threshold only never-run regions move; with 1.0 every candidate may
        Outliner.outline(original(), List.of("run"), Profile.read(file), 0.0, 3000, hot);
        byte[] all =
                Outliner.outline(original(), List.of("run"), Profile.read(file), 1.0, 3000, cold);
        assertEquals(Synthetic.run(300, 9, 1.0), call(load(all), 300, 9, 1.0));
        assertTrue(!hot.toString().equals(cold.toString()), hot + " vs " + cold);
    }

    @Test
    void profileOfAnotherClassShapeFailsNamingTheFix(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("profile.txt");
        Files.writeString(file, "run 0 5\nrun 1 7\n");
        refused(IllegalStateException.class, "func_251", 0.01, 3000, "has no method func_251");
        refused(
                IllegalArgumentException.class,
                "run",
                1.5,
                3000,
                "coldFraction (1.5) must be in [0, 1]");
        refused(IllegalArgumentException.class, "run", 1.0, -1, "groupInsns (-1) must be >= 0");
    }

    private static void refused(
            Class<? extends RuntimeException> type,
            String method,
            double coldFraction,
            int groupInsns,
            String message) {
        RuntimeException e =
                assertThrows(
                        type,
                        () ->
                                Outliner.outline(
                                        original(),
                                        List.of(method),
                                        Profile.allCold(),
                                        coldFraction,
                                        groupInsns,
                                        new StringBuilder()));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }
}
