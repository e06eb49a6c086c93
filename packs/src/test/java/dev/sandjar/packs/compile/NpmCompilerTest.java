package dev.sandjar.packs.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.CatalogResolution;
import dev.sandjar.packs.Diagnostic;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.packs.PackManifest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The npm compiler on small local packages, without the network: each is written into a
 * node_modules of its own and bundled with the esbuild the build installed (target/npm-guest).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NpmCompilerTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static final Path TOOLS = Path.of("target/npm-guest").toAbsolutePath();

    static Sandbox sandbox;
    @TempDir static Path root;
    static NpmTree tree;
    static final ByteArrayOutputStream LOG = new ByteArrayOutputStream();

    @BeforeAll
    static void start(Sandbox shared) throws IOException {
        sandbox = shared;
        assertTrue(
                Files.isDirectory(TOOLS.resolve("node_modules/esbuild")),
                "the build installs esbuild into " + TOOLS);
        Path project = root.resolve("project");
        fixture(
                project,
                "needs-fs",
                "import { readFileSync } from 'fs';\n"
                        + "export const read = (p) => readFileSync(p, 'utf8');\n");
        fixture(project, "dynamic-import", "export const load = (name) => import(name);\n");
        fixture(
                project,
                "too-big",
                "export const data = '" + "x".repeat(NpmCompiler.MAX_BUNDLE_BYTES + 10) + "';\n");
        fixture(project, "throws-at-import", "throw new Error('boom at import');\n");
        fixture(project, "loops-at-import", "while (true) {}\nexport const never = 1;\n");
        fixture(
                project,
                "node-globals",
                "export const cwd = () => process.cwd();\n"
                        + "export const day = (d) => new Intl.DateTimeFormat().format(d);\n"
                        + "export const hasBuffer = typeof Buffer !== 'undefined';\n");
        fixture(
                project,
                "good-lib",
                "import { twice } from './lib.js';\n"
                        + "export const add = (a, b) => a + b;\n"
                        + "export const quad = (x) => twice(twice(x));\n");
        Files.writeString(
                project.resolve("node_modules/good-lib/lib.js"),
                "export const twice = (x) => x * 2;\n");
        tree = NpmTree.existing(project, TOOLS);
    }

    static void fixture(Path project, String name, String index) throws IOException {
        Path dir = project.resolve("node_modules").resolve(name);
        Files.createDirectories(dir);
        Files.writeString(
                dir.resolve("package.json"),
                "{\"name\": \""
                        + name
                        + "\", \"version\": \"1.0.0\", \"type\": \"module\","
                        + " \"main\": \"index.js\"}\n");
        Files.writeString(dir.resolve("index.js"), index);
    }

    static NpmCompiler compiler(Path cache) {
        // A one-round warm-up before a timed-out probe's second try: the test JVM is warm.
        return new NpmCompiler(
                sandbox,
                cache,
                new PrintStream(LOG, true, StandardCharsets.UTF_8),
                java.time.Duration.ofMillis(1));
    }

    static NpmCompiler.Request request(String name) {
        return new NpmCompiler.Request(name, name, "1.0.0", null, List.of());
    }

    static NpmCompiler.Outcome compile(String name) throws CompileException {
        return compiler(null).compile(tree, List.of(request(name))).get(0);
    }

    static Diagnostic only(NpmCompiler.Outcome o, String code) {
        List<Diagnostic> hits =
                o.diagnostics().stream().filter(d -> d.code().equals(code)).toList();
        assertEquals(1, hits.size(), () -> code + " in " + o.diagnostics());
        return hits.get(0);
    }

    @Test
    void aNodeBuiltInIsRefusedByName() throws Exception {
        NpmCompiler.Outcome o = compile("needs-fs");
        assertFalse(o.admitted());
        Diagnostic d = only(o, "npm-module-requires-builtin");
        assertTrue(d.isError());
        assertEquals("needs the Node built-in 'fs', which the sandbox does not have", d.message());
        assertTrue(d.where().startsWith("node_modules/needs-fs/index.js:1:"), d.where());
    }

    @Test
    void aDynamicImportIsRefused() throws Exception {
        NpmCompiler.Outcome o = compile("dynamic-import");
        assertFalse(o.admitted());
        Diagnostic d = only(o, "npm-module-dynamic-import");
        assertTrue(d.where().startsWith("bundle:"), d.where());
    }

    @Test
    void aBundleOverTheCapIsRefusedNamingTheBound() throws Exception {
        NpmCompiler.Outcome o = compile("too-big");
        assertFalse(o.admitted());
        Diagnostic d = only(o, "npm-module-too-large");
        assertTrue(d.message().contains("at most 1048576"), d.message());
    }

    @Test
    void aTopLevelThatThrowsFailsTheProbe() throws Exception {
        NpmCompiler.Outcome o = compile("throws-at-import");
        assertFalse(o.admitted());
        Diagnostic d = only(o, "npm-module-probe-failed");
        assertTrue(d.message().contains("Error: boom at import"), d.message());
    }

    @Test
    void aTopLevelThatLoopsRunsOutOfTheProbeDeadline() throws Exception {
        NpmCompiler.Outcome o = compile("loops-at-import");
        assertFalse(o.admitted());
        assertEquals(
                "its top level did not finish within 5 s",
                only(o, "npm-module-probe-failed").message());
    }

    @Test
    void aNodeGlobalIsRefusedAndOtherMissingGlobalsWarn() throws Exception {
        NpmCompiler.Outcome o = compile("node-globals");
        assertFalse(o.admitted());
        Diagnostic process = only(o, "npm-module-forbidden-global");
        assertTrue(process.isError());
        assertTrue(process.message().contains("'process'"), process.message());
        Diagnostic intl = only(o, "npm-module-missing-global");
        assertFalse(intl.isError());
        assertTrue(intl.message().contains("'Intl'"), intl.message());
        Diagnostic buffer = only(o, "npm-module-feature-detects");
        assertFalse(buffer.isError());
        assertTrue(buffer.message().contains("'Buffer'"), buffer.message());
    }

    @Test
    void anAdmittedBundleIsCachedByContentAndServedAsAPack() throws Exception {
        Path cache = root.resolve("cache");
        NpmCompiler.Outcome first =
                compiler(cache).compile(tree, List.of(request("good-lib"))).get(0);
        assertTrue(first.admitted(), () -> first.diagnostics().toString());
        assertFalse(first.cached());
        assertTrue(first.integrity().startsWith("files-sha256:"), first.integrity());
        NpmCompiler.Outcome again =
                compiler(cache).compile(tree, List.of(request("good-lib"))).get(0);
        assertTrue(again.cached());
        assertEquals(first.bundleSha256(), again.bundleSha256());

        Path packs = root.resolve("packs");
        Path dir = PackOutput.writeSingle(packs, first);
        ModuleCatalog catalog = ModuleCatalog.builder(sandbox).searchPath(packs).build();
        assertEquals(List.of(), catalog.diagnostics());
        var summary =
                catalog.summaries().stream()
                        .filter(s -> s.specifier().equals("good-lib"))
                        .findFirst()
                        .orElseThrow();
        assertEquals(PackManifest.Kind.NPM, summary.kind());
        assertNotNull(summary.graphDigest());
        String code = "import { add, quad } from 'good-lib';\nreturn add(2, 3) * quad(1);";
        CatalogResolution r = catalog.resolveBody(code);
        RunResult result =
                sandbox.run(RunRequest.builder(code).modules(r.moduleResolution()).build());
        assertEquals("20", result.valueJson());

        // A bundle edited after it was compiled is withheld.
        Path bundle = dir.resolve("npm/index.js");
        Files.writeString(bundle, Files.readString(bundle) + "\nexport const extra = 1;\n");
        catalog.reload();
        Diagnostic changed =
                catalog.diagnostics().stream()
                        .filter(d -> d.code().equals("npm-bundle-changed"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(catalog.diagnostics().toString()));
        assertEquals("npm/index.js", changed.where());
        assertTrue(catalog.summaries().stream().noneMatch(s -> s.specifier().equals("good-lib")));
    }

    @Test
    void aConfigOnlyEntryIsWithheldUntilCompiled() throws Exception {
        Path packs = root.resolve("uncompiled");
        Path dir = packs.resolve("geo");
        Files.createDirectories(dir);
        Files.writeString(
                dir.resolve("package.json"),
                "{\"name\": \"@acme/geo\", \"version\": \"1.0.0\", \"sandjar\": {\"apiVersion\": 1,"
                        + " \"sandboxModules\": [{\"name\": \".\", \"kind\": \"npm\", \"package\":"
                        + " \"good-lib\", \"version\": \"1.0.0\"}]}}");
        ModuleCatalog catalog = ModuleCatalog.builder(sandbox).searchPath(packs).build();
        Diagnostic d = catalog.diagnostics().get(0);
        assertEquals("npm-not-compiled", d.code());
        assertEquals("sandjar.sandboxModules[0]", d.where());
        assertTrue(catalog.summaries().stream().noneMatch(s -> s.pack().equals("@acme/geo")));
    }
}
