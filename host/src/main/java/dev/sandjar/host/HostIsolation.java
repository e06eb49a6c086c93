package dev.sandjar.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a sandbox runs {@link IsolatedTask}s: in worker processes ({@link #processes()}, the
 * default) or in the sandbox's own JVM ({@link #inProcess()}). Immutable.
 *
 * <p>A worker is a JVM started from the sandbox's own {@code java} and class path, with a heap of
 * its own ({@link Builder#withHeapBytes}, 512 MiB by default) and {@code
 * -XX:+ExitOnOutOfMemoryError}: a document or image that makes its parser run out of memory or time
 * ends that process, the call fails with a clear error, and the worker is replaced; the sandbox's
 * heap and every other run are untouched. Workers start when the first isolated call needs one
 * (about half a second), serve calls one at a time, and stop after {@link Builder#withIdleTimeout}
 * without work. Each call costs a copy of its input and result through a pipe (docs/sandbox.md,
 * "Host work", has the measured cost).
 *
 * <p>{@link #inProcess()} runs the same tasks on the sandbox's threads under the same budgets, but
 * can stop them only where they call {@link HostCall#check()}: third-party code that runs away
 * inside one step is stopped only by the JVM itself. Use it where starting processes is not
 * possible, or for a single-tenant tool.
 */
public final class HostIsolation {
    /** Most worker processes a sandbox may run. */
    public static final int MAX_WORKERS = 64;

    private final boolean processes;
    private final int workers;
    private final long heapBytes;
    private final List<String> jvmOptions;
    private final String classPath;
    private final Path javaCommand;
    private final Duration idleTimeout;

    private HostIsolation(Builder b, boolean processes) {
        this.processes = processes;
        this.workers = b.workers;
        this.heapBytes = b.heapBytes;
        this.jvmOptions = List.copyOf(b.jvmOptions);
        this.classPath = b.classPath;
        this.javaCommand = b.javaCommand;
        this.idleTimeout = b.idleTimeout;
    }

    /** Worker processes with the default settings. */
    public static HostIsolation processes() {
        return builder().build();
    }

    /** Isolated tasks run on the sandbox's own threads (see the class comment for what is lost). */
    public static HostIsolation inProcess() {
        return new HostIsolation(new Builder(), false);
    }

    /** Worker processes with settings of their own. */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether tasks run in worker processes. */
    public boolean usesProcesses() {
        return processes;
    }

    /** Worker processes at most; 0 means as many as the sandbox has engines, at most 4. */
    public int workers() {
        return workers;
    }

    public long heapBytes() {
        return heapBytes;
    }

    /** Extra options for each worker's JVM, after Sandjar's own. */
    public List<String> jvmOptions() {
        return jvmOptions;
    }

    /** The workers' class path; empty for this JVM's {@code java.class.path}. */
    public Optional<String> classPath() {
        return Optional.ofNullable(classPath);
    }

    /** The {@code java} that starts workers; empty for this JVM's own. */
    public Optional<Path> javaCommand() {
        return Optional.ofNullable(javaCommand);
    }

    public Duration idleTimeout() {
        return idleTimeout;
    }

    @Override
    public String toString() {
        return processes
                ? "HostIsolation[processes, workers="
                        + (workers == 0 ? "pool size, at most 4" : workers)
                        + ", heapBytes="
                        + heapBytes
                        + "]"
                : "HostIsolation[in process]";
    }

    /** Each setter validates its value where it is set. */
    public static final class Builder {
        private int workers;
        private long heapBytes = 512L << 20;
        private List<String> jvmOptions = List.of();
        private String classPath;
        private Path javaCommand;
        private Duration idleTimeout = Duration.ofSeconds(60);

        private Builder() {}

        /**
         * Worker processes at most, 1 to {@link #MAX_WORKERS}; by default the pool size, at most 4.
         */
        public Builder withWorkers(int n) {
            if (n < 1 || n > MAX_WORKERS) {
                throw new InvalidRequestException(
                        "workers (" + n + ") must be between 1 and " + MAX_WORKERS);
            }
            this.workers = n;
            return this;
        }

        /** Each worker's maximum heap ({@code -Xmx}), 64 MiB to 16 GiB; 512 MiB by default. */
        public Builder withHeapBytes(long bytes) {
            if (bytes < (64L << 20) || bytes > (16L << 30)) {
                throw new InvalidRequestException(
                        "heapBytes (" + bytes + ") must be between 64 MiB and 16 GiB");
            }
            this.heapBytes = bytes;
            return this;
        }

        /**
         * Extra JVM options for the workers (a system property, a GC log); options that set the
         * heap or the class path are refused, since the builder owns those.
         */
        public Builder withJvmOptions(List<String> options) {
            for (String o : options) {
                Objects.requireNonNull(o, "jvm option");
                if (o.startsWith("-Xmx")
                        || o.startsWith("-Xms")
                        || o.equals("-cp")
                        || o.equals("-classpath")
                        || o.startsWith("--class-path")) {
                    throw new InvalidRequestException(
                            "jvm option '" + o + "' is set by HostIsolation itself");
                }
            }
            this.jvmOptions = List.copyOf(options);
            return this;
        }

        /**
         * The class path the workers run with, when this JVM's {@code java.class.path} does not
         * hold the task classes (an application started from a single executable jar that unpacks
         * its libraries itself).
         */
        public Builder withClassPath(String classPath) {
            if (classPath.isBlank()) {
                throw new InvalidRequestException("classPath must not be blank");
            }
            this.classPath = classPath;
            return this;
        }

        /** The {@code java} executable the workers start with. */
        public Builder withJavaCommand(Path java) {
            this.javaCommand = Objects.requireNonNull(java, "java");
            return this;
        }

        /** How long a worker waits for work before it exits, 1 s to 1 h; 60 s by default. */
        public Builder withIdleTimeout(Duration d) {
            if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(Duration.ofHours(1)) > 0) {
                throw new InvalidRequestException(
                        "idleTimeout (" + d.toMillis() + " ms) must be between 1 s and 1 h");
            }
            this.idleTimeout = d;
            return this;
        }

        public HostIsolation build() {
            return new HostIsolation(this, true);
        }
    }
}
