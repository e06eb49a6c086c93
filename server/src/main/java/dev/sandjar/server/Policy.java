package dev.sandjar.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.bridges.Capabilities;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What runs under one token may do: which capabilities a request may ask for, which secrets, the
 * ceilings a request's limits stay under, which packs it may import (and have delivered), how many
 * of its runs may be in flight at once, and its share of the server's sessions ({@link Quotas}).
 * Immutable.
 *
 * <p>Capability names: the default capabilities ({@value #DEFAULT_NAMES}) that the token's runs
 * get, and {@code fetch}, {@code allowPrivateNetwork}, {@code workspace}, {@code secrets}, {@code
 * video} that a request may ask for. A default capability the policy does not list is withheld from
 * its runs.
 *
 * @param capabilities the capability names above
 * @param secrets the secret names a request may ask for (with {@code secrets})
 * @param maxTimeoutMs the ceiling of a request's {@code timeoutMs} (and its default's)
 * @param maxMemoryMb the ceiling of a request's {@code memoryMb} (and its default's)
 * @param packs the packs its runs may import, by name; empty when all may be
 * @param maxConcurrentRuns how many of its runs may be admitted at once
 * @param quotas its live sessions, session bytes on disk and forks per minute
 */
public record Policy(
        Set<String> capabilities,
        Set<String> secrets,
        long maxTimeoutMs,
        long maxMemoryMb,
        Optional<Set<String>> packs,
        int maxConcurrentRuns,
        Quotas quotas) {
    static final String DEFAULT_NAMES =
            "console, sleep, crypto, format, progress, helpers, media, image, canvas, audio";

    /** Every capability name a policy may list. */
    public static final Set<String> CAPABILITY_NAMES;

    static {
        Set<String> names = new LinkedHashSet<>(Capabilities.DEFAULTS);
        names.addAll(List.of("fetch", "allowPrivateNetwork", "workspace", "secrets", "video"));
        CAPABILITY_NAMES = Set.copyOf(names);
    }

    /** The fields of a policy's JSON: its own and its quotas'. */
    private static final Set<String> FIELDS;

    static {
        Set<String> fields =
                new LinkedHashSet<>(
                        List.of(
                                "capabilities",
                                "secrets",
                                "maxTimeoutMs",
                                "maxMemoryMb",
                                "packs",
                                "maxConcurrentRuns"));
        fields.addAll(Quotas.FIELDS);
        FIELDS = Set.copyOf(fields);
    }

    public Policy {
        Objects.requireNonNull(quotas, "quotas");
        capabilities = Set.copyOf(capabilities);
        secrets = Set.copyOf(secrets);
        packs = packs.map(Set::copyOf);
        for (String c : capabilities) {
            if (!CAPABILITY_NAMES.contains(c)) {
                throw new IllegalArgumentException(
                        "unknown capability '"
                                + c
                                + "'; the names are "
                                + sorted(CAPABILITY_NAMES));
            }
        }
        if (capabilities.contains("allowPrivateNetwork") && !capabilities.contains("fetch")) {
            throw new IllegalArgumentException("capability allowPrivateNetwork needs fetch");
        }
        if (!secrets.isEmpty() && !capabilities.contains("secrets")) {
            throw new IllegalArgumentException(
                    "secret names are listed without the capability secrets");
        }
        if (maxTimeoutMs < 1) {
            throw new IllegalArgumentException("maxTimeoutMs (" + maxTimeoutMs + ") must be >= 1");
        }
        if (maxMemoryMb < 1) {
            throw new IllegalArgumentException("maxMemoryMb (" + maxMemoryMb + ") must be >= 1");
        }
        if (maxConcurrentRuns < 1) {
            throw new IllegalArgumentException(
                    "maxConcurrentRuns (" + maxConcurrentRuns + ") must be >= 1");
        }
    }

    /** A policy with the {@link Quotas#DEFAULTS default quotas}. */
    public Policy(
            Set<String> capabilities,
            Set<String> secrets,
            long maxTimeoutMs,
            long maxMemoryMb,
            Optional<Set<String>> packs,
            int maxConcurrentRuns) {
        this(
                capabilities,
                secrets,
                maxTimeoutMs,
                maxMemoryMb,
                packs,
                maxConcurrentRuns,
                Quotas.DEFAULTS);
    }

    /**
     * The policy with everything a server allows: every capability, every secret name the server
     * holds, its ceilings, every pack, all its admission slots and the quotas its bounds allow.
     * {@code --insecure-no-auth}'s one tenant runs under it.
     */
    public static Policy unrestricted(
            Set<String> secretNames,
            long maxTimeoutMs,
            long maxMemoryMb,
            int maxConcurrentRuns,
            Quotas quotas) {
        return new Policy(
                CAPABILITY_NAMES,
                secretNames,
                maxTimeoutMs,
                maxMemoryMb,
                Optional.empty(),
                maxConcurrentRuns,
                quotas);
    }

    /** Whether a run under this policy may import (or have delivered) a module of {@code pack}. */
    public boolean allowsPack(String pack) {
        return packs.isEmpty() || packs.get().contains(pack);
    }

    /** This policy with another {@code maxConcurrentRuns}. */
    Policy withMaxConcurrentRuns(int n) {
        return new Policy(capabilities, secrets, maxTimeoutMs, maxMemoryMb, packs, n, quotas);
    }

    /**
     * A policy from its JSON form; fields left out take {@code base}'s value, but quotas, which
     * take {@link Quotas#DEFAULTS} under {@code base}'s as their bounds (so a token without a
     * policy still has a share, not the whole server). A field this version does not know is
     * refused, naming it: a typo must never widen or narrow a policy silently.
     */
    static Policy fromJson(JsonNode node, Policy base, String where) {
        if (node == null || node.isNull()) {
            return new Policy(
                    base.capabilities,
                    base.secrets,
                    base.maxTimeoutMs,
                    base.maxMemoryMb,
                    base.packs,
                    base.maxConcurrentRuns,
                    Quotas.fromJson(null, base.quotas));
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException(where + ": policy must be an object");
        }
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String f = field.getKey();
            if (!FIELDS.contains(f)) {
                throw new IllegalArgumentException(
                        where
                                + ": unknown policy field '"
                                + f
                                + "'; the fields are "
                                + sorted(FIELDS));
            }
        }
        try {
            return new Policy(
                    node.has("capabilities")
                            ? names(node.get("capabilities"), "capabilities")
                            : base.capabilities,
                    node.has("secrets") ? names(node.get("secrets"), "secrets") : Set.of(),
                    node.has("maxTimeoutMs")
                            ? atMost(node.get("maxTimeoutMs"), "maxTimeoutMs", base.maxTimeoutMs)
                            : base.maxTimeoutMs,
                    node.has("maxMemoryMb")
                            ? atMost(node.get("maxMemoryMb"), "maxMemoryMb", base.maxMemoryMb)
                            : base.maxMemoryMb,
                    node.has("packs")
                            ? Optional.of(names(node.get("packs"), "packs"))
                            : Optional.empty(),
                    node.has("maxConcurrentRuns")
                            ? Math.toIntExact(
                                    atMost(
                                            node.get("maxConcurrentRuns"),
                                            "maxConcurrentRuns",
                                            base.maxConcurrentRuns))
                            : base.maxConcurrentRuns,
                    Quotas.fromJson(node, base.quotas));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private static Set<String> names(JsonNode node, String field) {
        if (!node.isArray()) {
            throw new IllegalArgumentException(field + " must be an array of strings");
        }
        Set<String> out = new LinkedHashSet<>();
        for (JsonNode n : node) {
            if (!n.isTextual() || n.asText().isEmpty()) {
                throw new IllegalArgumentException(
                        field + " must be an array of non-empty strings");
            }
            out.add(n.asText());
        }
        return out;
    }

    /** A whole number from 1 to {@code bound}, or a message naming the field and the bound. */
    static long atMost(JsonNode node, String field, long bound) {
        if (!node.canConvertToExactIntegral() || !node.canConvertToLong()) {
            throw new IllegalArgumentException(field + " must be a whole number");
        }
        long v = node.asLong();
        if (v < 1 || v > bound) {
            throw new IllegalArgumentException(
                    field + " (" + v + ") must be between 1 and the server's bound " + bound);
        }
        return v;
    }

    static List<String> sorted(Set<String> names) {
        List<String> out = new ArrayList<>(names);
        out.sort(null);
        return out;
    }
}
