package dev.sandjar.host.script;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.EngineException;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.script.ScriptEngine;
import javax.script.ScriptEngineFactory;
import javax.script.ScriptEngineManager;
import javax.script.ScriptException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The factory's registration and metadata, and who closes which sandbox. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScriptEngineFactoryTest {
    private final ScriptEngineManager manager = new ScriptEngineManager();

    @Test
    void theServiceLoaderRegistersBothNamesAndTheMediaTypeOnly() {
        ScriptEngineFactory factory =
                manager.getEngineFactories().stream()
                        .filter(f -> f instanceof SandjarScriptEngineFactory)
                        .findFirst()
                        .orElseThrow();
        assertEquals(List.of("sandjar", "quickjs"), factory.getNames());
        assertEquals(List.of("application/x-sandjar"), factory.getMimeTypes());
        assertEquals(List.of(), factory.getExtensions());
        for (String generic : List.of("js", "javascript", "JavaScript", "ECMAScript")) {
            ScriptEngine other = manager.getEngineByName(generic);
            assertFalse(other instanceof SandjarScriptEngine, generic + " is not claimed");
        }
        assertFalse(manager.getEngineByExtension("js") instanceof SandjarScriptEngine);
        assertFalse(manager.getEngineByMimeType("text/javascript") instanceof SandjarScriptEngine);
        try (SandjarScriptEngine byMime =
                (SandjarScriptEngine) manager.getEngineByMimeType("application/x-sandjar")) {
            assertInstanceOf(SandjarScriptEngineFactory.class, byMime.getFactory());
        }
    }

    @Test
    void metadataComesFromTheBuild() throws IOException {
        ScriptEngineFactory factory = new SandjarScriptEngineFactory();
        // Surefire runs in host/: the versions must match what the build pins.
        String hostPom = Files.readString(Path.of("pom.xml"));
        String enginePom = Files.readString(Path.of("..", "quickjs-wasm", "pom.xml"));
        String sandjarVersion =
                find(hostPom, "<artifactId>sandjar-parent</artifactId>\\s*<version>([^<]+)<");
        String engineVersion = find(enginePom, "<quickjs.npm.version>([^<]+)<");
        String enginePackage = find(enginePom, "<quickjs.npm.package>([^<]+)<");

        assertEquals("Sandjar", factory.getEngineName());
        assertEquals(sandjarVersion, factory.getEngineVersion());
        assertEquals("ECMAScript", factory.getLanguageName());
        assertEquals(
                "QuickJS-ng (" + enginePackage + " " + engineVersion + ")",
                factory.getLanguageVersion());
        assertEquals("Sandjar", factory.getParameter(ScriptEngine.ENGINE));
        assertEquals(sandjarVersion, factory.getParameter(ScriptEngine.ENGINE_VERSION));
        assertEquals("sandjar", factory.getParameter(ScriptEngine.NAME));
        assertEquals("ECMAScript", factory.getParameter(ScriptEngine.LANGUAGE));
        assertEquals(
                factory.getLanguageVersion(), factory.getParameter(ScriptEngine.LANGUAGE_VERSION));
        assertEquals("THREAD-ISOLATED", factory.getParameter("THREADING"));
        assertNull(factory.getParameter("no such key"));
        assertEquals("a.b(1, 2)", factory.getMethodCallSyntax("a", "b", "1", "2"));
    }

    private static String find(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), regex);
        return m.group(1);
    }

    @Test
    void closingAFactoryMadeEngineClosesItsOwnSandbox() throws ScriptException {
        SandjarScriptEngine engine = (SandjarScriptEngine) manager.getEngineByName("quickjs");
        assertNotSame(engine, manager.getEngineByName("quickjs"), "one engine per lookup");
        assertEquals(2L, engine.eval("return 1 + 1"));
        Sandbox own = engine.sandbox();
        engine.close();
        EngineException e = assertThrows(EngineException.class, () -> engine.eval("return 1"));
        assertTrue(e.getMessage().contains("closed"), e::getMessage);
        assertThrows(
                EngineException.class,
                () -> own.run(RunRequest.builder("return 1").build()),
                "the engine's own sandbox is closed");
        engine.close(); // twice is harmless
    }

    @Test
    void closingAnEngineOverACallersSandboxLeavesItOpen() throws ScriptException {
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build()) {
            SandjarScriptEngine engine = SandjarScriptEngine.create(sandbox);
            assertEquals("ok", engine.eval("return 'ok'"));
            engine.close();
            assertThrows(EngineException.class, () -> engine.eval("return 1"));
            assertEquals(1L, sandbox.run(RunRequest.builder("return 1").build()).valueOrThrow());

            assertThrows(
                    InvalidRequestException.class,
                    () -> SandjarScriptEngine.create(sandbox, RunRequest.builder("x").build()));
        }
    }
}
