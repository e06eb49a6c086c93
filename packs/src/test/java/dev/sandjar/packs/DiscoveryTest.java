package dev.sandjar.packs;

import static dev.sandjar.packs.Fixtures.json;
import static dev.sandjar.packs.Fixtures.manifest;
import static dev.sandjar.packs.Fixtures.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.RefusedException;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery over packs on disk: the shipped packs, every refusal rule as one data-driven table,
 * duplicate names, graph digests, reload and delivery. Nothing here runs pack code.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DiscoveryTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    static ModuleCatalog catalog(Path... roots) {
        ModuleCatalog.Builder b = ModuleCatalog.builder(sandbox).shippedPacks(false);
        for (Path r : roots) {
            b.searchPath(r);
        }
        return b.build();
    }

    static List<String> specifiers(ModuleCatalog c) {
        return c.summaries().stream().map(ModuleSummary::specifier).toList();
    }

    @Test
    void theShippedPacksAreDiscoveredWithoutFindings() {
        ModuleCatalog c = ModuleCatalog.builder(sandbox).build();
        assertEquals(List.of(), c.diagnostics());
        List<String> served = specifiers(c);
        assertTrue(
                served.containsAll(
                        List.of(
                                "@sandjar/collections",
                                "@sandjar/collections/stats",
                                "@sandjar/text")),
                served::toString);
        // Every built-in host module's pack is shipped and served as that host module.
        for (HostModule m : HostModules.builtIn().all()) {
            assertTrue(
                    c.summaries().stream()
                            .anyMatch(
                                    s ->
                                            s.specifier().equals(m.packageName())
                                                    && s.kind() == PackManifest.Kind.HOST),
                    () -> m.packageName() + " is not served: " + served);
        }
        assertTrue(c.summaries().stream().allMatch(ModuleSummary::shipped));
        assertEquals(
                "@sandjar/diff (host) - diffLines and unifiedDiff of two texts",
                c.summaries().stream()
                        .filter(m -> m.specifier().equals("@sandjar/diff"))
                        .findFirst()
                        .orElseThrow()
                        .line());
        PackDocs docs = c.packDocs("@sandjar/text").orElseThrow();
        assertEquals("text", docs.name());
        assertTrue(docs.sections().containsKey("slugify"), docs.sections().keySet().toString());
    }

    /** One pack on disk, the finding it must produce, and what it still serves. */
    record Case(
            String title, Consumer<Path> pack, String code, String where, List<String> served) {}

    static final String OK = "export const ok = 1;\n";

    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        cases.add(
                new Case(
                        "a syntax error",
                        d -> {
                            write(d, "package.json", manifest("fx-syntax", js(".", "a.js")));
                            write(d, "a.js", "export const = 1;");
                        },
                        "js-syntax",
                        "a.js:1:14",
                        List.of()));
        cases.add(
                new Case(
                        "a dynamic import",
                        d -> {
                            write(d, "package.json", manifest("fx-dynamic", js(".", "a.js")));
                            write(d, "a.js", "export const f = () =>\n  import('./a.js');\n");
                        },
                        "js-dynamic-import",
                        "a.js:2:3",
                        List.of()));
        cases.add(
                new Case(
                        "require",
                        d -> {
                            write(d, "package.json", manifest("fx-require", js(".", "a.js")));
                            write(d, "a.js", "const fs = require('fs');\nexport default fs;");
                        },
                        "js-require",
                        "a.js:1:12",
                        List.of()));
        for (String spec : List.of("node:fs", "lodash", "../fx-ok/a.js", "@other/pack")) {
            cases.add(
                    new Case(
                            "an import of " + spec,
                            d -> {
                                String n = "fx-outside-" + Math.abs(spec.hashCode());
                                write(d, "package.json", manifest(n, js(".", "a.js")));
                                write(d, "a.js", "import x from '" + spec + "';\nexport { x };");
                            },
                            "js-import-outside-pack",
                            "a.js:1:1",
                            List.of()));
        }
        cases.add(
                new Case(
                        "an undeclared sibling file",
                        d -> {
                            write(d, "package.json", manifest("fx-undeclared", js(".", "a.js")));
                            write(d, "a.js", "import { ok } from './helper.js';\nexport { ok };");
                            write(d, "helper.js", OK);
                        },
                        "js-undeclared-file",
                        "a.js:1:1",
                        List.of()));
        cases.add(
                new Case(
                        "a cycle among internal files",
                        d -> {
                            write(
                                    d,
                                    "package.json",
                                    manifest(
                                            "fx-cycle",
                                            js(".", "a.js") + "," + js("other", "o.js"),
                                            ", 'internal': ['lib/b.js', 'lib/c.js']"));
                            write(d, "a.js", "import './lib/b.js';\n" + OK);
                            write(d, "lib/b.js", "import './c.js';\n" + OK);
                            write(d, "lib/c.js", "import { ok } from './b.js';\n");
                            write(d, "o.js", OK);
                        },
                        "js-cycle",
                        "lib/b.js",
                        List.of("fx-cycle/other")));
        cases.add(
                new Case(
                        "a missing file",
                        d -> write(d, "package.json", manifest("fx-missing", js(".", "gone.js"))),
                        "file-missing",
                        "gone.js",
                        List.of()));
        cases.add(
                new Case(
                        "a file that is a symbolic link",
                        d -> {
                            write(d, "package.json", manifest("fx-link", js(".", "a.js")));
                            write(d, "real.js", OK);
                            Fixtures.symlink(d.resolve("a.js"), d.resolve("real.js"));
                        },
                        "file-symlink",
                        "a.js",
                        List.of()));
        cases.add(
                new Case(
                        "a directory that is a symbolic link to outside the pack",
                        d -> {
                            write(d, "package.json", manifest("fx-dirlink", js(".", "lib/a.js")));
                            Path outside = d.resolveSibling("zz-outside");
                            write(outside, "a.js", OK);
                            Fixtures.symlink(d.resolve("lib"), outside);
                        },
                        "file-symlink",
                        "lib/a.js",
                        List.of()));
        cases.add(
                new Case(
                        "an oversized JS file",
                        d -> {
                            write(d, "package.json", manifest("fx-bigjs", js(".", "a.js")));
                            write(d, "a.js", "//" + "x".repeat(256 * 1024) + "\n" + OK);
                        },
                        "file-too-large",
                        "a.js",
                        List.of()));
        cases.add(
                new Case(
                        "an oversized WASM binary",
                        d -> {
                            write(d, "package.json", manifest("fx-bigwasm", wasm(".", "a.wasm")));
                            write(d, "a.wasm", Fixtures.paddedWasm(4 << 20));
                        },
                        "file-too-large",
                        "a.wasm",
                        List.of()));
        cases.add(
                new Case(
                        "a pack over 8 MB in total",
                        d -> {
                            write(
                                    d,
                                    "package.json",
                                    manifest(
                                            "fx-bigpack",
                                            wasm("a", "a.wasm")
                                                    + ","
                                                    + wasm("b", "b.wasm")
                                                    + ","
                                                    + wasm("c", "c.wasm")));
                            for (String f : List.of("a.wasm", "b.wasm", "c.wasm")) {
                                write(d, f, Fixtures.paddedWasm(3 << 20));
                            }
                        },
                        "pack-too-large",
                        "",
                        List.of()));
        cases.add(
                new Case(
                        "WASM with an i64 export",
                        d -> {
                            write(d, "package.json", manifest("fx-i64", wasm(".", "a.wasm")));
                            WasmBytes w = new WasmBytes();
                            int t = w.type(new int[] {WasmBytes.I64}, new int[] {});
                            int f = w.function(t, 0x0b);
                            write(d, "a.wasm", w.export("add", WasmBytes.FUNC, f).build());
                        },
                        "wasm-signature",
                        "a.wasm",
                        List.of()));
        cases.add(
                new Case(
                        "a forged manifest declaring another package's host module",
                        d ->
                                write(
                                        d,
                                        "package.json",
                                        manifest(
                                                "@evil/x",
                                                "{'name': '.', 'kind': 'host', 'host':"
                                                        + " 'diff'}")),
                        "host-pinned",
                        "sandjar.sandboxModules[0].host",
                        List.of()));
        cases.add(
                new Case(
                        "an unknown host module",
                        d ->
                                write(
                                        d,
                                        "package.json",
                                        manifest(
                                                "fx-shell",
                                                "{'name': '.', 'kind': 'host', 'host':"
                                                        + " 'shell'}")),
                        "host-unknown",
                        "sandjar.sandboxModules[0].host",
                        List.of()));
        cases.add(
                new Case(
                        "a third-party pack in the reserved scope",
                        d -> {
                            write(d, "package.json", manifest("@sandjar/evil", js(".", "a.js")));
                            write(d, "a.js", OK);
                        },
                        "package-reserved",
                        "name",
                        List.of()));
        cases.add(
                new Case(
                        "a SKILL.md without frontmatter (warning only)",
                        d -> {
                            write(d, "package.json", manifest("fx-skill", js(".", "a.js")));
                            write(d, "a.js", OK);
                            write(d, "SKILL.md", "# no frontmatter\n");
                        },
                        "skill-invalid",
                        "SKILL.md",
                        List.of("fx-skill")));
        cases.add(
                new Case(
                        "an oversized SKILL.md (warning only)",
                        d -> {
                            write(d, "package.json", manifest("fx-bigskill", js(".", "a.js")));
                            write(d, "a.js", OK);
                            write(d, "SKILL.md", "---\nname: x\n---\n" + "x".repeat(17_000));
                        },
                        "skill-too-large",
                        "SKILL.md",
                        List.of("fx-bigskill")));
        cases.add(
                new Case(
                        "one broken module does not withhold its siblings",
                        d -> {
                            write(
                                    d,
                                    "package.json",
                                    manifest(
                                            "fx-partial",
                                            js(".", "a.js") + "," + js("broken", "b.js")));
                            write(d, "a.js", OK);
                            write(d, "b.js", "export default (");
                        },
                        "js-syntax",
                        "b.js:1:17",
                        List.of("fx-partial")));
        return cases;
    }

    static String js(String name, String file) {
        return "{'name': '" + name + "', 'kind': 'js', 'file': '" + file + "'}";
    }

    static String wasm(String name, String file) {
        return "{'name': '"
                + name
                + "', 'kind': 'wasm', 'file': '"
                + file
                + "', 'memoryPagesMax': 1, 'exports': ['add']}";
    }

    @Test
    void everyRefusalIsANamedDiagnosticAndWithholdsOnlyWhatItTouches(@TempDir Path root) {
        List<Case> cases = cases();
        for (int i = 0; i < cases.size(); i++) {
            cases.get(i).pack().accept(root.resolve(String.format("p%02d", i)));
        }
        ModuleCatalog c = catalog(root);
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            Case k = cases.get(i);
            String label = String.format("p%02d", i);
            List<Diagnostic> mine =
                    c.diagnostics().stream()
                            .filter(d -> d.pack().equals(label) || packOf(root, label, d))
                            .toList();
            boolean found =
                    mine.stream()
                            .anyMatch(
                                    d -> d.code().equals(k.code()) && d.where().equals(k.where()));
            if (!found) {
                failures.add(
                        k.title()
                                + ": expected "
                                + k.code()
                                + " at "
                                + k.where()
                                + ", got "
                                + mine);
            }
        }
        for (Case k : cases) {
            for (String s : k.served()) {
                if (!specifiers(c).contains(s)) {
                    failures.add(k.title() + ": " + s + " should still be served");
                }
            }
        }
        List<String> served = specifiers(c);
        List<String> expected = cases.stream().flatMap(k -> k.served().stream()).sorted().toList();
        if (!served.equals(expected)) {
            failures.add("served " + served + ", expected " + expected);
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    /** Whether diagnostic {@code d} is about the pack in directory {@code label}. */
    private static boolean packOf(Path root, String label, Diagnostic d) {
        try {
            String text =
                    java.nio.file.Files.readString(root.resolve(label).resolve("package.json"));
            return text.contains("\"name\": \"" + d.pack() + "\"");
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void twoRootsClaimingOneNameAreBothRefused(@TempDir Path a, @TempDir Path b) {
        for (Path root : List.of(a, b)) {
            write(root.resolve("geo"), "package.json", manifest("@acme/geo", js(".", "a.js")));
            write(root.resolve("geo"), "a.js", OK);
        }
        ModuleCatalog c = catalog(a, b);
        assertEquals(List.of(), c.summaries());
        List<Diagnostic> dup =
                c.diagnostics().stream().filter(d -> d.code().equals("package-duplicate")).toList();
        assertEquals(2, dup.size(), c.diagnostics().toString());
        CatalogResolution r = c.resolveForExecution(List.of(ModuleDeclaration.of("@acme/geo")));
        assertFalse(r.isOk());
        assertTrue(
                r.errors().get(0).message().contains("installed in more than one place"),
                r.errors().toString());
    }

    @Test
    void aMissingPackIsAnErrorNamingThePackToInstall(@TempDir Path root) {
        write(root.resolve("geo"), "package.json", manifest("@acme/geo", js(".", "a.js")));
        write(root.resolve("geo"), "a.js", OK);
        CatalogResolution r =
                catalog(root)
                        .resolveForExecution(
                                List.of(
                                        ModuleDeclaration.of("@acme/geo"),
                                        ModuleDeclaration.of("@acme/maps/tiles"),
                                        ModuleDeclaration.of("@acme/geo/extra")));
        assertEquals(
                List.of(
                        "'@acme/maps/tiles': no installed pack provides it; install the pack"
                                + " @acme/maps",
                        "'@acme/geo/extra': pack @acme/geo has no public module 'extra'; it"
                                + " offers: @acme/geo"),
                r.errors().stream().map(Object::toString).toList());
        assertThrows(RefusedException.class, r::moduleResolution);
    }

    @Test
    void driftInVersionOrDigestIsAWarningAndTheInstalledCodeWins(@TempDir Path root) {
        write(root.resolve("geo"), "package.json", manifest("@acme/geo", js(".", "a.js")));
        write(root.resolve("geo"), "a.js", OK);
        ModuleCatalog c = catalog(root);
        String digest = c.summaries().get(0).graphDigest();
        CatalogResolution same =
                c.resolveForExecution(List.of(new ModuleDeclaration("@acme/geo", "1.0.0", digest)));
        assertEquals(List.of(), same.warnings());
        CatalogResolution moved =
                c.resolveForExecution(
                        List.of(new ModuleDeclaration("@acme/geo", "0.9.0", "sha256:00")));
        assertTrue(moved.isOk());
        assertEquals(2, moved.warnings().size(), moved.warnings().toString());
        assertTrue(moved.warnings().get(0).message().contains("1.0.0 is installed"));
    }

    @Test
    void theGraphDigestCoversEveryTransitiveSourceAndNothingElse(@TempDir Path root) {
        Path d = root.resolve("geo");
        write(
                d,
                "package.json",
                manifest(
                        "@acme/geo",
                        js(".", "a.js") + "," + js("solo", "s.js") + "," + wasm("w", "w.wasm"),
                        ", 'internal': ['lib/util.js']"));
        write(d, "a.js", "import { u } from './lib/util.js';\nexport const a = u;");
        write(d, "lib/util.js", "export const u = 1;");
        write(d, "s.js", OK);
        write(d, "w.wasm", WasmBytes.add("add"));
        ModuleCatalog c = catalog(root);
        assertEquals(List.of(), c.diagnostics());
        String root0 = digest(c, "@acme/geo");
        String solo0 = digest(c, "@acme/geo/solo");
        String wasm0 = digest(c, "@acme/geo/w");
        assertTrue(root0.matches("sha256:[0-9a-f]{64}"), root0);

        c.reload();
        assertEquals(root0, digest(c, "@acme/geo"), "stable across discoveries");

        write(d, "lib/util.js", "export const u = 2;");
        c.reload();
        assertNotEquals(root0, digest(c, "@acme/geo"), "an internal file is in the graph");
        assertEquals(solo0, digest(c, "@acme/geo/solo"), "an unrelated module is not");

        write(d, "w.wasm", Fixtures.paddedWasm(1));
        c.reload();
        assertNotEquals(wasm0, digest(c, "@acme/geo/w"), "WASM bytes are in the graph");
    }

    static String digest(ModuleCatalog c, String specifier) {
        return c.summaries().stream()
                .filter(s -> s.specifier().equals(specifier))
                .findFirst()
                .orElseThrow()
                .graphDigest();
    }

    @Test
    void deliveryServesSourceByOpaqueIdAndNeverAPath(@TempDir Path root) {
        Path d = root.resolve("geo");
        write(
                d,
                "package.json",
                manifest(
                        "@acme/geo",
                        js(".", "a.js") + "," + js("broken", "b.js"),
                        ", 'internal': ['lib/util.js']"));
        write(d, "a.js", "import { u } from './lib/util.js';\nexport const a = u;");
        write(d, "lib/util.js", "export const u = 1;");
        write(d, "b.js", "export default (");
        ModuleCatalog c = ModuleCatalog.builder(sandbox).searchPath(root).build();

        ModuleDelivery entry = c.authorizeDelivery("@acme/geo");
        assertEquals("@acme/geo::a.js", entry.graphId());
        assertEquals("a.js", entry.file());
        assertEquals("@acme/geo", entry.pack());
        assertEquals(ModuleDelivery.MEDIA_TYPE, entry.mediaType());
        assertEquals(Digests.sha256Hex(entry.source()), entry.contentSha256());
        assertEquals(digest(c, "@acme/geo"), entry.graphDigest());
        assertEquals(List.of("@acme/geo::lib/util.js"), entry.dependencyIds());

        ModuleDelivery internal = c.authorizeDelivery("@acme/geo::lib/util.js");
        assertEquals("export const u = 1;", internal.source());
        assertEquals(List.of(), internal.dependencyIds());

        ModuleDelivery facade = c.authorizeDelivery("@sandjar/diff");
        assertEquals("diff", facade.hostModule());
        assertEquals("@sandjar/diff::facade", facade.graphId());
        assertEquals("@sandjar/diff", facade.pack());
        assertTrue(facade.source().contains("import host from \"sandjar:bridge/packs.host.diff\""));
        assertTrue(facade.source().contains("export async function diffLines(...args)"));

        for (ModuleDelivery m : List.of(entry, internal, facade)) {
            assertFalse(m.toString().contains(root.toString()), "no filesystem path: " + m);
        }
        ModuleDeliveryException missing =
                assertThrows(
                        ModuleDeliveryException.class, () -> c.authorizeDelivery("@acme/nope"));
        assertEquals(ModuleDeliveryException.Reason.NOT_FOUND, missing.reason());
        ModuleDeliveryException withheld =
                assertThrows(
                        ModuleDeliveryException.class,
                        () -> c.authorizeDelivery("@acme/geo/broken"));
        assertEquals(ModuleDeliveryException.Reason.REFUSED, withheld.reason());
        for (String id : List.of("@acme/geo::b.js", "@acme/geo::package.json", "/etc/passwd")) {
            assertEquals(
                    ModuleDeliveryException.Reason.NOT_FOUND,
                    assertThrows(ModuleDeliveryException.class, () -> c.authorizeDelivery(id))
                            .reason(),
                    id);
        }
    }

    @Test
    void aWasmBinaryIsDeliveredAsDiscoveryCheckedIt(@TempDir Path root) {
        Path d = root.resolve("geo");
        write(
                d,
                "package.json",
                manifest("@acme/geo", js(".", "a.js") + "," + wasm("w", "w.wasm"), ""));
        write(d, "a.js", OK);
        byte[] bytes = WasmBytes.add("add");
        write(d, "w.wasm", bytes);
        ModuleCatalog c = catalog(root);
        assertEquals(List.of(), c.diagnostics());

        WasmDelivery w = c.authorizeWasm("@acme/geo/w");
        assertEquals(w, c.authorizeWasm("@acme/geo/w::facade"), "by its facade's graph id too");
        assertEquals("@acme/geo/w", w.specifier());
        assertEquals("@acme/geo", w.pack());
        assertEquals("@acme/geo/w::facade", w.graphId());
        assertArrayEquals(bytes, w.bytes());
        assertEquals(Digests.sha256Hex(bytes), w.sha256());
        assertEquals(digest(c, "@acme/geo/w"), w.graphDigest());
        assertEquals(
                List.of(new WasmDelivery.Function("add", "add", List.of("i32", "i32"), "i32")),
                w.functions());
        assertFalse(w.toString().contains(root.toString()), "no filesystem path: " + w);

        write(d, "w.wasm", Fixtures.paddedWasm(1));
        assertArrayEquals(bytes, w.bytes(), "a delivery keeps the binary it was made from");
        c.reload();
        assertEquals(
                Digests.sha256Hex(Fixtures.paddedWasm(1)), c.authorizeWasm("@acme/geo/w").sha256());
        for (String id : List.of("@acme/geo", "@acme/geo::a.js", "@acme/nope", "/etc/passwd")) {
            assertEquals(
                    ModuleDeliveryException.Reason.NOT_FOUND,
                    assertThrows(ModuleDeliveryException.class, () -> c.authorizeWasm(id)).reason(),
                    id);
        }
    }

    @Test
    void aPackageWithoutASandjarFieldIsIgnored(@TempDir Path root) {
        write(root.resolve("left-pad"), "package.json", json("{'name': 'left-pad'}"));
        write(root.resolve("@acme/geo"), "package.json", manifest("@acme/geo", js(".", "a.js")));
        write(root.resolve("@acme/geo"), "a.js", OK);
        ModuleCatalog c = catalog(root);
        assertEquals(List.of(), c.diagnostics());
        assertEquals(List.of("@acme/geo"), specifiers(c));
    }
}
