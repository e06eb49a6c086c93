package dev.sandjar.quickjs;

import dev.sandjar.quickjs.internal.RawAccess;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * The JVM flags of the tuned mode (docs/jvm-flags.md). None is needed for speed: the build splits
 * every method of the engine class under HotSpot's 8,000-byte limit for compiling, keeping the
 * interpreter's hot paths in place, so a JVM with its defaults compiles all of it. The first three
 * ({@code -XX:-DontCompileHugeMethods} and C2's node limits) are optional tuning. The fourth,
 * {@code -XX:-SplitIfBlocks}, is a precaution on JDK 17 to 20: C2 there once miscompiled the guest
 * code (a load reading a wrong value around a deoptimization) in a shape of the class the build no
 * longer makes, and the fault is not yet root-caused, so the engine warns once on those JDKs when
 * it is missing. A service that runs with all four sets {@code -Dsandjar.jvmFlags=tuned} to be
 * warned when any is missing.
 */
public final class JitFlags {
    /**
     * The flags, from the parent pom's {@code sandjar.jit.flags} (their one home; the build copies
     * them into this module's {@code jvm-flags.txt}, and the scripts read the pom).
     */
    public static final List<String> REQUIRED = load();

    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private JitFlags() {}

    private static List<String> load() {
        try (InputStream in = JitFlags.class.getResourceAsStream("jvm-flags.txt")) {
            if (in == null) {
                throw new IllegalStateException("jvm-flags.txt is missing from the engine jar");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            if (text.isEmpty() || text.contains("${")) {
                throw new IllegalStateException("jvm-flags.txt was not filtered: '" + text + "'");
            }
            return List.copyOf(Arrays.asList(text.split("\\s+")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Why the engine's memory accesses, reads of global 0 and interruption checks take their
     * portable path in this JVM (for example "JDK 25 without
     * --sun-misc-unsafe-memory-access=allow"), or empty when they take {@code sun.misc.Unsafe}, the
     * faster one (docs/jvm-flags.md). Decided once per JVM.
     */
    public static Optional<String> portableMemoryReason() {
        return Optional.ofNullable(RawAccess.REASON);
    }

    /** The required flags the running JVM was not started with. */
    public static List<String> missing() {
        List<String> args = ManagementFactory.getRuntimeMXBean().getInputArguments();
        return REQUIRED.stream().filter(f -> !args.contains(f)).toList();
    }

    /** The precaution against JDK 17's C2 fault (see the class comment). */
    static final String SPLIT_IF = "-XX:-SplitIfBlocks";

    static void warnOnce() {
        if (WARNED.compareAndSet(false, true)) {
            Optional<String> w =
                    warning(
                            ManagementFactory.getRuntimeMXBean().getInputArguments(),
                            Runtime.version().feature(),
                            System.getProperty("sandjar.jvmFlags", ""));
            if (w.isPresent()) { // logged from here, so the record names JitFlags as its source
                Logger.getLogger(QuickJsEngine.class.getName()).warning(w.get());
            }
        }
    }

    /**
     * The one warning a JVM with {@code args} on JDK {@code feature} gets, if any: with {@code
     * mode} {@code tuned} (the service asked for the tuned mode), any of the flags missing;
     * otherwise, on JDK 17 to 20, {@code -XX:-SplitIfBlocks} missing.
     */
    static Optional<String> warning(List<String> args, int feature, String mode) {
        if (mode.equals("tuned")) {
            List<String> missing = REQUIRED.stream().filter(f -> !args.contains(f)).toList();
            return missing.isEmpty()
                    ? Optional.empty()
                    : Optional.of(
                            "Sandjar: -Dsandjar.jvmFlags=tuned, but the JVM was started without "
                                    + String.join(" ", missing)
                                    + " (the tuned mode's flags are "
                                    + String.join(" ", REQUIRED)
                                    + "; see docs/jvm-flags.md)");
        }
        if (feature < 21 && !args.contains(SPLIT_IF)) {
            return Optional.of(
                    "Sandjar: on JDK "
                            + feature
                            + " start the JVM with "
                            + SPLIT_IF
                            + ": C2 on JDK 17 once miscompiled guest JavaScript into wrong values"
                            + " with split-if on, and the fault is not yet root-caused (a"
                            + " precaution; no other flag is needed, see docs/jvm-flags.md)");
        }
        return Optional.empty();
    }
}
