package dev.sandjar.packs.compile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An installed npm tree: a project directory whose {@code node_modules} holds the packages to
 * compile, the directory whose {@code node_modules} holds esbuild, and the lockfile npm wrote. The
 * npm client installs it with {@code --ignore-scripts}, so no package's install script runs, and
 * checks every tarball against the integrity the lockfile (or the registry) names.
 */
final class NpmTree {
    static final ObjectMapper JSON = new ObjectMapper();

    /** The esbuild the compiler bundles with: one version, its options in every cache key. */
    static final String ESBUILD_VERSION = "0.28.2";

    private static final long NPM_TIMEOUT_MINUTES = 10;

    final Path projectDir;
    final Path toolDir;
    private final JsonNode lock; // packages of a lockfile v2/v3, or null

    NpmTree(Path projectDir, Path toolDir, JsonNode lock) {
        this.projectDir = projectDir;
        this.toolDir = toolDir;
        this.lock = lock;
    }

    /** A tree already on disk (a build's install, or a test's fixtures); its lockfile if any. */
    static NpmTree existing(Path projectDir, Path toolDir) {
        return new NpmTree(projectDir, toolDir, readLock(projectDir.resolve("package-lock.json")));
    }

    /**
     * Installs {@code packageJson} and {@code lockfile} into {@code workDir} with {@code npm ci
     * --ignore-scripts}, unless the same lockfile is installed there already.
     */
    static NpmTree ci(Path workDir, Path packageJson, Path lockfile) throws CompileException {
        try {
            Files.createDirectories(workDir);
            byte[] lockBytes = Files.readAllBytes(lockfile);
            Path marker = workDir.resolve("node_modules/.sandjar-lock-sha256");
            String want = Cache.sha256Hex(lockBytes);
            if (!Files.isRegularFile(marker)
                    || !Files.readString(marker, StandardCharsets.UTF_8).equals(want)) {
                Files.copy(
                        packageJson,
                        workDir.resolve("package.json"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Files.write(workDir.resolve("package-lock.json"), lockBytes);
                npm(workDir, "ci", "--ignore-scripts", "--no-audit", "--no-fund");
                Files.writeString(marker, want, StandardCharsets.UTF_8);
            }
            return existing(workDir, workDir);
        } catch (IOException e) {
            throw new CompileException("cannot install into " + workDir + ": " + e.getMessage());
        }
    }

    /**
     * Installs {@code name@version} and esbuild into the fresh directory {@code workDir} with
     * {@code npm install --ignore-scripts}: npm checks each tarball against the registry's
     * integrity and writes it to the lockfile, which the cache key reads.
     */
    static NpmTree install(Path workDir, String name, String version) throws CompileException {
        try {
            Files.createDirectories(workDir);
            ObjectNode pkg = JSON.createObjectNode();
            pkg.put("name", "sandjar-npm-compile");
            pkg.put("private", true);
            ObjectNode deps = pkg.putObject("dependencies");
            deps.put(name, version);
            deps.put("esbuild", ESBUILD_VERSION);
            Files.writeString(workDir.resolve("package.json"), pkg.toPrettyString());
        } catch (IOException e) {
            throw new CompileException("cannot write into " + workDir + ": " + e.getMessage());
        }
        npm(
                workDir,
                "install",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--save-exact",
                "--install-strategy=hoisted");
        return existing(workDir, workDir);
    }

    private static JsonNode readLock(Path lockfile) {
        if (!Files.isRegularFile(lockfile)) {
            return null;
        }
        try {
            JsonNode root = JSON.readTree(lockfile.toFile());
            JsonNode packages = root.get("packages");
            return packages != null && packages.isObject() ? packages : null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + lockfile, e);
        }
    }

    /** The installed version of {@code name} at the top of the tree, or null. */
    String installedVersion(String name) {
        if (lock != null) {
            JsonNode p = lock.get("node_modules/" + name);
            return p == null || p.get("version") == null ? null : p.get("version").asText();
        }
        Path manifest = projectDir.resolve("node_modules").resolve(name).resolve("package.json");
        try {
            JsonNode v = JSON.readTree(manifest.toFile()).get("version");
            return v == null ? null : v.asText();
        } catch (IOException e) {
            return null;
        }
    }

    /** The integrity the lockfile records for {@code name}, or a content hash without one. */
    String integrity(String name) {
        if (lock != null) {
            JsonNode p = lock.get("node_modules/" + name);
            return p == null || p.get("integrity") == null ? null : p.get("integrity").asText();
        }
        return "files-sha256:" + filesHash(projectDir.resolve("node_modules").resolve(name));
    }

    /**
     * One line per package {@code name} needs, itself included: its lockfile path, version and
     * integrity, sorted. Any change to what the bundle can be made of changes these lines; a
     * package outside the closure does not. Without a lockfile, the content hash of every file
     * under the top package and the packages it names.
     */
    List<String> closure(String name) {
        TreeSet<String> lines = new TreeSet<>();
        if (lock == null) {
            lines.add(name + " " + integrity(name));
            return List.copyOf(lines);
        }
        ArrayDeque<String> todo = new ArrayDeque<>();
        todo.add("node_modules/" + name);
        TreeSet<String> seen = new TreeSet<>();
        while (!todo.isEmpty()) {
            String path = todo.poll();
            if (!seen.add(path)) {
                continue;
            }
            JsonNode p = lock.get(path);
            if (p == null) {
                continue;
            }
            lines.add(path + " " + text(p, "version") + " " + text(p, "integrity"));
            for (String field :
                    List.of("dependencies", "optionalDependencies", "peerDependencies")) {
                JsonNode deps = p.get(field);
                if (deps == null) {
                    continue;
                }
                Iterator<String> names = deps.fieldNames();
                while (names.hasNext()) {
                    String dep = resolve(path, names.next());
                    if (dep != null) {
                        todo.add(dep);
                    }
                }
            }
        }
        return List.copyOf(lines);
    }

    /** Node's lookup: the nearest {@code node_modules/dep} from {@code from} up to the root. */
    private String resolve(String from, String dep) {
        String base = from;
        while (true) {
            String candidate = (base.isEmpty() ? "" : base + "/") + "node_modules/" + dep;
            if (lock.has(candidate)) {
                return candidate;
            }
            if (base.isEmpty()) {
                return null;
            }
            int i = base.lastIndexOf("/node_modules/");
            base = i < 0 ? "" : base.substring(0, i);
        }
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null ? "-" : v.asText();
    }

    private static String filesHash(Path dir) {
        if (!Files.isDirectory(dir)) {
            return "missing";
        }
        List<String> lines = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) walk.filter(Files::isRegularFile).sorted()::iterator) {
                lines.add(dir.relativize(f) + " " + Cache.sha256Hex(Files.readAllBytes(f)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Cache.sha256Hex(String.join("\n", lines));
    }

    /** Runs npm in {@code dir}; its output goes to the error message when it fails. */
    static void npm(Path dir, String... args) throws CompileException {
        List<String> cmd = new ArrayList<>();
        cmd.add("npm");
        cmd.addAll(List.of(args));
        run(dir, cmd, "npm " + args[0]);
    }

    /** Runs {@code cmd} in {@code dir}, returning its standard output. */
    static String run(Path dir, List<String> cmd, String what) throws CompileException {
        Path log;
        try {
            log = Files.createTempFile("sandjar-npm", ".log");
        } catch (IOException e) {
            throw new CompileException("cannot create a log file: " + e.getMessage());
        }
        Path out = log.resolveSibling(log.getFileName() + ".out");
        try {
            Process p;
            try {
                p =
                        new ProcessBuilder(cmd)
                                .directory(dir.toFile())
                                .redirectError(log.toFile())
                                .redirectOutput(out.toFile())
                                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                                .start();
            } catch (IOException e) {
                throw new CompileException(
                        "cannot run "
                                + cmd.get(0)
                                + ": "
                                + e.getMessage()
                                + ". The npm compiler needs Node.js 18+ with npm on the PATH"
                                + " (Debian: apt-get install nodejs npm).");
            }
            boolean done = p.waitFor(NPM_TIMEOUT_MINUTES, TimeUnit.MINUTES);
            if (!done) {
                p.destroyForcibly();
                throw new CompileException(
                        what + " did not finish in " + NPM_TIMEOUT_MINUTES + " minutes");
            }
            if (p.exitValue() != 0) {
                String text = Files.readString(log, StandardCharsets.UTF_8).strip();
                throw new CompileException(
                        what + " failed (exit " + p.exitValue() + "):\n" + tail(text, 4000));
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CompileException(what + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompileException(what + " was interrupted");
        } finally {
            try {
                Files.deleteIfExists(log);
                Files.deleteIfExists(out);
            } catch (IOException ignored) {
                // a temporary file left behind
            }
        }
    }

    private static java.io.File nullDevice() {
        return new java.io.File(
                System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private static String tail(String s, int max) {
        return s.length() <= max ? s : "..." + s.substring(s.length() - max);
    }
}
