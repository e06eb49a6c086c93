package dev.sandjar.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link SandboxSession} is set up: its bridges (fixed for its life, since its state holds
 * their guest halves), the limits its calls default to (its {@code heapBytes} is the session's
 * memory limit, which a call cannot change), and how long it may sit idle. Immutable.
 */
public final class SessionOptions {
    /** The idle expiry when none is set. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(15);

    /** The longest idle expiry a session may have. */
    public static final Duration MAX_IDLE_TIMEOUT = Duration.ofDays(7);

    private final List<Bridge> bridges;
    private final Limits limits;
    private final Duration idleTimeout;

    private SessionOptions(Builder b) {
        this.bridges = List.copyOf(b.bridges);
        this.limits = b.limits;
        this.idleTimeout = b.idleTimeout;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** No bridges, the sandbox's default limits, a 15-minute idle expiry. */
    public static SessionOptions defaults() {
        return builder().build();
    }

    public List<Bridge> bridges() {
        return bridges;
    }

    public Limits limits() {
        return limits;
    }

    public Duration idleTimeout() {
        return idleTimeout;
    }

    public static final class Builder {
        private final List<Bridge> bridges = new ArrayList<>();
        private Limits limits = Limits.none();
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;

        private Builder() {}

        /** Adds a bridge every call of the session has. */
        public Builder bridge(Bridge bridge) {
            bridges.add(Objects.requireNonNull(bridge, "bridge"));
            return this;
        }

        public Builder bridges(List<Bridge> list) {
            list.forEach(this::bridge);
            return this;
        }

        /** Defaults for the session's calls; {@code heapBytes} is the session's memory limit. */
        public Builder limits(Limits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * How long the session may go without a call before it is closed; more than zero and at
         * most {@link #MAX_IDLE_TIMEOUT}.
         */
        public Builder idleTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "idleTimeout");
            if (timeout.isNegative()
                    || timeout.isZero()
                    || timeout.compareTo(MAX_IDLE_TIMEOUT) > 0) {
                throw new InvalidRequestException(
                        "idleTimeout must be more than 0 and at most "
                                + MAX_IDLE_TIMEOUT.toDays()
                                + " days, got "
                                + timeout);
            }
            this.idleTimeout = timeout;
            return this;
        }

        public SessionOptions build() {
            return new SessionOptions(this);
        }
    }
}
