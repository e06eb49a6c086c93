package dev.sandjar.packs.compile;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.Diagnostic;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Maven build's step that makes the shipped guest packs (packs/pom.xml, phase {@code
 * process-classes}): every config-only pack under the guest directory is compiled by {@link
 * NpmCompiler} from the one committed {@code package.json} and {@code package-lock.json} beside
 * them, installed with one {@code npm ci --ignore-scripts} and bundled in one esbuild process, and
 * written next to the other shipped packs. A build whose bundles are all cached runs no npm at all.
 * A refused guest pack fails the build with its diagnostics.
 *
 * <p>usage: {@code GuestPacksBuild GUEST_DIR OUT_DIR WORK_DIR [CACHE_DIR]}
 */
public final class GuestPacksBuild {
    private GuestPacksBuild() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 3 || args.length > 4) {
            System.err.println("usage: GuestPacksBuild GUEST_DIR OUT_DIR WORK_DIR [CACHE_DIR]");
            System.exit(2);
        }
        Path cache = args.length == 4 ? Path.of(args[3]) : Cache.defaultRoot();
        long start = System.nanoTime();
        int code = build(Path.of(args[0]), Path.of(args[1]), Path.of(args[2]), cache, System.out);
        System.out.printf("guest packs: %.1f s%n", (System.nanoTime() - start) / 1e9);
        System.exit(code);
    }

    /** A config-only pack: its directory and its npm modules. */
    record Source(Path dir, String name, Map<String, NpmCompiler.Request> modules) {}

    static int build(Path guest, Path out, Path work, Path cacheRoot, PrintStream log)
            throws IOException {
        List<Source> sources = sources(guest);
        List<NpmCompiler.Request> requests = new ArrayList<>();
        sources.forEach(s -> requests.addAll(s.modules().values()));
        Path packageJson = guest.resolve("package.json");
        Path lockfile = guest.resolve("package-lock.json");
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build()) {
            NpmCompiler compiler = new NpmCompiler(sandbox, cacheRoot, log);
            // Installed even when every bundle is cached (npm ci is skipped when this lockfile is
            // installed already): the compiler's tests bundle their fixtures with this esbuild.
            log.println("npm ci --ignore-scripts in " + work);
            NpmTree tree = NpmTree.ci(work, packageJson, lockfile);
            String esbuild = tree.installedVersion("esbuild");
            if (!NpmTree.ESBUILD_VERSION.equals(esbuild)) {
                log.println(
                        "error: "
                                + packageJson
                                + " pins esbuild "
                                + esbuild
                                + "; the compiler uses "
                                + NpmTree.ESBUILD_VERSION);
                return 1;
            }
            List<NpmCompiler.Outcome> outcomes = compiler.compile(tree, requests);
            boolean failed = false;
            for (NpmCompiler.Outcome o : outcomes) {
                for (Diagnostic d : o.diagnostics()) {
                    if (d.isError() || !o.cached()) {
                        log.println("  " + d);
                    }
                }
                failed |= !o.admitted();
            }
            if (failed) {
                log.println("error: a shipped guest pack was refused (diagnostics above)");
                return 1;
            }
            int k = 0;
            for (Source s : sources) {
                Map<String, NpmCompiler.Outcome> byModule = new LinkedHashMap<>();
                for (String module : s.modules().keySet()) {
                    byModule.put(module, outcomes.get(k++));
                }
                PackOutput.write(s.dir(), out.resolve(s.dir().getFileName().toString()), byModule);
            }
            log.println("guest packs: " + sources.size() + " written to " + out);
            return 0;
        } catch (CompileException e) {
            log.println("error: " + e.getMessage());
            return 1;
        }
    }

    /** Every pack directory under {@code guest}, sorted, with its npm modules. */
    static List<Source> sources(Path guest) throws IOException {
        Map<String, Source> out = new TreeMap<>();
        try (var dirs = Files.list(guest)) {
            for (Path dir : (Iterable<Path>) dirs::iterator) {
                Path manifest = dir.resolve("package.json");
                if (!Files.isDirectory(dir) || !Files.isRegularFile(manifest)) {
                    continue;
                }
                JsonNode m = NpmTree.JSON.readTree(manifest.toFile());
                String name = m.path("name").asText();
                Map<String, NpmCompiler.Request> modules = new LinkedHashMap<>();
                for (JsonNode e : m.path("sandjar").path("sandboxModules")) {
                    if (!e.path("kind").asText().equals("npm")) {
                        continue;
                    }
                    List<String> conditions = new ArrayList<>();
                    e.path("conditions").forEach(c -> conditions.add(c.asText()));
                    String label =
                            name
                                    + (e.path("name").asText().equals(".")
                                            ? ""
                                            : "/" + e.path("name").asText());
                    modules.put(
                            e.path("name").asText(),
                            new NpmCompiler.Request(
                                    label,
                                    e.path("package").asText(),
                                    e.path("version").asText(),
                                    e.hasNonNull("subpath") ? e.path("subpath").asText() : null,
                                    conditions));
                }
                out.put(dir.getFileName().toString(), new Source(dir, name, modules));
            }
        }
        return List.copyOf(out.values());
    }
}
