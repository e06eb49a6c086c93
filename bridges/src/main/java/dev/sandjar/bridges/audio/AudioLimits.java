package dev.sandjar.bridges.audio;

import dev.sandjar.host.InvalidRequestException;

/**
 * Size caps for the {@code audio} capability. Immutable; each value is validated where it is set.
 *
 * <table>
 *   <caption>Limits</caption>
 *   <tr><th>Limit</th><th>Default</th><th>Ceiling</th></tr>
 *   <tr><td>{@code maxInputBytes}: one encoded input</td><td>64 MiB</td><td>512 MiB</td></tr>
 *   <tr><td>{@code maxSamples}: samples (frames &times; channels) one clip holds, read or
 *       made</td><td>32 Mi (about 6 minutes of 44.1 kHz stereo)</td><td>128 Mi</td></tr>
 *   <tr><td>{@code maxClips}: clips one {@code concat} or {@code mix} takes</td><td>64</td>
 *       <td>1,024</td></tr>
 * </table>
 *
 * <p>A clip is held decoded as 32-bit floats, so {@code maxSamples} of 32 Mi is 128 MiB of heap per
 * clip at most. A header that declares more samples than the cap is refused before anything is
 * decoded.
 */
public final class AudioLimits {
    private static final long MIB = 1L << 20;
    static final long INPUT_BYTES_CEILING = 512 * MIB;
    static final long SAMPLES_CEILING = 128 * MIB;
    static final int CLIPS_CEILING = 1024;

    private static final AudioLimits DEFAULTS = builder().build();

    private final long maxInputBytes;
    private final long maxSamples;
    private final int maxClips;

    private AudioLimits(Builder b) {
        this.maxInputBytes = b.maxInputBytes;
        this.maxSamples = b.maxSamples;
        this.maxClips = b.maxClips;
    }

    public static AudioLimits defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public long maxInputBytes() {
        return maxInputBytes;
    }

    public long maxSamples() {
        return maxSamples;
    }

    public int maxClips() {
        return maxClips;
    }

    @Override
    public String toString() {
        return "AudioLimits[maxInputBytes="
                + maxInputBytes
                + ", maxSamples="
                + maxSamples
                + ", maxClips="
                + maxClips
                + "]";
    }

    public static final class Builder {
        private long maxInputBytes = 64 * MIB;
        private long maxSamples = 32 * MIB;
        private int maxClips = 64;

        private Builder() {}

        public Builder withMaxInputBytes(long value) {
            maxInputBytes = checked("maxInputBytes", value, INPUT_BYTES_CEILING);
            return this;
        }

        public Builder withMaxSamples(long value) {
            maxSamples = checked("maxSamples", value, SAMPLES_CEILING);
            return this;
        }

        public Builder withMaxClips(int value) {
            maxClips = (int) checked("maxClips", value, CLIPS_CEILING);
            return this;
        }

        public AudioLimits build() {
            return new AudioLimits(this);
        }

        private static long checked(String name, long value, long ceiling) {
            if (value < 1 || value > ceiling) {
                throw new InvalidRequestException(
                        String.format("%s (%d) must be between 1 and %d", name, value, ceiling));
            }
            return value;
        }
    }
}
