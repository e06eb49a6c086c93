package dev.sandjar.quickjs;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * QuickJS's interpreter loop compiles to one ~37 KB JVM method that HotSpot skips unless these
 * flags are set (DESIGN.md, docs/jvm-flags.md). Without them guest code runs about 7x slower.
 */
final class JitFlags {
    static final List<String> REQUIRED =
            List.of(
                    "-XX:-DontCompileHugeMethods",
                    "-XX:MaxNodeLimit=600000",
                    "-XX:NodeLimitFudgeFactor=20000");
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private JitFlags() {}

    static List<String> missing() {
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
