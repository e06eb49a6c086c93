package dev.sandjar.host.script;

import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import java.util.List;
import java.util.stream.Collectors;
import javax.script.ScriptEngine;
import javax.script.ScriptEngineFactory;

/**
 * The JSR-223 ({@code javax.script}) entry to Sandjar, registered with the service loader: {@code
 * new ScriptEngineManager().getEngineByName("sandjar")} (or {@code "quickjs"}) returns a {@link
 * SandjarScriptEngine} that owns a {@link Sandbox} of its own, made with the built-in limits on the
 * first eval, and closes it in {@link SandjarScriptEngine#close()}. To share a sandbox, set limits,
 * or grant bridges and modules, use {@link SandjarScriptEngine#create(Sandbox, RunRequest)}.
 *
 * <p>Only the names {@code sandjar} and {@code quickjs} and the media type {@value #MIME_TYPE} are
 * registered; no file extension and none of {@code js}, {@code javascript}, {@code ECMAScript},
 * {@code text/javascript} or {@code application/javascript}. The manager answers a generic name
 * with whichever factory the service loader lists first, so claiming them would hand a user with
 * GraalJS, Rhino or Nashorn on the classpath a different engine by accident. Sandjar also does not
 * run a plain script: the code is a function body whose {@code return} gives the result, with no
 * host access and no globals but the ones granted. Code written for it is its own dialect, which is
 * what the media type says.
 *
 * <p>The language is ECMAScript as the QuickJS-ng build of the engine package {@value
 * #ENGINE_PACKAGE} {@value #ENGINE_PACKAGE_VERSION} implements it; {@link #getLanguageVersion()}
 * names that package version, the only version the build pins. {@link #getEngineVersion()} is
 * Sandjar's own.
 *
 * <p>{@code getParameter("THREADING")} is {@code "THREAD-ISOLATED"}: every eval is a fresh run in
 * its own QuickJS runtime, so evals on different threads never see each other's JavaScript state.
 * It is not {@code "STATELESS"}, because object bindings a run changes are written back into the
 * {@link javax.script.Bindings} it was given (see {@link SandjarScriptEngine}). Immutable and
 * thread-safe.
 */
public final class SandjarScriptEngineFactory implements ScriptEngineFactory {
    /** Sandjar's version; a test checks it against the build's. */
    public static final String SANDJAR_VERSION = "0.1.0-SNAPSHOT";

    /** The npm package the engine's WebAssembly comes from. */
    public static final String ENGINE_PACKAGE = "@jitl/quickjs-ng-wasmfile-release-sync";

    /** Its version, pinned in {@code quickjs-wasm/pom.xml}; a test checks it against the pom. */
    public static final String ENGINE_PACKAGE_VERSION = "0.32.0";

    /** The media type of Sandjar code: a function body, not a plain script (see above). */
    public static final String MIME_TYPE = "application/x-sandjar";

    private static final List<String> NAMES = List.of("sandjar", "quickjs");

    /** The constructor the service loader calls. */
    public SandjarScriptEngineFactory() {}

    @Override
    public String getEngineName() {
        return "Sandjar";
    }

    @Override
    public String getEngineVersion() {
        return SANDJAR_VERSION;
    }

    /** None: {@code js} belongs to whichever general-purpose engine the user also has. */
    @Override
    public List<String> getExtensions() {
        return List.of();
    }

    @Override
    public List<String> getMimeTypes() {
        return List.of(MIME_TYPE);
    }

    @Override
    public List<String> getNames() {
        return NAMES;
    }

    @Override
    public String getLanguageName() {
        return "ECMAScript";
    }

    @Override
    public String getLanguageVersion() {
        return "QuickJS-ng (" + ENGINE_PACKAGE + " " + ENGINE_PACKAGE_VERSION + ")";
    }

    @Override
    public Object getParameter(String key) {
        return switch (key) {
            case ScriptEngine.ENGINE -> getEngineName();
            case ScriptEngine.ENGINE_VERSION -> getEngineVersion();
            case ScriptEngine.NAME -> NAMES.get(0);
            case ScriptEngine.LANGUAGE -> getLanguageName();
            case ScriptEngine.LANGUAGE_VERSION -> getLanguageVersion();
            case "THREADING" -> "THREAD-ISOLATED";
            default -> null;
        };
    }

    @Override
    public String getMethodCallSyntax(String obj, String m, String... args) {
        return obj + "." + m + "(" + String.join(", ", args) + ")";
    }

    /**
     * A {@code console.log} call. It prints only in a run granted a console bridge (the standard
     * one is {@code dev.sandjar.bridges.console.Console}); a factory-made engine grants none.
     */
    @Override
    public String getOutputStatement(String toDisplay) {
        return "console.log(" + quote(toDisplay) + ")";
    }

    @Override
    public String getProgram(String... statements) {
        return List.of(statements).stream().map(s -> s + ";\n").collect(Collectors.joining());
    }

    /**
     * A factory-made engine: it owns its sandbox, created on first use with the built-in limits.
     */
    @Override
    public ScriptEngine getScriptEngine() {
        return new SandjarScriptEngine(this, null, RunRequest.builder("").build());
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
