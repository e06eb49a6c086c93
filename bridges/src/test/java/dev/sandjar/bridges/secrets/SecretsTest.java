package dev.sandjar.bridges.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sandjar.host.Bridge;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Scoped, read-only secrets through Sandbox.run. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SecretsTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;
    static final SecretStore STORE =
            SecretStore.of(Map.of("API_TOKEN", "s3cr3t", "DB_PASS", "hunter2"));

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    private static Object run(Bridge secrets, String code) {
        RunResult r = sandbox.run(RunRequest.builder(code).bridge(secrets).build());
        return r.valueOrThrow();
    }

    private static final String PROBE =
            "const out = [];\n"
                + "for (const f of [() => getSecret('API_TOKEN'), () => secrets.get('DB_PASS'), ()"
                + " => secrets.tryGet('MISSING'), () => secrets.get('MISSING'), () =>"
                + " secrets.list()]) {\n"
                + "  try { out.push(f()); } catch (e) { out.push(e.name + ' ' + e.code + ' ' +"
                + " e.message); }\n"
                + "}\n"
                + "return out;";

    @Test
    void unscopedReadsEverythingAndUnsetThrows() {
        assertEquals(
                java.util.Arrays.asList(
                        "s3cr3t",
                        "hunter2",
                        dev.sandjar.transport.Undefined.INSTANCE,
                        "SecretError NOT_SET secret 'MISSING' is not set",
                        List.of("API_TOKEN", "DB_PASS")),
                run(Secrets.bridge(STORE), PROBE));
    }

    @Test
    void aScopeRefusesEveryOtherNameAtTheBridge() {
        List<?> v = (List<?>) run(Secrets.bridge(STORE, Set.of("API_TOKEN", "MISSING")), PROBE);
        assertEquals("s3cr3t", v.get(0));
        assertEquals(
                "SecretError OUT_OF_SCOPE secret 'DB_PASS' is outside this run's secret scope",
                v.get(1));
        assertEquals(List.of("API_TOKEN"), v.get(4));
        List<?> none = (List<?>) run(Secrets.bridge(STORE, Set.of()), PROBE);
        assertEquals(
                "SecretError OUT_OF_SCOPE secret 'API_TOKEN' is outside this run's secret scope"
                        + " (the scope is empty)",
                none.get(0));
        assertEquals(List.of(), none.get(4));
        // No value appears in any message.
        assertFalse(none.toString().contains("s3cr3t") || none.toString().contains("hunter2"));
    }

    @Test
    void theGuestCannotWriteASecret() {
        Object v =
                run(
                        Secrets.bridge(STORE),
                        "let refused = false;\n"
                            + "try { secrets.set = () => 1; } catch (e) { refused = e instanceof"
                            + " TypeError; }\n"
                            + "return [refused, typeof secrets.set, Object.isFrozen(secrets)];");
        assertEquals(List.of(true, "undefined", true), v);
    }

    @Test
    void environmentSecretsNeedAPrefix() {
        SecretStore env =
                SecretStore.fromEnvironment(
                        "APP_SECRET_", Map.of("APP_SECRET_TOKEN", "t", "PATH", "/bin"));
        assertEquals(Set.of("TOKEN"), env.names());
        assertEquals("t", env.get("TOKEN").orElseThrow());
        assertThrows(InvalidRequestException.class, () -> SecretStore.fromEnvironment(""));
    }
}
