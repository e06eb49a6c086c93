package dev.sandjar.packs.internal.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The diff behind the {@code diff} host module. */
class TextDiffTest {
    static List<TextDiff.Run> diff(String a, String b) {
        return TextDiff.diff(TextDiff.lines(a), TextDiff.lines(b), Long.MAX_VALUE, () -> false);
    }

    /** Applies a script: equal and deleted lines come from a, equal and inserted ones from b. */
    static String[] replay(List<String> a, List<String> b, List<TextDiff.Run> runs) {
        StringBuilder fromA = new StringBuilder();
        StringBuilder fromB = new StringBuilder();
        int x = 0;
        int y = 0;
        for (TextDiff.Run r : runs) {
            for (int i = 0; i < r.count(); i++) {
                switch (r.op()) {
                    case EQUAL -> {
                        assertEquals(a.get(x), b.get(y));
                        fromA.append(a.get(x++));
                        fromB.append(b.get(y++));
                    }
                    case DELETE -> fromA.append(a.get(x++));
                    case INSERT -> fromB.append(b.get(y++));
                }
            }
        }
        return new String[] {fromA.toString(), fromB.toString()};
    }

    @Test
    void linesKeepTheirTerminators() {
        assertEquals(List.of("a\n", "b\r\n", "c"), TextDiff.lines("a\nb\r\nc"));
        assertEquals(List.of(), TextDiff.lines(""));
    }

    @Test
    void aSmallDiff() {
        assertEquals(
                List.of(
                        new TextDiff.Run(TextDiff.Op.EQUAL, 1),
                        new TextDiff.Run(TextDiff.Op.DELETE, 1),
                        new TextDiff.Run(TextDiff.Op.INSERT, 1),
                        new TextDiff.Run(TextDiff.Op.EQUAL, 1)),
                diff("a\nb\nc\n", "a\nB\nc\n"));
        assertEquals(List.of(new TextDiff.Run(TextDiff.Op.EQUAL, 3)), diff("a\nb\nc", "a\nb\nc"));
        assertEquals(List.of(new TextDiff.Run(TextDiff.Op.INSERT, 2)), diff("", "x\ny"));
    }

    @Test
    void randomScriptsReplayToBothTextsAndAreMinimal() {
        Random rnd = new Random(42);
        for (int round = 0; round < 300; round++) {
            List<String> a = randomLines(rnd, rnd.nextInt(40));
            List<String> b = mutate(rnd, a);
            List<TextDiff.Run> runs = TextDiff.diff(a, b, Long.MAX_VALUE, () -> false);
            String[] back = replay(a, b, runs);
            assertEquals(String.join("", a), back[0]);
            assertEquals(String.join("", b), back[1]);
            int equal =
                    runs.stream()
                            .filter(r -> r.op() == TextDiff.Op.EQUAL)
                            .mapToInt(TextDiff.Run::count)
                            .sum();
            assertEquals(lcs(a, b), equal, "Myers finds a longest common subsequence");
        }
    }

    @Test
    void unifiedDiffWithContextAndAMissingFinalNewline() {
        List<String> a = TextDiff.lines("1\n2\n3\n4\n5\n6\n7\n8\n9\n10");
        List<String> b = TextDiff.lines("1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n");
        String patch =
                TextDiff.unified(
                        a, b, TextDiff.diff(a, b, Long.MAX_VALUE, () -> false), 1, "old", "new");
        assertEquals(
                "--- old\n+++ new\n@@ -2,3 +2,3 @@\n 2\n-3\n+three\n 4\n"
                        + "@@ -9,2 +9,2 @@\n 9\n-10\n\\ No newline at end of file\n+10\n",
                patch);
        assertEquals("", TextDiff.unified(a, a, TextDiff.diff(a, a, 10, () -> false), 3, "a", "b"));
    }

    @Test
    void theWorkLimitStopsAPathologicalPair() {
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            a.add("a" + i + "\n");
            b.add("b" + i + "\n");
        }
        TextDiff.Stopped e =
                assertThrows(
                        TextDiff.Stopped.class, () -> TextDiff.diff(a, b, 100_000, () -> false));
        assertTrue(e.getMessage().contains("work limit (100000 steps)"), e.getMessage());
    }

    @Test
    void theDiffModuleCapsLinesPerText() {
        assertEquals(200_000, DiffModule.lines("w", 0, "\n".repeat(199_999) + "x").size());
        dev.sandjar.host.BridgeException e =
                assertThrows(
                        dev.sandjar.host.BridgeException.class,
                        () -> DiffModule.lines("diff.diffLines", 1, "\n".repeat(200_001)));
        assertEquals("INPUT_TOO_LARGE", e.code());
        assertEquals("diff.diffLines: argument 2 has 200001 lines; at most 200000", e.getMessage());
    }

    static List<String> randomLines(Random rnd, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add((char) ('a' + rnd.nextInt(5)) + "\n");
        }
        return out;
    }

    static List<String> mutate(Random rnd, List<String> a) {
        List<String> b = new ArrayList<>(a);
        int edits = rnd.nextInt(10);
        for (int i = 0; i < edits; i++) {
            if (!b.isEmpty() && rnd.nextBoolean()) {
                b.remove(rnd.nextInt(b.size()));
            } else {
                b.add(rnd.nextInt(b.size() + 1), (char) ('a' + rnd.nextInt(6)) + "\n");
            }
        }
        return b;
    }

    static int lcs(List<String> a, List<String> b) {
        int[][] t = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                t[i][j] =
                        a.get(i).equals(b.get(j))
                                ? t[i + 1][j + 1] + 1
                                : Math.max(t[i + 1][j], t[i][j + 1]);
            }
        }
        return t[0][0];
    }
}
