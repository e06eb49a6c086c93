package dev.sandjar.bridges.video;

import dev.sandjar.host.InvalidRequestException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Semaphore;

/**
 * Where the host's {@code ffmpeg} and {@code ffprobe} are and how far one call may go. Immutable;
 * each value is validated where it is set.
 *
 * <table>
 *   <caption>Limits</caption>
 *   <tr><th>Limit</th><th>Default</th><th>Ceiling</th><th>Error when hit</th></tr>
 *   <tr><td>{@code maxInputBytes}: one input (video or audio)</td><td>128 MiB</td><td>1 GiB</td>
 *       <td>TOO_LARGE</td></tr>
 *   <tr><td>{@code maxOutputBytes}: the file one call makes</td><td>128 MiB</td><td>1 GiB</td>
 *       <td>TOO_LARGE</td></tr>
 *   <tr><td>{@code timeout}: wall clock of one call, waiting for a process slot included</td>
 *       <td>60 s</td><td>10 min</td><td>TIMEOUT</td></tr>
 *   <tr><td>{@code maxProcesses}: ffmpeg and ffprobe processes running at once, for every run
 *       this configuration serves</td><td>2</td><td>16</td><td>BUSY (after waiting for the
 *       call's timeout)</td></tr>
 *   <tr><td>{@code maxEdge}: width or height a resize asks for</td><td>4,096 px</td>
 *       <td>16,384 px</td><td>RangeError</td></tr>
 * </table>
 *
 * <p>{@code maxProcesses} is counted per configuration object: every {@code Video} bridge built on
 * one instance, for any number of runs, shares its slots.
 *
 * <p>By default the binaries are the first {@code ffmpeg} and {@code ffprobe} on the JVM's {@code
 * PATH}, found when {@link Builder#build()} runs; {@link #available()} says whether both were.
 */
public final class VideoConfig {
    private static final long MIB = 1L << 20;
    static final long BYTES_CEILING = 1024 * MIB;
    static final Duration TIMEOUT_CEILING = Duration.ofMinutes(10);
    static final int PROCESSES_CEILING = 16;
    static final int EDGE_CEILING = 16_384;

    private final Path ffmpeg;
    private final Path ffprobe;
    private final long maxInputBytes;
    private final long maxOutputBytes;
    private final Duration timeout;
    private final int maxProcesses;
    private final int maxEdge;
    private final Semaphore slots;

    private VideoConfig(Builder b) {
        this.ffmpeg = b.ffmpeg != null ? b.ffmpeg : onPath("ffmpeg").orElse(null);
        this.ffprobe = b.ffprobe != null ? b.ffprobe : onPath("ffprobe").orElse(null);
        this.maxInputBytes = b.maxInputBytes;
        this.maxOutputBytes = b.maxOutputBytes;
        this.timeout = b.timeout;
        this.maxProcesses = b.maxProcesses;
        this.maxEdge = b.maxEdge;
        this.slots = new Semaphore(maxProcesses, true);
    }

    /** The binaries on {@code PATH} and the default limits. */
    public static VideoConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Whether both binaries exist and are executable. */
    public boolean available() {
        return ffmpeg != null
                && ffprobe != null
                && Files.isExecutable(ffmpeg)
                && Files.isExecutable(ffprobe);
    }

    /** The ffmpeg binary, when one was given or found. */
    public Optional<Path> ffmpeg() {
        return Optional.ofNullable(ffmpeg);
    }

    /** The ffprobe binary, when one was given or found. */
    public Optional<Path> ffprobe() {
        return Optional.ofNullable(ffprobe);
    }

    public long maxInputBytes() {
        return maxInputBytes;
    }

    public long maxOutputBytes() {
        return maxOutputBytes;
    }

    public Duration timeout() {
        return timeout;
    }

    public int maxProcesses() {
        return maxProcesses;
    }

    public int maxEdge() {
        return maxEdge;
    }

    /** The process slots every bridge built on this configuration shares. */
    Semaphore slots() {
        return slots;
    }

    @Override
    public String toString() {
        return "VideoConfig[ffmpeg="
                + ffmpeg
                + ", ffprobe="
                + ffprobe
                + ", maxInputBytes="
                + maxInputBytes
                + ", maxOutputBytes="
                + maxOutputBytes
                + ", timeout="
                + timeout
                + ", maxProcesses="
                + maxProcesses
                + ", maxEdge="
                + maxEdge
                + "]";
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue; // an empty entry means the working directory: never trusted
            }
            Path candidate = Path.of(dir, name);
            if (candidate.isAbsolute() && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    public static final class Builder {
        private Path ffmpeg;
        private Path ffprobe;
        private long maxInputBytes = 128 * MIB;
        private long maxOutputBytes = 128 * MIB;
        private Duration timeout = Duration.ofSeconds(60);
        private int maxProcesses = 2;
        private int maxEdge = 4096;

        private Builder() {}

        /** The ffmpeg binary to run, an absolute path chosen by the host. */
        public Builder withFfmpeg(Path path) {
            this.ffmpeg = absolute("ffmpeg", path);
            return this;
        }

        /** The ffprobe binary to run, an absolute path chosen by the host. */
        public Builder withFfprobe(Path path) {
            this.ffprobe = absolute("ffprobe", path);
            return this;
        }

        public Builder withMaxInputBytes(long value) {
            maxInputBytes = checked("maxInputBytes", value, BYTES_CEILING);
            return this;
        }

        public Builder withMaxOutputBytes(long value) {
            maxOutputBytes = checked("maxOutputBytes", value, BYTES_CEILING);
            return this;
        }

        public Builder withTimeout(Duration value) {
            Objects.requireNonNull(value, "timeout");
            if (value.isNegative() || value.isZero() || value.compareTo(TIMEOUT_CEILING) > 0) {
                throw new InvalidRequestException(
                        "timeout ("
                                + value
                                + ") must be more than 0 and at most "
                                + TIMEOUT_CEILING);
            }
            timeout = value;
            return this;
        }

        public Builder withMaxProcesses(int value) {
            maxProcesses = (int) checked("maxProcesses", value, PROCESSES_CEILING);
            return this;
        }

        public Builder withMaxEdge(int value) {
            maxEdge = (int) checked("maxEdge", value, EDGE_CEILING);
            return this;
        }

        public VideoConfig build() {
            return new VideoConfig(this);
        }

        private static Path absolute(String name, Path path) {
            Objects.requireNonNull(path, name);
            if (!path.isAbsolute()) {
                throw new InvalidRequestException(
                        name + " (" + path + ") must be an absolute path");
            }
            return path;
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
