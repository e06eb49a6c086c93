package dev.sandjar.packs.compile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/**
 * Writes compiled packs: a pack directory whose {@code package.json} carries, for each npm module,
 * the compiler's fields ({@code bundle}, {@code bundleSha256}, {@code integrity}, {@code compiler})
 * and whose {@code npm/} folder holds the bundles. Discovery reads the result like any other pack.
 */
final class PackOutput {
    private PackOutput() {}

    /** The pack-relative bundle path of module {@code name}. */
    static String bundlePath(String moduleName) {
        return "npm/" + (moduleName.equals(".") ? "index" : moduleName) + ".js";
    }

    /**
     * Writes the config-only pack in {@code source} to {@code out} with each npm module compiled:
     * {@code outcomes} by module name, every one admitted. Other files of the pack (SKILL.md) are
     * copied as they are.
     */
    static void write(Path source, Path out, Map<String, NpmCompiler.Outcome> outcomes)
            throws IOException {
        ObjectNode manifest =
                (ObjectNode) NpmTree.JSON.readTree(source.resolve("package.json").toFile());
        Cache.deleteTree(out);
        Files.createDirectories(out);
        for (JsonNode m : manifest.path("sandjar").path("sandboxModules")) {
            if (!m.path("kind").asText().equals("npm")) {
                continue;
            }
            String name = m.path("name").asText();
            NpmCompiler.Outcome o = outcomes.get(name);
            if (o == null || !o.admitted()) {
                throw new IllegalStateException(
                        "module " + name + " of " + source + " was not compiled");
            }
            compiled((ObjectNode) m, bundlePath(name), o);
            Path bundle = out.resolve(bundlePath(name));
            Files.createDirectories(bundle.getParent());
            Files.writeString(bundle, o.bundle(), StandardCharsets.UTF_8);
        }
        try (var files = Files.list(source)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String n = f.getFileName().toString();
                if (Files.isRegularFile(f) && !n.equals("package.json")) {
                    Files.copy(f, out.resolve(n), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        Files.writeString(
                out.resolve("package.json"),
                manifest.toPrettyString() + "\n",
                StandardCharsets.UTF_8);
    }

    /**
     * A pack for one compiled npm package, named after it: {@code import x from "<name>"}. Returns
     * its directory, {@code outRoot/<name>}.
     */
    static Path writeSingle(Path outRoot, NpmCompiler.Outcome o) throws IOException {
        NpmCompiler.Request r = o.request();
        ObjectNode manifest = NpmTree.JSON.createObjectNode();
        manifest.put("name", r.npmPackage());
        manifest.put("version", r.version());
        manifest.put(
                "description",
                "npm " + r.npmPackage() + "@" + r.version() + ", compiled by Sandjar");
        ObjectNode sandjar = manifest.putObject("sandjar");
        sandjar.put("apiVersion", 1);
        ObjectNode m = sandjar.putArray("sandboxModules").addObject();
        m.put("name", ".");
        m.put("kind", "npm");
        m.put("package", r.npmPackage());
        m.put("version", r.version());
        compiled(m, bundlePath("."), o);
        Path out = outRoot;
        for (String seg : r.npmPackage().split("/")) {
            out = out.resolve(seg);
        }
        Cache.deleteTree(out);
        Path bundle = out.resolve(bundlePath("."));
        Files.createDirectories(bundle.getParent());
        Files.writeString(bundle, o.bundle(), StandardCharsets.UTF_8);
        Files.writeString(
                out.resolve("package.json"),
                manifest.toPrettyString() + "\n",
                StandardCharsets.UTF_8);
        return out;
    }

    private static void compiled(ObjectNode m, String bundle, NpmCompiler.Outcome o) {
        m.put("bundle", bundle);
        m.put("bundleSha256", o.bundleSha256());
        m.put("integrity", o.integrity());
        m.put("compiler", o.compiler());
    }
}
