package dev.sandjar.packs;

import static dev.sandjar.packs.Fixtures.manifest;
import static dev.sandjar.packs.Fixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Bridge;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trust through {@link Sandbox#run} with the real engine: an untrusted pack's modules do not see
 * the run's capability globals while the user's code in the same run does; trusted packs (by search
 * path or by name) and per-pack grants; and each way to the global object from module code, closed
 * or documented (docs/packs.md, "Trust").
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PackTrustTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(2).preloadAnalyzer();

    static Sandbox sandbox;
    @TempDir static Path untrusted;
    @TempDir static Path trusted;
    static ModuleCatalog catalog;

    /** What a module reports it can see of the capabilities. */
    static final String SEEN =
            "export const seen = () => [typeof getSecret, typeof fetch, typeof workspace,"
                    + " typeof globalThis.getSecret, typeof globalThis.fetch];\n";

    /**
     * The run's capabilities, as the standard bridges name them: {@code getSecret}, {@code fetch}
     * and {@code workspace} (the real ones live in the bridges module, which packs may not use).
     */
    static final Bridge CAPABILITIES =
            Bridge.builder("caps")
                    .guest(
                            "(host) => ({ getSecret: (n) => host.call('secret', n),"
                                    + " fetch: async (u) => 'fetched ' + u,"
                                    + " workspace: Object.freeze({ read: (p) => 'read ' + p }) })")
                    .operation(
                            Operation.builder("secret")
                                    .param(Param.string("name"))
                                    .handler(call -> "s3cret:" + call.string(0))
                                    .build())
                    .build();

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
        pack(
                untrusted.resolve("snoop"),
                "@acme/snoop",
                SEEN
                        + "import { inner } from './lib/inner.js';\n"
                        + "export { inner };\n"
                        + "export const call = () => getSecret('TOKEN');\n"
                        + "export const viaSelf = () => [typeof self, typeof global, typeof"
                        + " self.getSecret, self === globalThis];\n"
                        + "export const standard = () => [globalThis.Array === Array,"
                        + " Object.isFrozen(globalThis), typeof globalThis.JSON.parse, typeof"
                        + " globalThis.Math.max];\n"
                        + "export const escaped = () => typeof \\u0067etSecret;\n"
                        + "export const topThis = typeof this;\n"
                        + "export const assign = () => { try { fetch = () => 1; return 'assigned';"
                        + " } catch (e) { return e.name; } };\n"
                        + "export const code = () => [\n"
                        + "  (() => { try { return Function('return this')(); } catch (e) { return"
                        + " e.name; } })(),\n"
                        + "  (() => { try { return (async () => {}).constructor('return this'); }"
                        + " catch (e) { return e.name; } })(),\n"
                        + "  typeof eval,\n"
                        + "  (function () { return typeof this; })(),\n"
                        + "  Reflect.apply(function () { return typeof this; }, undefined, []),\n"
                        + "];\n"
                        + "export const withCallback = (f) => f('TOKEN');\n"
                        + "export const hook = () => { const r = [];\n"
                        + "  for (const set of [() => { Error.prepareStackTrace = () => 'x'; },\n"
                        + "    () => Object.defineProperty(Object.getPrototypeOf(TypeError),"
                        + " 'prepareStackTrace', { value: () => 'x' })]) {\n"
                        + "    try { set(); r.push('set'); } catch (e) { r.push(e.name); } }\n"
                        + "  return [r, typeof Error.prepareStackTrace]; };\n"
                        + "export const walk = () => {\n"
                        + "  const seen = new Set(), found = [];\n"
                        + "  const todo = [[globalThis, 0], [Object.getPrototypeOf(function* ()"
                        + " {}), 0], [Object.getPrototypeOf(async function () {}), 0],"
                        + " [Object.getPrototypeOf(async function* () {}), 0]];\n"
                        + "  while (todo.length) { const [o, d] = todo.pop();\n"
                        + "    if (o === null || (typeof o !== 'object' && typeof o !== 'function')"
                        + " || seen.has(o) || d > 4) continue;\n"
                        + "    seen.add(o);\n"
                        + "    if (Object.prototype.hasOwnProperty.call(o, 'getSecret'))"
                        + " found.push(d);\n"
                        + "    for (const k of Reflect.ownKeys(o)) {\n"
                        + "      const p = Reflect.getOwnPropertyDescriptor(o, k);\n"
                        + "      if ('value' in p) { todo.push([p.value, d + 1]); continue; }\n"
                        + "      if (p.get) { todo.push([p.get, d + 1]); try {"
                        + " todo.push([p.get.call(o), d + 1]); } catch (e) {} }\n"
                        + "      if (p.set) todo.push([p.set, d + 1]); }\n"
                        + "    todo.push([Object.getPrototypeOf(o), d + 1]); }\n"
                        + "  return [seen.size > 100, found]; };\n"
                        + "export const bridgeHost = typeof"
                        + " globalThis[Symbol.for('sandjar.bridge.packs.host.diff')];\n"
                        + "export const fails = () => {\n"
                        + "  throw new Error('boom');\n"
                        + "};\n",
                ", 'internal': ['lib/inner.js']");
        write(
                untrusted.resolve("snoop"),
                "lib/inner.js",
                "export const inner = () => [typeof fetch, typeof globalThis.fetch];\n");
        pack(
                untrusted.resolve("own"),
                "@acme/own",
                "function fetch(u) { return 'own ' + u; }\n"
                    + "function Error() {}\n"
                    + "export const hook = () => { try {"
                    + " Object.getPrototypeOf(TypeError).prepareStackTrace = () => 1; return 'set';"
                    + " } catch (e) { return e.name; } };\n"
                    + "export const get = () => fetch('x');\n"
                    + "export const secret = () => typeof getSecret;\n",
                "");
        pack(
                untrusted.resolve("patch"),
                "@acme/patch",
                "export const observed = [];\n"
                        + "const map = Array.prototype.map;\n"
                        + "Array.prototype.map = function (...args) {\n"
                        + "  observed.push(...this);\n"
                        + "  return map.apply(this, args);\n"
                        + "};\n",
                "");
        pack(untrusted.resolve("granted"), "@acme/granted", SEEN, "");
        pack(untrusted.resolve("named"), "@acme/named", SEEN, "");
        pack(trusted.resolve("friend"), "@acme/friend", SEEN, "");
        catalog =
                ModuleCatalog.builder(sandbox)
                        .searchPath(untrusted)
                        .searchPath(trusted, Trust.TRUSTED)
                        .trust("@acme/named")
                        .grant("@acme/granted", Set.of("fetch"))
                        .build();
        assertEquals(List.of(), catalog.diagnostics());
    }

    static void pack(Path dir, String name, String source, String extra) {
        write(
                dir,
                "package.json",
                manifest(name, "{'name': '.', 'kind': 'js', 'file': 'm.js'}", extra));
        write(dir, "m.js", source);
    }

    static int lineOf(Path file, String text) {
        try {
            List<String> lines = java.nio.file.Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains(text)) {
                    return i + 1;
                }
            }
            throw new AssertionError(text + " is not in " + file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static RunResult run(ModuleCatalog c, String code) {
        CatalogResolution r = c.resolveBody(code);
        assertTrue(r.isOk(), () -> r.errors().toString());
        return sandbox.run(
                RunRequest.builder(code)
                        .modules(r.moduleResolution())
                        .bridge(CAPABILITIES)
                        .build());
    }

    static Object value(String code) {
        RunResult r = run(catalog, code);
        assertTrue(r.isOk(), () -> "expected success: " + r.error() + "\n" + r.error().stack());
        return r.value();
    }

    static final List<String> NONE =
            List.of("undefined", "undefined", "undefined", "undefined", "undefined");
    static final List<String> ALL =
            List.of("function", "function", "object", "function", "function");

    @Test
    void anUntrustedPackSeesNoCapabilityWhileTheUsersCodeInTheSameRunDoes() {
        assertEquals(
                List.of(NONE, List.of("undefined", "undefined"), "function", "s3cret:A", "object"),
                value(
                        "import { seen, inner } from '@acme/snoop';\n"
                                + "return [seen(), inner(), typeof fetch, getSecret('A'),"
                                + " typeof globalThis.workspace];"));
        assertEquals(Optional.of(Trust.UNTRUSTED), catalog.trustOf("@acme/snoop"));
    }

    @Test
    void callingAWithheldCapabilityFailsAsCallingAnAbsentOne() {
        RunResult r = run(catalog, "import { call } from '@acme/snoop';\nreturn call();");
        assertFalse(r.isOk());
        assertEquals("TypeError", r.error().name(), r.error().toString());
    }

    @Test
    void trustedPacksSeeTheRunsCapabilities() {
        assertEquals(
                List.of(ALL, ALL, ALL),
                value(
                        "import { seen as a } from '@acme/friend';\n"
                                + "import { seen as b } from '@acme/named';\n"
                                + "return [a(), b(), (() => [typeof getSecret, typeof fetch,"
                                + " typeof workspace, typeof globalThis.getSecret,"
                                + " typeof globalThis.fetch])()];"));
        assertEquals(Optional.of(Trust.TRUSTED), catalog.trustOf("@acme/friend"));
        assertEquals(Optional.of(Trust.TRUSTED), catalog.trustOf("@acme/named"));
        assertEquals(Optional.of(Trust.TRUSTED), catalog.trustOf("@sandjar/text"));
        assertEquals(Optional.empty(), catalog.trustOf("@acme/absent"));
    }

    @Test
    void aGrantShowsAnUntrustedPackTheNamedCapabilitiesOnly() {
        assertEquals(
                List.of("undefined", "function", "undefined", "undefined", "undefined"),
                value("import { seen } from '@acme/granted';\nreturn seen();"));
    }

    @Test
    void shippedPacksKeepWorkingInTheSameRunAsAnUntrustedOne() {
        assertEquals(
                List.of("a-b", NONE),
                value(
                        "import { slugify } from '@sandjar/text';\n"
                                + "import { seen } from '@acme/snoop';\n"
                                + "return [slugify('A b'), seen()];"));
    }

    @Test
    void theGlobalObjectIsAFrozenObjectOfTheStandardBuiltIns() {
        assertEquals(
                List.of(
                        List.of("object", "object", "undefined", true),
                        List.of(true, true, "function", "function")),
                value(
                        "import { viaSelf, standard } from '@acme/snoop';\n"
                                + "return [viaSelf(), standard()];"));
    }

    @Test
    void unicodeEscapesInIdentifiersAreShadowedToo() {
        assertEquals(
                "undefined", value("import { escaped } from '@acme/snoop';\nreturn escaped();"));
    }

    @Test
    void aPackThatDeclaresAWithheldNameItselfKeepsItsOwn() {
        assertEquals(
                List.of("own x", "undefined"),
                value("import { get, secret } from '@acme/own';\nreturn [get(), secret()];"));
    }

    @Test
    void holesToTheGlobalObjectFromModuleCodeAreClosed() {
        // `this` at a module's top is undefined; code from strings is refused by the hardening;
        // every function in module code is strict, so no call hands it the global object as `this`.
        assertEquals(
                List.of(
                        "undefined",
                        List.of("EvalError", "EvalError", "undefined", "undefined", "undefined"),
                        "TypeError"),
                value(
                        "import { topThis, code, assign } from '@acme/snoop';\n"
                                + "return [topThis, code(), assign()];"));
        // The failed assignment changed nothing for the user's code.
        assertEquals(
                "fetched u",
                value(
                        "import { assign } from '@acme/snoop';\n"
                                + "assign();\n"
                                + "return await fetch('u');"));
    }

    @Test
    void aCapabilityTheUserPassesInIsTheUsersChoice() {
        assertEquals(
                "s3cret:TOKEN",
                value(
                        "import { withCallback } from '@acme/snoop';\n"
                                + "return withCallback(getSecret);"));
    }

    @Test
    void theGuardKeepsThePacksLineNumbers() {
        RunResult r = run(catalog, "import { fails } from '@acme/snoop';\nfails();");
        assertFalse(r.isOk());
        int line = lineOf(untrusted.resolve("snoop/m.js"), "throw new Error('boom')");
        assertTrue(line > 10, "the fixture's throw is well below the first line");
        assertTrue(
                r.error().stack().contains("@acme/snoop::m.js:" + line + ":"),
                () -> line + " in " + r.error().stack());
    }

    @Test
    void aStackHookCannotHandOutTheFramesFunctions() {
        // QuickJS-ng's call sites give every frame's function, a bridge's guest functions
        // included; the guard module locks the hook before any untrusted code runs, and a pack that
        // declares its own Error still reaches the real one, locked.
        assertEquals(
                List.of(List.of(List.of("TypeError", "TypeError"), "undefined"), "TypeError"),
                value(
                        "import { hook } from '@acme/snoop';\n"
                                + "import { hook as own } from '@acme/own';\n"
                                + "return [hook(), own()];"));
    }

    @Test
    void noBuiltInLeadsAnUntrustedPackToTheGlobalObject() {
        // Own properties, accessors (called on their holder) and prototypes, four steps deep from
        // the safe global and the function prototypes: nothing holds the run's getSecret.
        assertEquals(
                List.of(true, List.of()),
                value("import { walk } from '@acme/snoop';\nreturn walk();"));
    }

    @Test
    void theBuilderChecksWhatItIsGiven() {
        ModuleCatalog.Builder b = ModuleCatalog.builder(sandbox);
        assertThrows(InvalidRequestException.class, () -> b.trust("Not A Name"));
        assertThrows(InvalidRequestException.class, () -> b.grant("@acme/x", Set.of("Array")));
        assertThrows(InvalidRequestException.class, () -> b.withheldGlobals(Set.of("JSON")));
        assertThrows(InvalidRequestException.class, () -> b.withheldGlobals(Set.of("not-a-name")));
        assertThrows(InvalidRequestException.class, () -> b.withheldGlobals(Set.of("const")));
        b.withheldGlobals(Set.of("db", "globalThis")).grant("@acme/x", Set.of("db"));
        assertThrows(InvalidRequestException.class, () -> b.grant("@acme/x", Set.of("fetch")));
    }

    @Test
    void aCatalogWithholdsTheGlobalsOfTheCallersOwnBridges(@TempDir Path dir) {
        pack(
                dir.resolve("p"),
                "@acme/p",
                "export const seen = () => [typeof db, typeof fetch];\n",
                "");
        ModuleCatalog own =
                ModuleCatalog.builder(sandbox)
                        .searchPath(dir)
                        .withheldGlobals(Set.of("db"))
                        .build();
        Bridge db = Bridge.builder("db").guest("(host) => ({ db: Object.freeze({}) })").build();
        String code = "import { seen } from '@acme/p';\nreturn [seen(), typeof db];";
        RunResult r =
                sandbox.run(
                        RunRequest.builder(code)
                                .modules(own.resolveBody(code).moduleResolution())
                                .bridge(db)
                                .bridge(CAPABILITIES)
                                .build());
        // fetch is not in this catalog's list, so the pack sees it: the list is the caller's.
        assertEquals(List.of(List.of("undefined", "function"), "object"), r.valueOrThrow());
    }

    @Test
    void aBridgeHostWaitingOnTheGlobalObjectWhileModulesLinkIsOutOfReach() {
        assertEquals(
                List.of("undefined", List.of(Map.of("op", "equal", "value", "a\n", "count", 1L))),
                value(
                        "import { bridgeHost } from '@acme/snoop';\n"
                                + "import { diffLines } from '@sandjar/diff';\n"
                                + "return [bridgeHost, await diffLines('a\\n', 'a\\n')];"));
    }

    /**
     * Not closed: modules share the realm's built-ins, so an untrusted pack can patch one (here
     * Array.prototype.map) and see what the user's code passes through it. docs/packs.md, "Trust",
     * says so; the run's engine is restored before the next run, so a patch never outlives it.
     */
    @Test
    void knownGapAPatchedBuiltInSeesWhatTheUsersCodePassesThroughIt() {
        assertEquals(
                List.of("s3cret:A"),
                value(
                        "import { observed } from '@acme/patch';\n"
                                + "[getSecret('A')].map((x) => x);\n"
                                + "return observed;"));
    }
}
