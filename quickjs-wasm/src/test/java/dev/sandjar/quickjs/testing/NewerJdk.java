package dev.sandjar.quickjs.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A java of a newer JDK than the tests run on, for tests of what only newer JDKs do (JDK 24+'s
 * Unsafe flag, JDK 25's AOT cache): {@value #PROPERTY}'s, or the newest JDK of at least the asked
 * feature release in the directory that holds the running JDK (as on Debian's /usr/lib/jvm).
 */
public final class NewerJdk {
    /** A java to use instead of searching. */
    public static final String PROPERTY = "sandjar.test.newerJava";

    private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

    private NewerJdk() {}

    /** Its java, or empty when there is none (the caller skips, saying {@link #why}). */
    public static Optional<Path> java(int atLeast) {
        String given = System.getProperty(PROPERTY, "");
        if (!given.isBlank()) {
            return Optional.of(Path.of(given));
        }
        try {
            Path parent = Path.of(System.getProperty("java.home")).toRealPath().getParent();
            if (parent == null) {
                return Optional.empty();
            }
            try (Stream<Path> jdks = Files.list(parent)) {
                return jdks.filter(jdk -> Files.isExecutable(jdk.resolve("bin/java")))
                        .filter(jdk -> feature(jdk) >= atLeast)
                        .max(Comparator.comparingInt(NewerJdk::feature))
                        .map(jdk -> jdk.resolve("bin/java"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Why a test that needs one was skipped. */
    public static String why(int atLeast) {
        return "no JDK "
                + atLeast
                + " or later: set -D"
                + PROPERTY
                + " or install one beside "
                + System.getProperty("java.home");
    }

    /** The feature release a JDK's release file names, or 0. */
    private static int feature(Path jdk) {
        try {
            Matcher m = VERSION.matcher(Files.readString(jdk.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
