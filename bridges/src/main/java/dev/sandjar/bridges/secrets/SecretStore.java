package dev.sandjar.bridges.secrets;

import dev.sandjar.host.InvalidRequestException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** Where a run's secrets come from. Implementations must be thread-safe; the sandbox only reads. */
public interface SecretStore {
    /** The secret's value, or empty when it is not set. */
    Optional<String> get(String name);

    /** The names that are set. */
    Set<String> names();

    /** A fixed set of secrets held in memory (copied). */
    static SecretStore of(Map<String, String> secrets) {
        Map<String, String> copy = Map.copyOf(secrets);
        return new SecretStore() {
            @Override
            public Optional<String> get(String name) {
                return Optional.ofNullable(copy.get(name));
            }

            @Override
            public Set<String> names() {
                return new TreeSet<>(copy.keySet());
            }
        };
    }

    /**
     * Secrets from environment variables named {@code prefix + name}: with prefix {@code
     * SANDJAR_SECRET_}, the variable {@code SANDJAR_SECRET_API_TOKEN} is the secret {@code
     * API_TOKEN}. The prefix must not be empty, so a run never sees the whole environment.
     */
    static SecretStore fromEnvironment(String prefix) {
        return fromEnvironment(prefix, System.getenv());
    }

    /** As {@link #fromEnvironment(String)}, over a given environment (for tests). */
    static SecretStore fromEnvironment(String prefix, Map<String, String> environment) {
        if (prefix == null || prefix.isEmpty()) {
            throw new InvalidRequestException(
                    "an environment secret prefix must not be empty: a run would see every"
                            + " variable");
        }
        Map<String, String> env = Map.copyOf(environment);
        return new SecretStore() {
            @Override
            public Optional<String> get(String name) {
                return Optional.ofNullable(env.get(prefix + name));
            }

            @Override
            public Set<String> names() {
                Set<String> out = new TreeSet<>();
                for (String k : env.keySet()) {
                    if (k.startsWith(prefix) && k.length() > prefix.length()) {
                        out.add(k.substring(prefix.length()));
                    }
                }
                return out;
            }
        };
    }
}
