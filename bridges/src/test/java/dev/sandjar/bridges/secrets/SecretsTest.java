package dev.sandjar.bridges.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.console.Console;
import dev.sandjar.bridges.helpers.GuestHelpers;
import dev.sandjar.bridges.progress.Progress;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.util.ArrayList;
import java.util.Collections;
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

    /** A run with console and the helpers whose log a listener also hears. */
    private static RunResult logged(String code, List<String> heard) {
        return sandbox.run(
                RunRequest.builder(code)
                        .bridge(Secrets.bridge(STORE))
                        .bridge(Console.bridge())
                        .bridge(GuestHelpers.bridge())
                        .onLog(e -> heard.add(e.message()))
                        .build());
    }

    private static List<String> messages(RunResult r) {
        return r.logs().stream().map(LogEntry::message).toList();
    }

    @Test
    void aLoggedValueAndItsEncodedFormsAreMaskedInTheLogAndForTheListener() {
        List<String> heard = Collections.synchronizedList(new ArrayList<>());
        RunResult r =
                logged(
                        "const s = getSecret('API_TOKEN');\n"
                                + "console.log('token', s);\n"
                                + "console.info('b64', toBase64(s), toBase64(s, {alphabet:"
                                + " 'base64url', omitPadding: true}));\n"
                                + "console.warn('hex', toHex(s), toHex(s).toUpperCase());\n"
                                + "console.error('url ' + encodeURIComponent(s + '/x y'));\n"
                                + "console.log({ nested: { s } });\n"
                                + "console.log('nothing secret here');\n"
                                + "return 'done';",
                        heard);
        assertEquals("done", r.valueOrThrow());
        List<String> expected =
                List.of(
                        "token ***",
                        "b64 *** ***",
                        "hex *** ***",
                        "url ***%2Fx%20y",
                        "{ nested: { s: '***' } }",
                        "nothing secret here");
        assertEquals(expected, messages(r));
        assertEquals(expected, heard, "the listener sees the masked line");
    }

    @Test
    void aThrownErrorIsMaskedInItsMessageAndStack() {
        RunResult r =
                logged(
                        "const s = secrets.tryGet('DB_PASS');\n"
                                + "const o = { [s]() { throw new Error('login failed with ' + s);"
                                + " } };\n"
                                + "o[s]();",
                        new ArrayList<>());
        RunError e = r.error();
        assertNotNull(e);
        assertEquals("login failed with ***", e.message());
        assertTrue(e.stack().contains("at *** (main.js:2:"), e.stack());
        assertFalse((e + e.stack()).contains("hunter2"), e + e.stack());
    }

    @Test
    void aStackTheGuestWroteItselfIsMasked() {
        RunResult r =
                logged(
                        "const e = new Error('no');\n"
                                + "e.stack = 'at ' + getSecret('API_TOKEN') + '\\n' + e.stack;\n"
                                + "console.log('caught', e.message);\n"
                                + "throw e;",
                        new ArrayList<>());
        assertTrue(r.error().stack().startsWith("at ***"), r.error().stack());
        assertFalse(r.error().stack().contains("s3cr3t"));
    }

    @Test
    void aProgressMessageIsMaskedBeforeTheListenerSeesIt() {
        List<String> delivered = Collections.synchronizedList(new ArrayList<>());
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "progress(100, 'using ' + getSecret('API_TOKEN'));"
                                                + " return 1;")
                                .bridge(Secrets.bridge(STORE))
                                .bridge(Progress.bridge(p -> delivered.add(p.message())))
                                .build());
        assertEquals(1L, r.valueOrThrow());
        assertEquals(List.of("using ***"), delivered);
    }
}
