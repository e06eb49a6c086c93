package dev.sandjar.packs.compile;

import dev.sandjar.host.Sandbox;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The sandbox's own analysis, for the compiler's scan: the {@code acorn.js} and {@code analyzer.js}
 * that the sandbox's analysis engine evaluates ({@code Sandbox.analyze}), taken from the
 * sandjar-host jar and run by node beside esbuild. Same parser, same scope walk; node because the
 * analysis engine reads about a kilobyte of code a second (a 14 KB bundle passes its 20 s parse
 * limit, docs/packs.md), and a bundle may be a megabyte.
 */
final class SandboxAnalysis {
    private SandboxAnalysis() {}

    /**
     * The entry wrappers the analyzer tries code in: as a function body, then as a module (the
     * constants of the host's EntryModule; a bundle is a module, read as written).
     */
    static final List<String> WRAPPERS =
            List.of(
                    "(async function () {\"use strict\";",
                    "\n})",
                    "export default await (async function () {",
                    "\n})();\n");

    /** Copies the host's resource {@code name} into {@code dir}. */
    static Path extract(String name, Path dir) throws IOException {
        Path out = dir.resolve(name);
        try (InputStream in = open(name)) {
            Files.write(out, in.readAllBytes());
        }
        return out;
    }

    /**
     * The resource from the host's jar or classes directory. On the class path the class loader
     * finds it; on the module path the host's package is not open, so it is read from the code
     * source itself.
     */
    private static InputStream open(String name) throws IOException {
        InputStream in = Sandbox.class.getResourceAsStream(name);
        if (in != null) {
            return in;
        }
        Path where;
        try {
            where =
                    Path.of(
                            Sandbox.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IOException("cannot locate the sandjar-host jar for " + name);
        }
        String rel = "dev/sandjar/host/" + name;
        if (Files.isDirectory(where)) {
            return Files.newInputStream(where.resolve(rel));
        }
        try (FileSystem zip = FileSystems.newFileSystem(where, Map.of())) {
            return new java.io.ByteArrayInputStream(Files.readAllBytes(zip.getPath(rel)));
        }
    }
}
