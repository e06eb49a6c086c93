package dev.sandjar.packs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.packs.PackManifest.HostEntry;
import dev.sandjar.packs.PackManifest.JsEntry;
import dev.sandjar.packs.PackManifest.ModuleSpec;
import dev.sandjar.packs.PackManifest.WasmEntry;
import dev.sandjar.packs.PackManifest.WasmExport;
import dev.sandjar.quickjs.testing.Fuzz;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing of the pack manifest reader and the naming rules (docs/packs.md "The manifest"): valid
 * manifests mutated as text and as UTF-8 bytes, and name and path pieces. The reader must never
 * throw, a manifest it accepts must obey every rule by an independent check (below), and a manifest
 * it refuses must say why. Tries: {@link Fuzz}.
 */
class ManifestFuzzTest {
    private static final List<String> VALID =
            List.of(
                    "{\"name\":\"@acme/geo\",\"version\":\"1.2.0\",\"description\":\"Distances\","
                        + "\"sandjar\":{\"apiVersion\":1,\"sandboxModules\":["
                        + "{\"name\":\".\",\"kind\":\"js\",\"file\":\"sandbox/geo.js\","
                        + "\"description\":\"haversine\"},"
                        + "{\"name\":\"extra\",\"kind\":\"js\",\"file\":\"sandbox/extra.mjs\"},"
                        + "{\"name\":\"simplify\",\"kind\":\"wasm\",\"file\":\"sandbox/s.wasm\","
                        + "\"memoryPagesMax\":16,\"exports\":[\"simplify\","
                        + "{\"wasm\":\"foo-bar\",\"as\":\"fooBar\"}]}],"
                        + "\"internal\":[\"sandbox/util.js\"]}}",
                    "{\"name\":\"text\",\"version\":\"0.0.1-beta+1\",\"sandjar\":{\"apiVersion\":1,"
                            + "\"sandboxModules\":[{\"name\":\"diff\",\"kind\":\"host\","
                            + "\"host\":\"diff\"}]}}",
                    "{\"name\":\"a\",\"version\":\"1\",\"private\":true,\"scripts\":{},"
                        + "\"sandjar\":{\"apiVersion\":1,\"sandboxModules\":[{\"name\":\"x.y_z-1\","
                        + "\"kind\":\"js\",\"file\":\"a_b/c.d.js\"}]}}");

    private static final List<String> PIECES =
            List.of(
                    "..",
                    "../",
                    "/",
                    "./",
                    "\\",
                    ":",
                    "\\u0000",
                    "\u0000",
                    "@",
                    "@sandjar/",
                    "A",
                    "\u00e9",
                    "\u0130",
                    "\uD800",
                    "~",
                    "-",
                    "_",
                    ".js",
                    ".wasm",
                    "node_modules",
                    "__proto__",
                    "internal",
                    "default",
                    "constructor",
                    "\"",
                    "\":\"",
                    "\",\"",
                    "{",
                    "}",
                    "[",
                    "]",
                    ",",
                    "\"kind\":\"host\"",
                    "\"kind\":\"wasm\"",
                    "\"memoryPagesMax\":-1",
                    "\"memoryPagesMax\":4097",
                    "\"memoryPagesMax\":1e3",
                    "\"apiVersion\":1.0",
                    "\"name\":\".\"",
                    "x".repeat(215));

    @Test
    void readerNeverThrowsAndAcceptsOnlyValidManifests() {
        Fuzz.run(
                "ManifestReader.read",
                3000,
                r -> {
                    String seed = Fuzz.pick(r, VALID);
                    return switch (r.nextInt(5)) {
                        case 0 -> seed.getBytes(StandardCharsets.UTF_8);
                        case 1 -> Fuzz.mutate(r, seed.getBytes(StandardCharsets.UTF_8));
                        default -> Fuzz.mutate(r, seed, PIECES).getBytes(StandardCharsets.UTF_8);
                    };
                },
                ManifestFuzzTest::checkManifest);
    }

    private static void checkManifest(byte[] json) {
        ManifestReader.Read read = ManifestReader.read("dir", json);
        assertNotNull(read);
        boolean errors =
                read.diagnostics().stream()
                        .anyMatch(d -> d.severity() == Diagnostic.Severity.ERROR);
        PackManifest m = read.manifest();
        if (m == null) {
            assertTrue(errors || !read.isSandboxPack(), "refused without an error: " + read);
            return;
        }
        assertFalse(errors, "accepted with errors: " + read.diagnostics());
        assertTrue(validPackageName(m.name()), "accepted package name " + Fuzz.show(m.name()));
        assertEquals(m.name(), read.claimedName());
        assertTrue(m.version().matches("[0-9A-Za-z.+-]{1,64}"), "version " + m.version());
        assertTrue(
                !m.modules().isEmpty() && m.modules().size() <= ManifestReader.MAX_MODULES,
                "module count " + m.modules().size());
        Set<String> names = new HashSet<>();
        Set<String> files = new HashSet<>();
        for (String f : m.internal()) {
            assertTrue(validPath(f) && f.matches(".*\\.m?js"), "internal " + Fuzz.show(f));
            assertTrue(files.add(f), "duplicate file " + f);
        }
        for (ModuleSpec spec : m.modules()) {
            assertTrue(validModuleName(spec.name()), "module name " + Fuzz.show(spec.name()));
            assertTrue(names.add(spec.name()), "duplicate module " + spec.name());
            if (spec instanceof JsEntry js) {
                assertTrue(validPath(js.file()) && js.file().matches(".*\\.m?js"), js.file());
                assertTrue(files.add(js.file()), "duplicate file " + js.file());
            } else if (spec instanceof WasmEntry w) {
                assertTrue(validPath(w.file()) && w.file().endsWith(".wasm"), w.file());
                assertTrue(files.add(w.file()), "duplicate file " + w.file());
                assertTrue(
                        w.memoryPagesMax() >= 0
                                && w.memoryPagesMax() <= PackManifest.MAX_MEMORY_PAGES,
                        "memoryPagesMax " + w.memoryPagesMax());
                assertTrue(!w.exports().isEmpty() && w.exports().size() <= 64);
                Set<String> as = new HashSet<>();
                for (WasmExport e : w.exports()) {
                    assertTrue(validJsName(e.as()), "export " + Fuzz.show(e.as()));
                    assertTrue(as.add(e.as()), "duplicate export " + e.as());
                }
            } else if (spec instanceof HostEntry h) {
                assertTrue(h.host().matches("[a-z][a-z0-9]*(-[a-z][a-z0-9]*)*"), h.host());
            }
        }
    }

