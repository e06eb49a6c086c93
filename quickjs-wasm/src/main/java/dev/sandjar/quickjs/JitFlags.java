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
 * QuickJS's interpreter loop compiles to one ~37 KB JVM method that HotSpot skips unless the first
 * three of these flags are set (docs/jvm-flags.md); without them guest code runs about 7x slower.
 * The fourth, {@code -XX:-SplitIfBlocks}, is for correctness: with split-if on, C2 on JDK 17
 * miscompiles the compiled guest code now and then (a guest load that reads a wrong value once,
 * around a deoptimization), and guest code computes wrong results.
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

    static void warnOnce() {
        if (WARNED.compareAndSet(false, true)) {
            List<String> missing = missing();
            if (!missing.isEmpty()) {
                Logger.getLogger(QuickJsEngine.class.getName())
                        .warning(
                                "Sandjar: start the JVM with "
                                        + String.join(" ", missing)
                                        + ": without -XX:-DontCompileHugeMethods and the node"
                                        + " limits guest JavaScript runs interpreted and ~7x"
                                        + " slower; without -XX:-SplitIfBlocks C2 on JDK 17 can"
                                        + " miscompile it into wrong results (see"
                                        + " docs/jvm-flags.md)");
            }
        }
    }
}
