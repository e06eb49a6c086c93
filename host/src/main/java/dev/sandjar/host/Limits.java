package dev.sandjar.host;

import dev.sandjar.quickjs.QuickJsEngine;
import java.time.Duration;
import java.util.Objects;

/**
 * The limits of a run. Immutable; {@code Limits.builder().timeout(..).heapBytes(..).build()}.
 *
 * <p>A {@code Limits} may leave any value unset. A run's effective limits are resolved in three
 * layers: the request's value, else the sandbox's default, else {@link #DEFAULTS}; the result is
 * then clamped to the sandbox's ceilings, which can only be lower than {@link #CEILINGS}. A caller
 * can tighten a limit or raise it within bounds, never switch a protection off: every limit has a
 * finite ceiling. {@link RunResult#limits()} reports what was in force.
 *
 * <table>
 *   <caption>Limits, defaults and ceilings</caption>
 *   <tr><th>limit</th><th>default</th><th>ceiling</th><th>enforced by</th></tr>
 *   <tr><td>{@code timeout}: CPU time of the guest and the host work it starts</td><td>30 s</td>
 *       <td>10 min</td><td>the interrupt handler, on the engine thread's CPU clock plus the
 *       host work's</td></tr>
 *   <tr><td>{@code wallTimeout}: elapsed time, less suspended time</td>
 *       <td>max(2 x timeout, timeout + 30 s)</td><td>1 h</td>
 *       <td>the interrupt handler and the event loop</td></tr>
 *   <tr><td>{@code suspendAllowance}: suspended time credited back</td><td>30 min</td>
 *       <td>24 h</td><td>{@link SandboxClock}</td></tr>
 *   <tr><td>{@code heapBytes}: guest heap</td><td>64 MiB</td><td>512 MiB</td>
 *       <td>QuickJS's allocator, plus a matching WebAssembly memory growth cap</td></tr>
 *   <tr><td>{@code stackBytes}: guest call stack</td><td>512 KiB</td><td>4 MiB</td>
 *       <td>QuickJS's stack check (the engine's shadow stack is 5 MiB)</td></tr>
 *   <tr><td>{@code outputBytes}: encoded result</td><td>100 KiB</td><td>10 MiB</td>
 *       <td>JSON characters plus sidecar bytes, checked before the host copies them</td></tr>
 *   <tr><td>{@code logLines}</td><td>1,000</td><td>100,000</td><td>the run's log</td></tr>
 *   <tr><td>{@code logChars}</td><td>1 Mi</td><td>64 Mi</td><td>the run's log</td></tr>
 *   <tr><td>{@code codeChars}: size of the code</td><td>1 Mi</td><td>16 Mi</td>
 *       <td>checked before anything is parsed</td></tr>
 *   <tr><td>{@code pendingOperations}: host operations in flight at once</td><td>1,000</td>
 *       <td>10,000</td><td>the bridge dispatcher</td></tr>
 *   <tr><td>{@code hostBytes}: memory one host call may take (decoding, parsing, rendering)</td>
 *       <td>256 MiB</td><td>2 GiB</td><td>the host meter (bytes an in-process call allocates)
 *       and the worker process (its live heap; docs/sandbox.md, "Host work")</td></tr>
 * </table>
 */
public final class Limits {
    /** The built-in defaults. */
    public static final Limits DEFAULTS =
            builder()
                    .timeout(Duration.ofSeconds(30))
                    .suspendAllowance(Duration.ofMinutes(30))
                    .heapBytes(64L << 20)
                    .stackBytes(512 << 10)
                    .outputBytes(100L << 10)
                    .logLines(1_000)
                    .logChars(1L << 20)
                    .codeChars(1 << 20)
                    .pendingOperations(1_000)
                    .hostBytes(256L << 20)
                    .build();

    /** The built-in ceilings: no sandbox or request can go past these. */
    public static final Limits CEILINGS =
            builder()
                    .timeout(Duration.ofMinutes(10))
                    .wallTimeout(Duration.ofHours(1))
                    .suspendAllowance(Duration.ofHours(24))
                    .heapBytes(512L << 20)
                    .stackBytes(QuickJsEngine.MAX_SAFE_STACK_BYTES)
                    .outputBytes(10L << 20)
                    .logLines(100_000)
                    .logChars(64L << 20)
                    .codeChars(16 << 20)
                    .pendingOperations(10_000)
                    .hostBytes(2L << 30)
                    .build();

    private final Duration timeout;
    private final Duration wallTimeout;
    private final Duration suspendAllowance;
    private final Long heapBytes;
    private final Integer stackBytes;
    private final Long outputBytes;
    private final Integer logLines;
    private final Long logChars;
    private final Integer codeChars;
    private final Integer pendingOperations;
    private final Long hostBytes;

