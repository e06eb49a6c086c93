package dev.sandjar.quickjs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * QuickJS's interpreter loop compiles to one ~37 KB JVM method that HotSpot skips unless these
 * flags are set (docs/jvm-flags.md). Without them guest code runs about 7x slower.
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
                                "Sandjar: guest JavaScript runs interpreted and ~7x slower: start"
                                        + " the JVM with "
                                        + String.join(" ", missing)
                                        + " (see docs/jvm-flags.md)");
            }
        }
    }
}