    @Test
    void namingRulesAcceptOnlyWhatTheyPromise() {
        List<String> seeds =
                List.of(
                        "@acme/geo",
                        "geo",
                        "sandbox/geo.js",
                        "a/b/c.wasm",
                        "simplify",
                        "fooBar",
                        ".",
                        "x.y_z-1");
        Fuzz.run(
                "PackNames",
                5000,
                r -> Fuzz.mutate(r, Fuzz.pick(r, seeds), PIECES),
                s -> {
                    if (PackNames.isValidPackageName(s)) {
                        assertTrue(validPackageName(s), "package name " + Fuzz.show(s));
                    }
                    if (PackNames.pathProblem(s) == null) {
                        assertTrue(validPath(s), "path " + Fuzz.show(s));
                    }
                    if (PackNames.moduleNameProblem(s) == null) {
                        assertTrue(validModuleName(s), "module name " + Fuzz.show(s));
                    }
                    if (PackNames.exportNameProblem(s) == null) {
                        assertTrue(validJsName(s), "export name " + Fuzz.show(s));
                    }
                    String pkg = PackNames.packageOf(s);
                    assertTrue(s.startsWith(pkg), "packageOf(" + s + ") = " + pkg);
                });
    }

    @Test
    void regressionCasesStayRefused() {
        for (String bad :
                List.of("../x.js", "a/../../x.js", "/etc/x.js", "a\\b.js", "c:x.js", "a//b.js")) {
            assertNotNull(PackNames.pathProblem(bad), bad);
        }
        for (String bad : List.of("A", "@a", "@/x", ".x", "_x", "a/b", "x".repeat(215), "\u00e9")) {
            assertFalse(PackNames.isValidPackageName(bad), bad);
        }
        assertNull(PackNames.pathProblem("a/b.js"));
    }

    // ---------------------------------------------------------------------------------------
    // The rules, written again independently of PackNames (docs/packs.md).

    private static boolean asciiOnly(String s, String allowed) {
        for (char c : s.toCharArray()) {
            if (allowed.indexOf(c) < 0
                    && !(c >= 'a' && c <= 'z')
                    && !(c >= '0' && c <= '9')
                    && !(allowed.contains("A") && c >= 'A' && c <= 'Z')) {
                return false;
            }
        }
        return true;
    }

    /** npm: lower case, optional {@code @scope/}, at most 214, no leading '.' or '_'. */
    static boolean validPackageName(String s) {
        if (s.isEmpty() || s.length() > 214 || !asciiOnly(s, "@/.-_~")) {
            return false;
        }
        String[] parts = s.split("/", -1);
        if (parts.length > 2 || (parts.length == 2) != s.startsWith("@")) {
            return false;
        }
        if (s.indexOf('@', 1) >= 0 || (parts.length == 1 && s.startsWith("@"))) {
            return false;
        }
        for (String p : parts) {
            String bare = p.startsWith("@") ? p.substring(1) : p;
            if (bare.isEmpty() || bare.startsWith(".") || bare.startsWith("_")) {
                return false;
            }
        }
        return true;
    }

    /** Pack-relative, '/'-separated, normalized, plain segments. */
    static boolean validPath(String s) {
        if (s.isEmpty() || s.length() > 256 || s.startsWith("/")) {
            return false;
        }
        for (String seg : s.split("/", -1)) {
            if (seg.isEmpty()
                    || seg.equals(".")
                    || seg.equals("..")
                    || seg.startsWith(".")
                    || seg.startsWith("-")
                    || !asciiOnly(seg, "A._-")) {
                return false;
            }
        }
        return true;
    }

    static boolean validModuleName(String s) {
        if (s.equals(".")) {
            return true;
        }
        String lower = s.toLowerCase(java.util.Locale.ROOT);
        return !s.isEmpty()
                && s.length() <= 64
                && asciiOnly(s, "A._-")
                && Character.isLetterOrDigit(s.charAt(0))
                && !Set.of("node_modules", "package.json", "internal", "facade", "__proto__")
                        .contains(lower)
                && !s.matches(".*\\.(js|mjs|wasm|json)");
    }

    static boolean validJsName(String s) {
        return !s.isEmpty()
                && s.length() <= 64
                && asciiOnly(s, "A_")
                && Character.isLetter(s.charAt(0))
                && !s.equals("default")
                && !PackNames.RESERVED_WORDS.contains(s);
    }
}
