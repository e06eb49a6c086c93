package dev.sandjar.packs;

import static dev.sandjar.packs.Fixtures.manifest;
import static dev.sandjar.packs.Fixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pack index: a later discovery takes the parser's findings from it and finds what a parse
 * finds; a changed file is parsed again; an index that fails its integrity check is ignored; and
 * nothing an index says can weaken a guard or what the loader enforces when a run imports.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PackIndexTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static Sandbox sandbox;

    /** A sandbox that is closed: a discovery that asks its parser gets js-unanalyzable. */
    static Sandbox closed;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
        closed = Sandbox.builder().poolSize(1).build();
        closed.close();
    }

    static ModuleCatalog catalog(Sandbox s, Path index, Path packs) {
        ModuleCatalog.Builder b = ModuleCatalog.builder(s).shippedPacks(false).searchPath(packs);
        if (index != null) {
            b.indexDirectory(index);
        }
        return b.build();
    }

    /** Two packs: one with an internal file, one with a finding. */
    static void packs(Path dir) {
        write(
                dir.resolve("geo"),
                "package.json",
                manifest(
                        "@acme/geo",
                        "{'name': '.', 'kind': 'js', 'file': 'm.js'}",
                        ", 'internal': ['lib/km.js']"));
        write(
                dir.resolve("geo"),
                "m.js",
                "import { km } from './lib/km.js';\nexport const dist = (a) => km(a);\n");
        write(dir.resolve("geo"), "lib/km.js", "export const km = (a) => a * 1000;\n");
        write(
                dir.resolve("old"),
                "package.json",
                manifest("@acme/old", "{'name': '.', 'kind': 'js', 'file': 'm.js'}"));
        write(dir.resolve("old"), "m.js", "export const x = require('fs');\n");
    }

    static final String OWN =
            "function fetch(u) { return 'own ' + u; }\nexport const get = () => fetch('x');\n";

    /**
     * A pack whose file declares the withheld name fetch itself: the guard leaves it to the file,
     * which the parser decides at every discovery.
     */
    static void own(Path dir) {
        write(
                dir.resolve("own"),
                "package.json",
                manifest("@acme/own", "{'name': '.', 'kind': 'js', 'file': 'm.js'}"));
        write(dir.resolve("own"), "m.js", OWN);
    }

    static Path indexFile(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> files = s.filter(p -> p.toString().endsWith(".idx")).toList();
            assertEquals(1, files.size(), files::toString);
            return files.get(0);
        }
    }

    /** Runs {@code code}, which imports {@code specifier}, on the live sandbox. */
    static Object run(ModuleCatalog c, String specifier, String code) {
        CatalogResolution r = c.resolveForExecution(List.of(ModuleDeclaration.of(specifier)));
        assertTrue(r.isOk(), () -> r.errors().toString());
        RunResult result =
                sandbox.run(RunRequest.builder(code).modules(r.moduleResolution()).build());
        assertTrue(result.isOk(), () -> String.valueOf(result.error()));
        return result.value();
    }

    @Test
    void aLaterDiscoveryTakesTheParsersFindingsFromTheIndex(
            @TempDir Path packs, @TempDir Path index) throws IOException {
        packs(packs);
        ModuleCatalog plain = catalog(sandbox, null, packs);
        ModuleCatalog first = catalog(sandbox, index, packs);
        assertEquals(plain.summaries(), first.summaries());
        assertEquals(plain.diagnostics(), first.diagnostics());
        assertTrue(
                plain.diagnostics().stream().anyMatch(d -> d.code().equals("js-require")),
                plain.diagnostics()::toString);
        byte[] written = Files.readAllBytes(indexFile(index));

        // The closed sandbox cannot parse: everything this discovery knows of the code is the
        // index's, and it is what a parse found.
        ModuleCatalog second = catalog(closed, index, packs);
        assertEquals(plain.summaries(), second.summaries());
        assertEquals(plain.diagnostics(), second.diagnostics());
        assertEquals(
                1000L,
                ((Number)
                                run(
                                        second,
                                        "@acme/geo",
                                        "import { dist } from '@acme/geo';\nreturn dist(1);"))
                        .longValue());
        // Nothing new was parsed, so the index was not written again.
        assertEquals(
                new String(written, StandardCharsets.UTF_8), Files.readString(indexFile(index)));
    }

    @Test
    void aFileThatDeclaresAWithheldNameKeepsItWithTheIndex(
            @TempDir Path packs, @TempDir Path index) {
        own(packs);
        for (int i = 0; i < 2; i++) {
            ModuleCatalog c = catalog(sandbox, index, packs);
            assertEquals(
                    "own x",
                    run(c, "@acme/own", "import { get } from '@acme/own';\nreturn get();"));
        }
    }

    @Test
    void aChangedFileIsParsedAgain(@TempDir Path packs, @TempDir Path index) {
        packs(packs);
        catalog(sandbox, index, packs);
        // Same size, other text: a size or time stamp would not tell, its SHA-256 does.
        write(packs.resolve("geo"), "lib/km.js", "export const km = require('km');;;\n");
        ModuleCatalog c = catalog(sandbox, index, packs);
        assertTrue(
                c.diagnostics().stream()
                        .anyMatch(
                                d -> d.code().equals("js-require") && d.pack().equals("@acme/geo")),
                c.diagnostics()::toString);
        assertFalse(
                c.summaries().stream().anyMatch(s -> s.specifier().equals("@acme/geo")),
                c.summaries()::toString);
        // And with the closed sandbox, a file the index does not hold cannot pass unread.
        write(packs.resolve("geo"), "lib/km.js", "export const km = (a) => a * 1001;\n");
        ModuleCatalog unparsed = catalog(closed, index, packs);
        assertTrue(
                unparsed.diagnostics().stream().anyMatch(d -> d.code().equals("js-unanalyzable")),
                unparsed.diagnostics()::toString);
    }

    @Test
    void anIndexThatFailsItsIntegrityCheckIsIgnoredAndRebuilt(
            @TempDir Path packs, @TempDir Path index) throws IOException {
        packs(packs);
        catalog(sandbox, index, packs);
        Path file = indexFile(index);
        String clean = Files.readString(file);
        // Someone without the key tampers with a pack and writes its new text's findings into
        // the index: the clean file's entry under the tampered text's key.
        String tampered = "import { km } from './lib/km.js';\nexport const dist = require('x');\n";
        write(packs.resolve("geo"), "m.js", tampered);
        String cleanKey =
                PackParses.analysisKey(
                        "import { km } from './lib/km.js';\nexport const dist = (a) => km(a);\n");
        assertTrue(clean.contains(cleanKey), clean);
        Files.writeString(
                file,
                clean.replace(
                        "\"entries\":{",
                        "\"entries\":{\""
                                + PackParses.analysisKey(tampered)
                                + "\":"
                                + entry(clean, cleanKey)
                                + ","));

        ModuleCatalog c = catalog(sandbox, index, packs);
        assertTrue(
                c.diagnostics().stream()
                        .anyMatch(
                                d -> d.code().equals("js-require") && d.pack().equals("@acme/geo")),
                c.diagnostics()::toString);
        // Rebuilt: it verifies again, and holds what the parser found.
        String rebuilt = Files.readString(file);
        assertNotEquals(clean, rebuilt);
        PackIndex reopened = PackIndex.open(index, configuration(packs));
        assertNotNull(reopened.get(PackParses.analysisKey(tampered)));
        assertTrue(
                PackParses.fromJson(reopened.get(PackParses.analysisKey(tampered)))
                                .requireCalls()
                                .size()
                        == 1);
    }

    /** The JSON of the entry under {@code key} in an index file's text. */
    private static String entry(String indexText, String key) throws IOException {
        String json = indexText.substring(indexText.indexOf('\n') + 1);
        return new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(json)
                .path("entries")
                .path(key)
                .toString();
    }

    static String configuration(Path packs) {
        return PackIndex.configuration(
                null, List.of(new CatalogSnapshot.SearchPath(packs, Trust.UNTRUSTED)));
    }

    @Test
    void evenAnIndexWrittenWithTheKeyCannotWeakenAGuardOrTheLoader(
            @TempDir Path packs, @TempDir Path index) {
        packs(packs);
        own(packs);
        String own = OWN;
        String geo = "import { km } from './lib/km.js';\nexport const dist = (a) => km(a);\n";
        // What a writer holding the key could claim: that @acme/own's file takes the full guard
        // (so no name is left to it), and that @acme/geo's entry file imports nothing.
        PackIndex forged = PackIndex.open(index, configuration(packs));
        forged.put(
                PackParses.guardKey(own, PackTrust.DEFAULT_WITHHELD),
                JsonNodeFactory.instance.booleanNode(true));
        forged.put(
                PackParses.analysisKey(geo),
                PackParses.toJson(
                        new CodeAnalysis(null, List.of(), true, null, List.of(), List.of(), null)));
        forged.save();

        ModuleCatalog c = catalog(sandbox, index, packs);
        // The full guard collides with the file's own fetch: the run fails to load the module,
        // it never runs with a shadow missing.
        CatalogResolution r = c.resolveBody("import { get } from '@acme/own';\nreturn get();");
        RunResult own1 =
                sandbox.run(
                        RunRequest.builder("import { get } from '@acme/own';\nreturn get();")
                                .modules(r.moduleResolution())
                                .build());
        assertFalse(own1.isOk());
        assertEquals(RunError.Kind.SYNTAX, own1.error().kind(), own1.error()::toString);
        // The loader serves a pack file only the imports discovery resolved: the one the index
        // hid is refused when the run links.
        CatalogResolution g = c.resolveBody("import { dist } from '@acme/geo';\nreturn dist(1);");
        assertTrue(g.isOk(), () -> g.errors().toString());
        RunResult geo1 =
                sandbox.run(
                        RunRequest.builder("import { dist } from '@acme/geo';\nreturn dist(1);")
                                .modules(g.moduleResolution())
                                .build());
        assertFalse(geo1.isOk());
        assertEquals(RunError.Kind.IMPORT, geo1.error().kind(), geo1.error()::toString);
    }

    @Test
    void aDirectoryThatCannotHoldAnIndexLeavesDiscoveryAsItWas(
            @TempDir Path packs, @TempDir Path tmp) throws IOException {
        packs(packs);
        Path notADirectory = Files.writeString(tmp.resolve("file"), "x");
        ModuleCatalog c = catalog(sandbox, notADirectory, packs);
        assertEquals(catalog(sandbox, null, packs).summaries(), c.summaries());
        assertEquals("x", Files.readString(notADirectory));
    }
}
