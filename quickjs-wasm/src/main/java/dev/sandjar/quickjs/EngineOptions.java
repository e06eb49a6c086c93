package dev.sandjar.quickjs;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How an engine instance is built. Immutable; {@code EngineOptions.builder().withX(..).build()}.
 */
public final class EngineOptions {
    /** The engine binary declares an initial memory of 256 pages (16 MiB). */
    public static final int MIN_MEMORY_PAGES = 256;

    /** The binary's own declared maximum: 32,768 pages (2 GiB). */
    public static final int MAX_MEMORY_PAGES = 32768;

    /** The engine thread's JVM stack: QuickJS's recursion runs on it (docs/engine.md). */
    public static final long DEFAULT_THREAD_STACK_BYTES = 256L << 20;

    private final int maxMemoryPages;
    private final Consumer<String> stdout;
    private final ZoneId zone;
    private final long threadStackBytes;

    private EngineOptions(Builder b) {
        this.maxMemoryPages = b.maxMemoryPages;
        this.stdout = b.stdout;
        this.zone = b.zone;
        this.threadStackBytes = b.threadStackBytes;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static EngineOptions defaults() {
        return builder().build();
    }

    /** The WebAssembly memory maximum: it bounds everything the guest holds. */
    public int maxMemoryPages() {
        return maxMemoryPages;
    }

    /** Receives each line the engine's C code writes to stdout or stderr. */
    public Consumer<String> stdout() {
        return stdout;
    }

    /** The time zone the guest's {@code Date} sees. UTC unless set. */
    public ZoneId zone() {
        return zone;
    }

    public long threadStackBytes() {
        return threadStackBytes;
    }

    public static final class Builder {
        private int maxMemoryPages = 8192;
        private Consumer<String> stdout = line -> {};
        private ZoneId zone = ZoneOffset.UTC;
        private long threadStackBytes = DEFAULT_THREAD_STACK_BYTES;

        private Builder() {}

        /**
         * At least {@value #MIN_MEMORY_PAGES}, at most {@value #MAX_MEMORY_PAGES} (64 KiB each).
         */
        public Builder withMaxMemoryPages(int pages) {
            if (pages < MIN_MEMORY_PAGES || pages > MAX_MEMORY_PAGES) {
                throw new IllegalArgumentException(
                        String.format(
                                "maxMemoryPages (%d) must be between %d and %d",
                                pages, MIN_MEMORY_PAGES, MAX_MEMORY_PAGES));
            }
            this.maxMemoryPages = pages;
            return this;
        }

        /** Sets the maximum from a byte count, rounded up to whole pages. */
        public Builder withMaxMemoryBytes(long bytes) {
            long pages = (bytes + 65535) / 65536;
            return withMaxMemoryPages((int) Math.min(Integer.MAX_VALUE, Math.max(pages, 0)));
        }

        public Builder withStdout(Consumer<String> sink) {
            this.stdout = Objects.requireNonNull(sink, "stdout");
            return this;
        }

        public Builder withZone(ZoneId zone) {
            this.zone = Objects.requireNonNull(zone, "zone");
            return this;
        }

        /** At least 1 MiB; deep guest recursion needs far more (the default is 256 MiB). */
        public Builder withThreadStackBytes(long bytes) {
            if (bytes < (1L << 20)) {
                throw new IllegalArgumentException(
                        "threadStackBytes (" + bytes + ") must be >= " + (1L << 20));
            }
            this.threadStackBytes = bytes;
            return this;
        }

        public EngineOptions build() {
            return new EngineOptions(this);
        }
    }
}
