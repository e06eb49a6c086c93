package dev.sandjar.bridges.secrets;

import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunSession;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The guest's read-only view of a {@link SecretStore}: {@code getSecret(name)} and {@code
 * secrets.get(name)} return the value or throw when it is unset, {@code secrets.tryGet(name)}
 * returns {@code undefined} when unset, {@code secrets.list()} lists the names the run may read
 * that are set. Guest code cannot write a secret.
 *
 * <p>A scope limits a run to the names it declares: any other name is refused at the bridge ({@code
 * SecretError}, code {@code OUT_OF_SCOPE}), so no guest-side path can route around it; an empty
 * scope denies everything; no scope is unscoped. Errors name the secret, never its value.
 *
 * <p>Every value handed to the guest is masked in the run's log and its error ({@link
 * RunSession#redact}): a script that prints it by accident shows {@code ***}.
 */
public final class Secrets {
    private static final String GUEST = GuestScripts.load(Secrets.class, "secrets.js");

    private Secrets() {}

    /** Every secret in the store. */
    public static Bridge bridge(SecretStore store) {
        return build(store, null);
    }

    /** Only the secrets named in {@code scope} (an empty scope denies all). */
    public static Bridge bridge(SecretStore store, Set<String> scope) {
        return build(store, Set.copyOf(Objects.requireNonNull(scope, "scope")));
    }

    private static Bridge build(SecretStore store, Set<String> scope) {
        Objects.requireNonNull(store, "store");
        Param name = Param.string("name").maxLength(256);
        return Bridge.builder("secrets")
                .guest(GUEST)
                .operation(
                        Operation.builder("get")
                                .param(name)
                                .handler(
                                        c -> {
                                            String n = allowed(c.string(0), scope);
                                            return store.get(n)
                                                    .map(v -> handOut(c.session(), v))
                                                    .orElseThrow(
                                                            () ->
                                                                    new BridgeException(
                                                                            "SecretError",
                                                                            "NOT_SET",
                                                                            "secret '"
                                                                                    + n
                                                                                    + "' is not"
                                                                                    + " set"));
                                        })
                                .build())
                .operation(
                        Operation.builder("tryGet")
                                .param(name)
                                .handler(
                                        c ->
                                                store.get(allowed(c.string(0), scope))
                                                        .map(v -> (Object) handOut(c.session(), v))
                                                        .orElse(
                                                                dev.sandjar.transport.Undefined
                                                                        .INSTANCE))
                                .build())
                .operation(
                        Operation.builder("list")
                                .handler(
                                        c -> {
                                            Set<String> names = new TreeSet<>(store.names());
                                            if (scope != null) {
                                                names.retainAll(scope);
                                            }
                                            return List.copyOf(names);
                                        })
                                .build())
                .build();
    }

    /**
     * A value on its way to the guest: the run masks it (and its encoded forms) in its log and its
     * error from now on. Only values handed out are masked: the bridge has no hook at the run's
     * start, and reading every secret in scope for every run would cost a store that is remote one
     * lookup per secret per run even when the run reads none.
     */
    private static String handOut(RunSession session, String value) {
        session.redact(value);
        return value;
    }

    private static String allowed(String name, Set<String> scope) {
        if (scope != null && !scope.contains(name)) {
            throw new BridgeException(
                    "SecretError",
                    "OUT_OF_SCOPE",
                    "secret '"
                            + name
                            + "' is outside this run's secret scope"
                            + (scope.isEmpty() ? " (the scope is empty)" : ""));
        }
        return name;
    }
}