    private Limits(Builder b) {
        timeout = b.timeout;
        wallTimeout = b.wallTimeout;
        suspendAllowance = b.suspendAllowance;
        heapBytes = b.heapBytes;
        stackBytes = b.stackBytes;
        outputBytes = b.outputBytes;
        logLines = b.logLines;
        logChars = b.logChars;
        codeChars = b.codeChars;
        pendingOperations = b.pendingOperations;
        hostBytes = b.hostBytes;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A limits object with nothing set: every value comes from the next layer. */
    public static Limits none() {
        return builder().build();
    }

    /** A builder holding this object's values, to change some of them. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.timeout = timeout;
        b.wallTimeout = wallTimeout;
        b.suspendAllowance = suspendAllowance;
        b.heapBytes = heapBytes;
        b.stackBytes = stackBytes;
        b.outputBytes = outputBytes;
        b.logLines = logLines;
        b.logChars = logChars;
        b.codeChars = codeChars;
        b.pendingOperations = pendingOperations;
        b.hostBytes = hostBytes;
        return b;
    }

    /**
     * CPU time the run may use: the engine thread's (guest code) plus the host work it starts (host
     * modules, media, canvas), together; null when unset.
     */
    public Duration timeout() {
        return timeout;
    }

    /** Elapsed time the run may take, not counting suspended time; null when unset. */
    public Duration wallTimeout() {
        return wallTimeout;
    }

    public Duration suspendAllowance() {
        return suspendAllowance;
    }

    public Long heapBytes() {
        return heapBytes;
    }

    public Integer stackBytes() {
        return stackBytes;
    }

    public Long outputBytes() {
        return outputBytes;
    }

    public Integer logLines() {
        return logLines;
    }

    public Long logChars() {
        return logChars;
    }

    public Integer codeChars() {
        return codeChars;
    }

    public Integer pendingOperations() {
        return pendingOperations;
    }

    /**
     * Memory one host call of the run may take while it works (decoding an image, parsing a
     * document, rendering a canvas); null when unset. A call past it fails with a {@code
     * RangeError} of code {@code HOST_MEMORY_LIMIT} and the run goes on (docs/sandbox.md, "Host
     * work").
     */
    public Long hostBytes() {
        return hostBytes;
    }

    /**
     * Each value of this object, else of {@code fallback}; then clamped to {@code ceilings}. Every
     * value of the result is set ({@code fallback} and {@code ceilings} must be complete).
     */
    Limits resolve(Limits fallback, Limits ceilings) {
        Builder b = new Builder();
        b.timeout = min(pick(timeout, fallback.timeout), ceilings.timeout);
        Duration wall = wallTimeout != null ? wallTimeout : fallback.wallTimeout;
        if (wall == null) {
            Duration twice = b.timeout.multipliedBy(2);
            Duration plus = b.timeout.plusSeconds(30);
            wall = twice.compareTo(plus) > 0 ? twice : plus;
        }
        b.wallTimeout = min(wall, ceilings.wallTimeout);
        b.suspendAllowance =
                min(pick(suspendAllowance, fallback.suspendAllowance), ceilings.suspendAllowance);
        b.heapBytes = Math.min(pick(heapBytes, fallback.heapBytes), ceilings.heapBytes);
        b.stackBytes = Math.min(pick(stackBytes, fallback.stackBytes), ceilings.stackBytes);
        b.outputBytes = Math.min(pick(outputBytes, fallback.outputBytes), ceilings.outputBytes);
        b.logLines = Math.min(pick(logLines, fallback.logLines), ceilings.logLines);
        b.logChars = Math.min(pick(logChars, fallback.logChars), ceilings.logChars);
        b.codeChars = Math.min(pick(codeChars, fallback.codeChars), ceilings.codeChars);
        b.pendingOperations =
                Math.min(
                        pick(pendingOperations, fallback.pendingOperations),
                        ceilings.pendingOperations);
        b.hostBytes = Math.min(pick(hostBytes, fallback.hostBytes), ceilings.hostBytes);
        return new Limits(b);
    }

    /** This object's values over {@code base}'s, without clamping. */
    Limits over(Limits base) {
        Builder b = base.toBuilder();
        b.timeout = pick(timeout, base.timeout);
        b.wallTimeout = pick(wallTimeout, base.wallTimeout);
        b.suspendAllowance = pick(suspendAllowance, base.suspendAllowance);
        b.heapBytes = pick(heapBytes, base.heapBytes);
        b.stackBytes = pick(stackBytes, base.stackBytes);
        b.outputBytes = pick(outputBytes, base.outputBytes);
        b.logLines = pick(logLines, base.logLines);
        b.logChars = pick(logChars, base.logChars);
        b.codeChars = pick(codeChars, base.codeChars);
        b.pendingOperations = pick(pendingOperations, base.pendingOperations);
        b.hostBytes = pick(hostBytes, base.hostBytes);
        return new Limits(b);
    }

    /** Throws when a value set here is above the same value in {@code bound}. */
    void checkAtMost(Limits bound, String what) {
        atMost("timeout", timeout, bound.timeout, what);
        atMost("wallTimeout", wallTimeout, bound.wallTimeout, what);
        atMost("suspendAllowance", suspendAllowance, bound.suspendAllowance, what);
        atMost("heapBytes", heapBytes, bound.heapBytes, what);
        atMost("stackBytes", stackBytes, bound.stackBytes, what);
        atMost("outputBytes", outputBytes, bound.outputBytes, what);
        atMost("logLines", logLines, bound.logLines, what);
        atMost("logChars", logChars, bound.logChars, what);
        atMost("codeChars", codeChars, bound.codeChars, what);
        atMost("pendingOperations", pendingOperations, bound.pendingOperations, what);
        atMost("hostBytes", hostBytes, bound.hostBytes, what);
    }

    private static <T extends Comparable<T>> void atMost(String name, T v, T bound, String what) {
        if (v != null && bound != null && v.compareTo(bound) > 0) {
            throw new InvalidRequestException(
                    name + " (" + v + ") must be <= the " + what + " " + bound);
        }
    }

    private static <T> T pick(T value, T fallback) {
        return value != null ? value : fallback;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Limits l
                && Objects.equals(timeout, l.timeout)
                && Objects.equals(wallTimeout, l.wallTimeout)
                && Objects.equals(suspendAllowance, l.suspendAllowance)
                && Objects.equals(heapBytes, l.heapBytes)
                && Objects.equals(stackBytes, l.stackBytes)
                && Objects.equals(outputBytes, l.outputBytes)
                && Objects.equals(logLines, l.logLines)
                && Objects.equals(logChars, l.logChars)
                && Objects.equals(codeChars, l.codeChars)
                && Objects.equals(pendingOperations, l.pendingOperations)
                && Objects.equals(hostBytes, l.hostBytes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                timeout,
                wallTimeout,
                suspendAllowance,
                heapBytes,
                stackBytes,
                outputBytes,
                logLines,
                logChars,
                codeChars,
                pendingOperations,
                hostBytes);
    }

    @Override
    public String toString() {
        return "Limits[timeout="
                + timeout
                + ", wallTimeout="
                + wallTimeout
                + ", suspendAllowance="
                + suspendAllowance
                + ", heapBytes="
                + heapBytes
                + ", stackBytes="
                + stackBytes
                + ", outputBytes="
                + outputBytes
                + ", logLines="
                + logLines
                + ", logChars="
                + logChars
                + ", codeChars="
                + codeChars
                + ", pendingOperations="
                + pendingOperations
                + ", hostBytes="
                + hostBytes
                + "]";
    }

    /** Each setter validates its value's lower bound; ceilings are applied when a run resolves. */
    public static final class Builder {
        private Duration timeout;
        private Duration wallTimeout;
        private Duration suspendAllowance;
        private Long heapBytes;
        private Integer stackBytes;
        private Long outputBytes;
        private Integer logLines;
        private Long logChars;
        private Integer codeChars;
        private Integer pendingOperations;
        private Long hostBytes;

        private Builder() {}

        /** CPU time of the guest and its host work together; at least 1 ms. */
        public Builder timeout(Duration d) {
            timeout = atLeast("timeout", d, Duration.ofMillis(1));
            return this;
        }

        /** Elapsed time less suspended time; at least 1 ms. */
        public Builder wallTimeout(Duration d) {
            wallTimeout = atLeast("wallTimeout", d, Duration.ofMillis(1));
            return this;
        }

        /** How much suspended time a {@link SandboxClock} may credit back; at least 0. */
        public Builder suspendAllowance(Duration d) {
            suspendAllowance = atLeast("suspendAllowance", d, Duration.ZERO);
            return this;
        }

        /** At least 1 MiB. */
        public Builder heapBytes(long bytes) {
            heapBytes = atLeast("heapBytes", bytes, 1L << 20);
            return this;
        }

        /** At least 64 KiB. */
        public Builder stackBytes(int bytes) {
            stackBytes = (int) atLeast("stackBytes", bytes, 64L << 10);
            return this;
        }

        /** At least 1 KiB. */
        public Builder outputBytes(long bytes) {
            outputBytes = atLeast("outputBytes", bytes, 1024);
            return this;
        }

        /** At least 1. */
        public Builder logLines(int lines) {
            logLines = (int) atLeast("logLines", lines, 1);
            return this;
        }

        /** At least 80. */
        public Builder logChars(long chars) {
            logChars = atLeast("logChars", chars, 80);
            return this;
        }

        /** At least 1. */
        public Builder codeChars(int chars) {
            codeChars = (int) atLeast("codeChars", chars, 1);
            return this;
        }

        /** At least 1. */
        public Builder pendingOperations(int n) {
            pendingOperations = (int) atLeast("pendingOperations", n, 1);
            return this;
        }

        /** At least 1 MiB. */
        public Builder hostBytes(long bytes) {
            hostBytes = atLeast("hostBytes", bytes, 1L << 20);
            return this;
        }

        public Limits build() {
            return new Limits(this);
        }

        private static Duration atLeast(String name, Duration d, Duration min) {
            Objects.requireNonNull(d, name);
            if (d.compareTo(min) < 0) {
                throw new InvalidRequestException(
                        name + " (" + d.toMillis() + " ms) must be >= " + min.toMillis() + " ms");
            }
            return d;
        }

        private static long atLeast(String name, long v, long min) {
            if (v < min) {
                throw new InvalidRequestException(name + " (" + v + ") must be >= " + min);
            }
            return v;
        }
    }
}
