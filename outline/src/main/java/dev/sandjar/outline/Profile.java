package dev.sandjar.outline;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How often each candidate region entry of each method ran in the training run: lines {@code METHOD
 * ID COUNT}, {@code #} starts a comment. The ids are positions in the order {@link MethodSplitter}
 * lists a method's candidates, so a profile fits one class shape only: a method whose candidate
 * count differs fails the pass (regenerate with build/outline-profile.sh).
 */
public final class Profile {
    private final Map<String, long[]> counts;

    private Profile(Map<String, long[]> counts) {
        this.counts = counts;
    }

    /** No counts at all: every candidate region is cold (tests of the pass). */
    public static Profile allCold() {
        return new Profile(Map.of());
    }

    /**
     * Reads a profile. A line {@code METHOD LENGTH} declares the method's number of ids; its {@code
     * METHOD ID COUNT} lines may then leave ids out (their count is 0), in increasing order.
     * Without it every id from 0 up has its line.
     */
    public static Profile read(Path file) throws IOException {
        Map<String, List<Long>> lists = new TreeMap<>();
        Map<String, Integer> lengths = new TreeMap<>();
        int lineNo = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNo++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            if (f.length == 2 && !lists.containsKey(f[0])) {
                lengths.put(f[0], Integer.parseInt(f[1]));
                lists.put(f[0], new ArrayList<>());
                continue;
            }
            if (f.length != 3) {
                throw new IllegalArgumentException(
                        file
                                + ":"
                                + lineNo
                                + ": expected METHOD ID COUNT (or METHOD LENGTH before them), got '"
                                + line
                                + "'");
            }
            List<Long> l = lists.computeIfAbsent(f[0], k -> new ArrayList<>());
            int id = Integer.parseInt(f[1]);
            Integer length = lengths.get(f[0]);
            while (length != null && l.size() < Math.min(id, length)) {
                l.add(0L);
            }
            if (id != l.size() || (length != null && id >= length)) {
                throw new IllegalArgumentException(
                        file + ":" + lineNo + ": id " + id + " out of order, expected " + l.size());
            }
            l.add(Long.parseLong(f[2]));
        }
        lengths.forEach(
                (m, length) -> {
                    List<Long> l = lists.get(m);
                    while (l.size() < length) {
                        l.add(0L);
                    }
                });
        Map<String, long[]> counts = new TreeMap<>();
        lists.forEach((k, v) -> counts.put(k, v.stream().mapToLong(Long::longValue).toArray()));
        return new Profile(counts);
    }

    /** The text of a profile: counts per method, in the line format {@link #read} takes. */
    public static String format(Map<String, long[]> counts) {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(counts)
                .forEach(
                        (m, c) -> {
                            for (int i = 0; i < c.length; i++) {
                                sb.append(m).append(' ').append(i).append(' ').append(c[i]);
                                sb.append('\n');
                            }
                        });
        return sb.toString();
    }

    /** The method's counts, or null when this profile has none (all cold). */
    long[] counts(String method) {
        if (counts.isEmpty()) {
            return null;
        }
        long[] c = counts.get(method);
        if (c == null) {
            throw new IllegalStateException("the profile has no counts for " + method);
        }
        return c;
    }
}
