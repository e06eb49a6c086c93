package dev.sandjar.bridges.media;

import dev.sandjar.host.InvalidRequestException;
import java.time.Duration;
import java.util.Optional;

/**
 * The caps of the media capabilities. Immutable; {@code
 * MediaLimits.builder().withMaxInputBytes(..).build()}.
 *
 * <table>
 *   <caption>Media limits</caption>
 *   <tr><th>limit</th><th>default</th><th>ceiling</th></tr>
 *   <tr><td>{@code maxInputBytes}: one input (ref, bytes or handle) and one encoded result</td>
 *       <td>25 MiB</td><td>{@code maxRunBytes}</td></tr>
 *   <tr><td>{@code maxPixels}: one image's decoded pixels</td><td>32 Mi (33,554,432)</td>
 *       <td>64 Mi</td></tr>
 *   <tr><td>{@code maxEdge}: one image's width or height</td><td>16,384</td><td>32,768</td></tr>
 *   <tr><td>{@code maxRunBytes}: total bytes of the handles one run holds</td><td>256 MiB</td>
 *       <td>2 GiB</td></tr>
 *   <tr><td>{@code maxRunCpu}: CPU time of one run's media work</td><td>the run's {@code
 *       timeout}</td><td>10 min</td></tr>
 *   <tr><td>{@code maxCanvasOps}: recorded operations per canvas</td><td>10,000</td>
 *       <td>100,000</td></tr>
 * </table>
 */
public final class MediaLimits {
    public static final long DEFAULT_MAX_INPUT_BYTES = 25L << 20;
    public static final long DEFAULT_MAX_PIXELS = 32L << 20;
    public static final int DEFAULT_MAX_EDGE = 16_384;
    public static final long DEFAULT_MAX_RUN_BYTES = 256L << 20;
    public static final int DEFAULT_MAX_CANVAS_OPS = 10_000;

    static final long CEILING_PIXELS = 64L << 20;
    static final int CEILING_EDGE = 32_768;
    static final long CEILING_RUN_BYTES = 2L << 30;
    static final Duration CEILING_RUN_CPU = Duration.ofMinutes(10);
    static final int CEILING_CANVAS_OPS = 100_000;

    private static final MediaLimits DEFAULTS = builder().build();

    private final long maxInputBytes;
    private final long maxPixels;
    private final int maxEdge;
    private final long maxRunBytes;
    private final Duration maxRunCpu;
    private final int maxCanvasOps;

    private MediaLimits(Builder b) {
        if (b.maxInputBytes > b.maxRunBytes) {
            throw new InvalidRequestException(
                    "maxInputBytes ("
                            + b.maxInputBytes
                            + ") must be <= maxRunBytes ("
                            + b.maxRunBytes
                            + ")");
        }
        this.maxInputBytes = b.maxInputBytes;
        this.maxPixels = b.maxPixels;
        this.maxEdge = b.maxEdge;
        this.maxRunBytes = b.maxRunBytes;
        this.maxRunCpu = b.maxRunCpu;
        this.maxCanvasOps = b.maxCanvasOps;
    }

    public static MediaLimits defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public long maxInputBytes() {
        return maxInputBytes;
    }

    public long maxPixels() {
        return maxPixels;
    }

    public int maxEdge() {
        return maxEdge;
    }

    public long maxRunBytes() {
        return maxRunBytes;
    }

    /** The CPU cap of a run's media work; empty means the run's own {@code timeout}. */
    public Optional<Duration> maxRunCpu() {
        return Optional.ofNullable(maxRunCpu);
    }

    public int maxCanvasOps() {
        return maxCanvasOps;
    }

    /** Each setter checks its value against its bound and names both when it is out. */
    public static final class Builder {
        private long maxInputBytes = DEFAULT_MAX_INPUT_BYTES;
        private long maxPixels = DEFAULT_MAX_PIXELS;
        private int maxEdge = DEFAULT_MAX_EDGE;
        private long maxRunBytes = DEFAULT_MAX_RUN_BYTES;
        private Duration maxRunCpu;
        private int maxCanvasOps = DEFAULT_MAX_CANVAS_OPS;

        private Builder() {}

        public Builder withMaxInputBytes(long bytes) {
            this.maxInputBytes = check("maxInputBytes", bytes, 1, CEILING_RUN_BYTES);
            return this;
        }

        public Builder withMaxPixels(long pixels) {
            this.maxPixels = check("maxPixels", pixels, 1, CEILING_PIXELS);
            return this;
        }

        public Builder withMaxEdge(int edge) {
            this.maxEdge = (int) check("maxEdge", edge, 1, CEILING_EDGE);
            return this;
        }

        public Builder withMaxRunBytes(long bytes) {
            this.maxRunBytes = check("maxRunBytes", bytes, 1, CEILING_RUN_BYTES);
            return this;
        }

        /** At least 1 ns, at most 10 min. */
        public Builder withMaxRunCpu(Duration cpu) {
            check("maxRunCpu (ns)", cpu.toNanos(), 1, CEILING_RUN_CPU.toNanos());
            this.maxRunCpu = cpu;
            return this;
        }

        public Builder withMaxCanvasOps(int ops) {
            this.maxCanvasOps = (int) check("maxCanvasOps", ops, 1, CEILING_CANVAS_OPS);
            return this;
        }

        public MediaLimits build() {
            return new MediaLimits(this);
        }

        private static long check(String name, long value, long min, long max) {
            if (value < min || value > max) {
                throw new InvalidRequestException(
                        name + " (" + value + ") must be between " + min + " and " + max);
            }
            return value;
        }
    }
}
