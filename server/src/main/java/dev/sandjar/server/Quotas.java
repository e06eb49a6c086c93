package dev.sandjar.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;

/**
 * A token's share of what the server's tenants share, beside {@link Policy#maxConcurrentRuns()}
 * (docs/server.md, "Tokens and policies"). A token at one of its quotas is refused (429, naming the
 * quota and its value); another token is not. The server's own caps stay the outer bound.
 *
 * <p>Every quota is here: its field (the same name in the token file), its default, its bound and
 * its check, so a new quota is one more component and one more line in each of {@link #DEFAULTS},
 * {@link #bounds}, {@link #FIELDS}, {@link #fromJson} and the compact constructor. Immutable.
 *
 * @param maxSessions live sessions the token holds at once: opened, forked and restored ones
 * @param maxSessionBytes bytes of the token's session files under {@code --sessions-dir}
 * @param maxForksPerMinute forks the token makes in any 60 seconds (a sliding window)
 * @param maxHostMemoryBytes host memory the token's runs hold at once on the server (media handles,
 *     results crossing from worker processes, in-process host calls: {@code HostMemory},
 *     docs/sandbox.md, "Host work"), and the ceiling of a request's {@code limits.hostMemoryMb}
 * @param maxBodyBytesPerMinute bytes of request bodies the token sends in any 60 seconds (a sliding
 *     window): parsing a body costs the server's CPU and heap before any run starts
 */
public record Quotas(
        int maxSessions,
        long maxSessionBytes,
        int maxForksPerMinute,
        long maxHostMemoryBytes,
        long maxBodyBytesPerMinute) {
    /** What a token whose policy names no quota gets (each capped by the server's bound). */
    public static final Quotas DEFAULTS = new Quotas(10, 1L << 30, 60, 256L << 20, 256L << 20);

    /** The quotas of an earlier version, with the defaults of the later ones. */
    public Quotas(int maxSessions, long maxSessionBytes, int maxForksPerMinute) {
        this(
                maxSessions,
                maxSessionBytes,
                maxForksPerMinute,
                DEFAULTS.maxHostMemoryBytes,
                DEFAULTS.maxBodyBytesPerMinute);
    }

    /** The largest {@code maxSessionBytes} a server allows: 1 PiB, in effect no bound. */
    static final long MAX_SESSION_BYTES = 1L << 50;

    /** The largest {@code maxForksPerMinute} a server allows. */
    static final int MAX_FORKS_PER_MINUTE = 100_000;

    /** The policy fields that are quotas. */
    static final Set<String> FIELDS =
            Set.of(
                    "maxSessions",
                    "maxSessionBytes",
                    "maxForksPerMinute",
                    "maxHostMemoryBytes",
                    "maxBodyBytesPerMinute");

    /** The largest {@code maxHostMemoryBytes} a server allows: 1 PiB, in effect no bound. */
    static final long MAX_HOST_MEMORY_BYTES = 1L << 50;

    public Quotas {
        if (maxSessions < 1) {
            throw new IllegalArgumentException("maxSessions (" + maxSessions + ") must be >= 1");
        }
        if (maxSessionBytes < 1) {
            throw new IllegalArgumentException(
                    "maxSessionBytes (" + maxSessionBytes + ") must be >= 1");
        }
        if (maxForksPerMinute < 1) {
            throw new IllegalArgumentException(
                    "maxForksPerMinute (" + maxForksPerMinute + ") must be >= 1");
        }
        if (maxBodyBytesPerMinute < 1024) {
            throw new IllegalArgumentException(
                    "maxBodyBytesPerMinute (" + maxBodyBytesPerMinute + ") must be >= 1024");
        }
        if (maxHostMemoryBytes < (1L << 20)) {
            throw new IllegalArgumentException(
                    "maxHostMemoryBytes (" + maxHostMemoryBytes + ") must be >= 1048576");
        }
    }

    /**
     * The bounds of a server whose sandbox holds at most {@code serverMaxSessions} sessions: what a
     * token's quotas may not exceed, and what {@code --insecure-no-auth}'s one tenant gets.
     */
    static Quotas bounds(int serverMaxSessions) {
        return new Quotas(
                serverMaxSessions,
                MAX_SESSION_BYTES,
                MAX_FORKS_PER_MINUTE,
                MAX_HOST_MEMORY_BYTES,
                MAX_HOST_MEMORY_BYTES);
    }

    /**
     * The quotas a policy's JSON names, each between 1 and {@code bound}'s; one it leaves out (or a
     * token without a policy, {@code policy} null) takes {@link #DEFAULTS}' value, capped by {@code
     * bound}'s.
     */
    static Quotas fromJson(JsonNode policy, Quotas bound) {
        return new Quotas(
                Math.toIntExact(
                        quota(policy, "maxSessions", DEFAULTS.maxSessions, bound.maxSessions)),
                quota(policy, "maxSessionBytes", DEFAULTS.maxSessionBytes, bound.maxSessionBytes),
                Math.toIntExact(
                        quota(
                                policy,
                                "maxForksPerMinute",
                                DEFAULTS.maxForksPerMinute,
                                bound.maxForksPerMinute)),
                quota(
                        policy,
                        "maxHostMemoryBytes",
                        DEFAULTS.maxHostMemoryBytes,
                        bound.maxHostMemoryBytes),
                quota(
                        policy,
                        "maxBodyBytesPerMinute",
                        DEFAULTS.maxBodyBytesPerMinute,
                        bound.maxBodyBytesPerMinute));
    }

    private static long quota(JsonNode policy, String field, long fallback, long bound) {
        if (policy == null || !policy.has(field)) {
            return Math.min(fallback, bound);
        }
        return Policy.atMost(policy.get(field), field, bound);
    }
}
