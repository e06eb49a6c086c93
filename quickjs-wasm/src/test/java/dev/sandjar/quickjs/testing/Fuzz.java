package dev.sandjar.quickjs.testing;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A small property-based fuzzing loop for the parsers that read guest- or pack-controlled bytes: a
 * seeded generator (usually a mutation of valid inputs) and a property that throws on a failure.
 * Each try is bounded in time, so a hang fails the test naming the input.
 *
 * <p>Tries: the target's default (a few hundred to a few thousand, seconds in {@code mvn verify}),
 * or {@code -Dsandjar.fuzz.tries=N} for all targets at once ({@code mvn verify
 * -Dsandjar.fuzz.tries=1000000 -Dtest='*Fuzz*'}). Seeds: fixed by default, so {@code verify} is
 * reproducible; {@code -Dsandjar.fuzz.seed=N} (or {@code random}) explores elsewhere. A failure
 * names the try's own seed: {@code -Dsandjar.fuzz.seed=S -Dsandjar.fuzz.tries=1} replays it.
 *
 * <p>Why not a library: Jazzer 0.24.0's JUnit integration fails test discovery on JUnit 6, and
 * jqwik's author asks that AI agents not use it (its engine prints so on every run); this loop
 * needs neither coverage guidance nor shrinking to find what the structure-aware generators find.
 */
public final class Fuzz {
    /** The per-try bound: a parser call that takes longer is a hang. */
    public static final long CALL_TIMEOUT_SECONDS = 10;

    private static final long DEFAULT_SEED = 0x5A4D_4A41_52L;
    private static final long STEP = 0x9E37_79B9_7F4A_7C15L;

    private Fuzz() {}

    /** A property over one generated input; it throws (an assertion or anything) on a failure. */
    @FunctionalInterface
    public interface Property<T> {
        void check(T input) throws Exception;
    }

    /** The tries a target makes: {@code sandjar.fuzz.tries} if set, else its default. */
    public static int tries(int defaultTries) {
        String v = System.getProperty("sandjar.fuzz.tries");
        return v == null || v.isBlank() ? defaultTries : Integer.parseInt(v.trim());
    }

    private static long baseSeed() {
        String v = System.getProperty("sandjar.fuzz.seed");
        if (v == null || v.isBlank()) {
            return DEFAULT_SEED;
        }
        return v.trim().equals("random") ? new Random().nextLong() : Long.parseLong(v.trim());
    }

