package dev.sandjar.packs.internal.diff;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A line diff: Myers' O(ND) algorithm in its linear-space form (the middle-snake bisection), so
 * memory stays proportional to the input whatever the edit distance. Work is counted and capped:
 * time grows with lines times edits, and a caller-chosen bound turns a pathological pair into an
 * error instead of a stuck thread.
 */
final class TextDiff {
    enum Op {
        EQUAL,
        DELETE,
        INSERT
    }

    /** {@code count} consecutive lines with the same operation. */
    record Run(Op op, int count) {}

    /** The work bound ran out, or the caller gave up. */
    static final class Stopped extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stopped(String message) {
            super(message, null, false, false);
        }
    }

    private final int[] a;
    private final int[] b;
    private final long maxWork;
    private final BooleanSupplier cancelled;
    private long work;
    private final List<Run> out = new ArrayList<>();

    private TextDiff(int[] a, int[] b, long maxWork, BooleanSupplier cancelled) {
        this.a = a;
        this.b = b;
        this.maxWork = maxWork;
        this.cancelled = cancelled;
    }

    /** Splits text into lines that keep their terminators, so joining them gives the text back. */
    static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                lines.add(text.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < text.length()) {
            lines.add(text.substring(start));
        }
        return lines;
    }

    /**
     * The edit script turning {@code a} into {@code b}. Within each changed stretch all deletions
     * come before all insertions; equal runs are as long as possible.
     */
    static List<Run> diff(List<String> a, List<String> b, long maxWork, BooleanSupplier cancelled) {
        Map<String, Integer> ids = new HashMap<>();
        int[] ia = new int[a.size()];
        int[] ib = new int[b.size()];
        for (int i = 0; i < ia.length; i++) {
            ia[i] = ids.computeIfAbsent(a.get(i), k -> ids.size());
        }
        for (int i = 0; i < ib.length; i++) {
            ib[i] = ids.computeIfAbsent(b.get(i), k -> ids.size());
        }
        TextDiff d = new TextDiff(ia, ib, maxWork, cancelled);
        d.run();
        return normalize(d.out);
    }

    private void run() {
        // A stack of tasks in reverse order: {0, aLo, aHi, bLo, bHi} diffs a range,
        // {1, n} emits n equal lines.
        Deque<int[]> tasks = new ArrayDeque<>();
        tasks.push(new int[] {0, 0, a.length, 0, b.length});
        while (!tasks.isEmpty()) {
            int[] t = tasks.pop();
            if (t[0] == 1) {
                emit(Op.EQUAL, t[1]);
                continue;
            }
            int aLo = t[1];
            int aHi = t[2];
            int bLo = t[3];
            int bHi = t[4];
            int prefix = 0;
            while (aLo + prefix < aHi && bLo + prefix < bHi && a[aLo + prefix] == b[bLo + prefix]) {
                prefix++;
            }
            emit(Op.EQUAL, prefix);
            aLo += prefix;
            bLo += prefix;
            int suffix = 0;
            while (aHi - suffix > aLo
                    && bHi - suffix > bLo
                    && a[aHi - suffix - 1] == b[bHi - suffix - 1]) {
                suffix++;
            }
            aHi -= suffix;
            bHi -= suffix;
            if (suffix > 0) {
                tasks.push(new int[] {1, suffix});
            }
            if (aLo == aHi) {
                emit(Op.INSERT, bHi - bLo);
                continue;
            }
            if (bLo == bHi) {
                emit(Op.DELETE, aHi - aLo);
                continue;
            }
            long split = bisect(aLo, aHi, bLo, bHi);
            if (split < 0) {
                emit(Op.DELETE, aHi - aLo);
                emit(Op.INSERT, bHi - bLo);
                continue;
            }
            int x = (int) (split >>> 32);
            int y = (int) split;
            tasks.push(new int[] {0, aLo + x, aHi, bLo + y, bHi});
            tasks.push(new int[] {0, aLo, aLo + x, bLo, bLo + y});
        }
    }

    /**
     * Finds the middle snake of a[aLo, aHi) against b[bLo, bHi) and returns where to split, as
     * {@code x << 32 | y} relative to the range starts, or -1 when the ranges share nothing.
     */
    private long bisect(int aLo, int aHi, int bLo, int bHi) {
        int n = aHi - aLo;
        int m = bHi - bLo;
        int max = (n + m + 1) / 2;
        int offset = max;
        int size = 2 * max + 2; // k ranges over [-d, d] with d < max, read at k - 1 and k + 1
        int[] v1 = new int[size];
        int[] v2 = new int[size];
        Arrays.fill(v1, -1);
        Arrays.fill(v2, -1);
        v1[offset + 1] = 0;
        v2[offset + 1] = 0;
        int delta = n - m;
        boolean front = (delta & 1) != 0;
        int k1start = 0;
        int k1end = 0;
        int k2start = 0;
        int k2end = 0;
        for (int d = 0; d < max; d++) {
            for (int k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
                int k1o = offset + k1;
                int x1 =
                        (k1 == -d || (k1 != d && v1[k1o - 1] < v1[k1o + 1]))
                                ? v1[k1o + 1]
                                : v1[k1o - 1] + 1;
                int y1 = x1 - k1;
                while (x1 < n && y1 < m && a[aLo + x1] == b[bLo + y1]) {
                    x1++;
                    y1++;
                    tick();
                }
                tick();
                v1[k1o] = x1;
                if (x1 > n) {
                    k1end += 2;
                } else if (y1 > m) {
                    k1start += 2;
                } else if (front) {
                    int k2o = offset + delta - k1;
                    if (k2o >= 0 && k2o < size && v2[k2o] != -1 && x1 >= n - v2[k2o]) {
                        return ((long) x1 << 32) | (y1 & 0xFFFFFFFFL);
                    }
                }
            }
            for (int k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
                int k2o = offset + k2;
                int x2 =
                        (k2 == -d || (k2 != d && v2[k2o - 1] < v2[k2o + 1]))
                                ? v2[k2o + 1]
                                : v2[k2o - 1] + 1;
                int y2 = x2 - k2;
                while (x2 < n && y2 < m && a[aHi - x2 - 1] == b[bHi - y2 - 1]) {
                    x2++;
                    y2++;
                    tick();
                }
                tick();
                v2[k2o] = x2;
                if (x2 > n) {
                    k2end += 2;
                } else if (y2 > m) {
                    k2start += 2;
                } else if (!front) {
                    int k1o = offset + delta - k2;
                    if (k1o >= 0 && k1o < size && v1[k1o] != -1) {
                        int x1 = v1[k1o];
                        int y1 = offset + x1 - k1o;
                        if (x1 >= n - x2) {
                            return ((long) x1 << 32) | (y1 & 0xFFFFFFFFL);
                        }
                    }
                }
            }
        }
        return -1;
    }

    private void tick() {
        if (++work > maxWork) {
            throw new Stopped(
                    "the texts differ too much to diff within the work limit ("
                            + maxWork
                            + " steps)");
        }
        if ((work & 0xFFFFF) == 0 && cancelled.getAsBoolean()) {
            throw new Stopped("the run ended");
        }
    }

    private void emit(Op op, int count) {
        if (count > 0) {
            out.add(new Run(op, count));
        }
    }

    /** Merges neighbours and puts each changed stretch as one deletion then one insertion. */
    private static List<Run> normalize(List<Run> runs) {
        List<Run> out = new ArrayList<>();
        int equal = 0;
        int deleted = 0;
        int inserted = 0;
        for (Run r : runs) {
            if (r.op() == Op.EQUAL) {
                if (deleted + inserted > 0) {
                    flush(out, deleted, inserted);
                    deleted = 0;
                    inserted = 0;
                }
                equal += r.count();
            } else {
                if (equal > 0) {
                    out.add(new Run(Op.EQUAL, equal));
                    equal = 0;
                }
                if (r.op() == Op.DELETE) {
                    deleted += r.count();
                } else {
                    inserted += r.count();
                }
            }
        }
        if (equal > 0) {
            out.add(new Run(Op.EQUAL, equal));
        }
        flush(out, deleted, inserted);
        return out;
    }

    private static void flush(List<Run> out, int deleted, int inserted) {
        if (deleted > 0) {
            out.add(new Run(Op.DELETE, deleted));
        }
        if (inserted > 0) {
            out.add(new Run(Op.INSERT, inserted));
        }
    }

    /**
     * A unified diff of {@code a} against {@code b} with {@code context} lines around each change,
     * or an empty string when they are equal.
     */
    static String unified(
            List<String> a, List<String> b, List<Run> runs, int context, String from, String to) {
        // One entry per line of the script: op and the line's index in a (delete, equal) or b.
        int total = 0;
        for (Run r : runs) {
            total += r.count();
        }
        Op[] ops = new Op[total];
        int[] ai = new int[total];
        int[] bi = new int[total];
        int p = 0;
        int x = 0;
        int y = 0;
        for (Run r : runs) {
            for (int i = 0; i < r.count(); i++, p++) {
                ops[p] = r.op();
                ai[p] = x;
                bi[p] = y;
                if (r.op() != Op.INSERT) {
                    x++;
                }
                if (r.op() != Op.DELETE) {
                    y++;
                }
            }
        }
        StringBuilder s = new StringBuilder();
        int i = 0;
        while (i < total) {
            if (ops[i] == Op.EQUAL) {
                i++;
                continue;
            }
            int start = Math.max(0, i - context);
            // The hunk runs on while the equal stretch between two changes is short enough
            // for their contexts to touch.
            int lastChange = i;
            for (int j = i + 1; j < total; j++) {
                if (ops[j] != Op.EQUAL) {
                    lastChange = j;
                } else if (j - lastChange > 2 * context) {
                    break;
                }
            }
            int end = Math.min(total, lastChange + 1 + context);
            if (s.length() == 0) {
                s.append("--- ").append(from).append('\n');
                s.append("+++ ").append(to).append('\n');
            }
            int aStart = ai[start];
            int bStart = bi[start];
            int aCount = 0;
            int bCount = 0;
            for (int j = start; j < end; j++) {
                if (ops[j] != Op.INSERT) {
                    aCount++;
                }
                if (ops[j] != Op.DELETE) {
                    bCount++;
                }
            }
            s.append("@@ -")
                    .append(range(aStart, aCount))
                    .append(" +")
                    .append(range(bStart, bCount))
                    .append(" @@\n");
            for (int j = start; j < end; j++) {
                String line;
                char mark;
                switch (ops[j]) {
                    case EQUAL -> {
                        line = a.get(ai[j]);
                        mark = ' ';
                    }
                    case DELETE -> {
                        line = a.get(ai[j]);
                        mark = '-';
                    }
                    default -> {
                        line = b.get(bi[j]);
                        mark = '+';
                    }
                }
                s.append(mark).append(line);
                if (!line.endsWith("\n")) {
                    s.append("\n\\ No newline at end of file\n");
                }
            }
            i = end;
        }
        return s.toString();
    }

    private static String range(int start, int count) {
        // 1-based; an empty range names the line before it.
        if (count == 0) {
            return start + ",0";
        }
        return count == 1 ? String.valueOf(start + 1) : (start + 1) + "," + count;
    }
}