    /**
     * Runs {@code property} on {@link #tries} inputs from {@code generator}; fails on the first
     * input whose property throws or takes over {@link #CALL_TIMEOUT_SECONDS}.
     */
    public static <T> void run(
            String target, int defaultTries, Function<Random, T> generator, Property<T> property) {
        int tries = tries(defaultTries);
        long base = baseSeed();
        ExecutorService worker =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "fuzz-" + target);
                            t.setDaemon(true);
                            return t;
                        });
        try {
            for (int i = 0; i < tries; i++) {
                long seed = base + i * STEP;
                T input = generator.apply(new Random(seed));
                Future<?> f =
                        worker.submit(
                                () -> {
                                    property.check(input);
                                    return null;
                                });
                try {
                    f.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    f.cancel(true);
                    throw new AssertionError(
                            failure(
                                    target,
                                    i,
                                    seed,
                                    input,
                                    "took over " + CALL_TIMEOUT_SECONDS + " s"));
                } catch (ExecutionException e) {
                    throw new AssertionError(
                            failure(target, i, seed, input, String.valueOf(e.getCause())),
                            e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            }
        } finally {
            worker.shutdownNow();
            try {
                worker.awaitTermination(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String failure(String target, int i, long seed, Object input, String what) {
        return target
                + ": try "
                + i
                + " failed: "
                + what
                + "\n  input: "
                + show(input)
                + "\n  replay: -Dsandjar.fuzz.seed="
                + seed
                + " -Dsandjar.fuzz.tries=1";
    }

    /** The input as a failure shows it: bytes in hex, strings escaped, capped at 2,000 chars. */
    public static String show(Object input) {
        String s;
        if (input instanceof byte[] b) {
            s = "hex " + HexFormat.of().formatHex(b);
        } else if (input instanceof String str) {
            StringBuilder sb = new StringBuilder("\"");
            for (char c : str.toCharArray()) {
                if (c < 0x20 || c > 0x7e) {
                    sb.append(String.format("\\u%04x", (int) c));
                } else {
                    sb.append(c);
                }
            }
            s = sb.append('"').toString();
        } else {
            s = String.valueOf(input);
        }
        return s.length() > 2000 ? s.substring(0, 2000) + "... (" + s.length() + " chars)" : s;
    }

    // ---------------------------------------------------------------------------------------
    // Generator helpers.

    /** One of {@code xs}. */
    @SafeVarargs
    public static <T> T pick(Random r, T... xs) {
        return xs[r.nextInt(xs.length)];
    }

    /** One of {@code xs}. */
    public static <T> T pick(Random r, List<T> xs) {
        return xs.get(r.nextInt(xs.size()));
    }

    /** Bytes that parsers trip on: lengths, signs, LEB continuation bits, tags. */
    private static final int[] INTERESTING_BYTES = {
        0x00, 0x01, 0x02, 0x07, 0x08, 0x09, 0x17, 0x7f, 0x80, 0x81, 0xfe, 0xff
    };

    /** One to four random edits of {@code seed}: flip, set, insert, delete, duplicate, truncate. */
    public static byte[] mutate(Random r, byte[] seed) {
        byte[] b = seed.clone();
        int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits; e++) {
            int n = b.length;
            int at = n == 0 ? 0 : r.nextInt(n);
            switch (r.nextInt(7)) {
                case 0 -> {
                    if (n > 0) {
                        b[at] ^= (byte) (1 << r.nextInt(8));
                    }
                }
                case 1 -> {
                    if (n > 0) {
                        b[at] = (byte) INTERESTING_BYTES[r.nextInt(INTERESTING_BYTES.length)];
                    }
                }
                case 2 -> b = insert(b, at, new byte[] {(byte) r.nextInt(256)});
                case 3 -> {
                    if (n > 0) {
                        int len = 1 + r.nextInt(Math.min(8, n - at));
                        b = concat(Arrays.copyOf(b, at), Arrays.copyOfRange(b, at + len, n));
                    }
                }
                case 4 -> {
                    if (n > 0) {
                        int len = 1 + r.nextInt(Math.min(16, n - at));
                        b = insert(b, r.nextInt(n + 1), Arrays.copyOfRange(b, at, at + len));
                    }
                }
                case 5 -> b = Arrays.copyOf(b, at);
                default -> {
                    if (n > 0) {
                        b[at] = (byte) r.nextInt(256);
                    }
                }
            }
        }
        return b;
    }

    /** One to four edits of {@code seed} with characters or whole pieces from {@code pieces}. */
    public static String mutate(Random r, String seed, List<String> pieces) {
        StringBuilder s = new StringBuilder(seed);
        int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits; e++) {
            int n = s.length();
            int at = n == 0 ? 0 : r.nextInt(n + 1);
            switch (r.nextInt(5)) {
                case 0 -> s.insert(at, pick(r, pieces));
                case 1 -> {
                    if (at < n) {
                        s.delete(at, Math.min(n, at + 1 + r.nextInt(4)));
                    }
                }
                case 2 -> {
                    if (at < n) {
                        s.setCharAt(
                                at, pick(r, pieces).isEmpty() ? 'x' : pick(r, pieces).charAt(0));
                    }
                }
                case 3 -> s.insert(at, (char) r.nextInt(0x10000));
                default -> {
                    if (n > 0) {
                        int from = r.nextInt(n);
                        int to = Math.min(n, from + 1 + r.nextInt(8));
                        s.insert(at, s.substring(from, to));
                    }
                }
            }
        }
        return s.toString();
    }

    /** A UTF-8 byte mutation of {@code seed}, decoded back leniently (malformed: U+FFFD). */
    public static String mutateUtf8(Random r, String seed) {
        return new String(mutate(r, seed.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    private static byte[] insert(byte[] b, int at, byte[] piece) {
        byte[] out = new byte[b.length + piece.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(piece, 0, out, at, piece.length);
        System.arraycopy(b, at, out, at + piece.length, b.length - at);
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        return insert(a, a.length, b);
    }
}
