package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module graph of docs/architecture.md, checked on the sources: every reference one module's
 * main code makes to another's package, and every dependency a module's pom declares outside test
 * scope, must follow an allowed arrow. The module descriptors enforce exports for the modules that
 * have one; this also covers {@code server} and {@code bench}, which run on the class path, and
 * arrows a descriptor cannot forbid (core to bridges, say, if someone added the dependency).
 */
class ArchitectureTest {
    /** The modules, each with its folder and its package root. */
    enum Layer {
        ENGINE("quickjs-wasm", "dev.sandjar.quickjs"),
        TRANSPORT("transport", "dev.sandjar.transport"),
        CORE("host", "dev.sandjar.host"),
        BRIDGES("bridges", "dev.sandjar.bridges"),
        PACKS("packs", "dev.sandjar.packs"),
        SERVER("server", "dev.sandjar.server"),
        LANGCHAIN4J("langchain4j", "dev.sandjar.langchain4j"),
        BENCH("bench", "dev.sandjar.bench");

        final String folder;
        final String root;

        Layer(String folder, String root) {
            this.folder = folder;
            this.root = root;
        }

        static Layer ofPackage(String pkg) {
            for (Layer l : values()) {
                if (pkg.equals(l.root) || pkg.startsWith(l.root + ".")) {
                    return l;
                }
            }
            return null;
        }

        static Layer ofArtifact(String artifactId) {
            for (Layer l : values()) {
                if (artifactId.equals("sandjar-" + l.folder)) {
                    return l;
                }
            }
            return null;
        }
    }

    /**
     * The allowed arrows. Everything else is forbidden: engine to anything, transport to anything,
     * core to bridges, packs, server or bench, bridges and packs to each other, anything to bench.
     * Only the core reaches the engine, and only the core the codec ({@link #CORE_ONLY}).
     */
    static final Map<Layer, Set<Layer>> ALLOWED =
            Map.of(
                    Layer.ENGINE, EnumSet.noneOf(Layer.class),
                    Layer.TRANSPORT, EnumSet.noneOf(Layer.class),
                    Layer.CORE, EnumSet.of(Layer.ENGINE, Layer.TRANSPORT),
                    Layer.BRIDGES, EnumSet.of(Layer.CORE, Layer.TRANSPORT),
                    Layer.PACKS, EnumSet.of(Layer.CORE, Layer.TRANSPORT),
                    Layer.SERVER,
                            EnumSet.of(Layer.CORE, Layer.TRANSPORT, Layer.BRIDGES, Layer.PACKS),
                    Layer.LANGCHAIN4J,
                            EnumSet.of(
                                    Layer.CORE,
                                    Layer.TRANSPORT,
                                    Layer.BRIDGES,
                                    Layer.PACKS,
                                    Layer.SERVER),
                    Layer.BENCH,
                            EnumSet.of(
                                    Layer.CORE,
                                    Layer.TRANSPORT,
                                    Layer.BRIDGES,
                                    Layer.PACKS,
                                    Layer.SERVER));

    /** Packages the core alone may use, though their module is otherwise reachable. */
    static final List<String> CORE_ONLY = List.of("dev.sandjar.transport.codec");

    private static final Pattern REFERENCE =
            Pattern.compile("\\bdev\\.sandjar\\.[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*");
    private static final Pattern COMMENTS =
            Pattern.compile("//[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);
    private static final Pattern STRINGS = Pattern.compile("\"(?:\\\\.|[^\"\\\\\\n])*\"");

    /** A qualified export names the modules that may read a package: not an arrow. */
    private static final Pattern QUALIFIED = Pattern.compile("\\bto\\s[^;]*;");

    private static final Pattern DEPENDENCY =
            Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void mainCodeFollowsTheModuleGraph() throws IOException {
        List<String> violations = new ArrayList<>();
        int files = 0;
        for (Layer layer : Layer.values()) {
            Path src = ROOT.resolve(layer.folder).resolve("src/main/java");
            assertTrue(Files.isDirectory(src), "no sources at " + src);
            try (Stream<Path> walk = Files.walk(src)) {
                for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                    files++;
                    violations.addAll(
                            check(layer, ROOT.relativize(file).toString(), Files.readString(file)));
                }
            }
        }
        assertTrue(files > 100, "only " + files + " source files found under " + ROOT);
        assertEquals(List.of(), violations, "forbidden arrows (docs/architecture.md)");
    }

    @Test
    void pomsDeclareOnlyAllowedArrows() throws IOException {
        List<String> violations = new ArrayList<>();
        for (Layer layer : Layer.values()) {
            Path pom = ROOT.resolve(layer.folder).resolve("pom.xml");
            Matcher m = DEPENDENCY.matcher(Files.readString(pom));
            while (m.find()) {
                String dep = m.group(1);
                Matcher artifact = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(dep);
                if (!artifact.find() || dep.contains("<scope>test</scope>")) {
                    continue;
                }
                Layer target = Layer.ofArtifact(artifact.group(1).trim());
                if (target != null && target != layer && !ALLOWED.get(layer).contains(target)) {
                    violations.add(layer.folder + "/pom.xml: " + layer + " -> " + target);
                }
            }
        }
        assertEquals(List.of(), violations, "forbidden dependencies in the poms");
    }

    // The checker must be able to fail: each forbidden kind of arrow, on made-up sources.

    @Test
    void theCheckerSeesAForbiddenArrow() {
        String core =
                "package dev.sandjar.host;\n"
                        + "import dev.sandjar.bridges.console.Console;\n"
                        + "class X {}\n";
        assertEquals(
                List.of("X.java:2: CORE -> BRIDGES (dev.sandjar.bridges.console)"),
                check(Layer.CORE, "X.java", core));
        String bridges =
                "package dev.sandjar.bridges;\n"
                        + "class X { Object o = dev.sandjar.packs.PackLoader.class; }\n";
        assertEquals(
                List.of("X.java:2: BRIDGES -> PACKS (dev.sandjar.packs)"),
                check(Layer.BRIDGES, "X.java", bridges));
        String engine = "package dev.sandjar.quickjs;\n\nimport dev.sandjar.transport.Undefined;\n";
        assertEquals(1, check(Layer.ENGINE, "X.java", engine).size());
    }

    @Test
    void theCheckerSeesAnotherModulesInternalsAndTheCodec() {
        String server =
                "package dev.sandjar.server;\n"
                        + "import dev.sandjar.bridges.internal.Args;\n"
                        + "import dev.sandjar.transport.codec.Transport;\n"
                        + "import dev.sandjar.quickjs.JsValue;\n";
        assertEquals(
                List.of(
                        "X.java:2: SERVER -> dev.sandjar.bridges.internal, another module's"
                                + " internals",
                        "X.java:3: SERVER -> dev.sandjar.transport.codec, which only the core may"
                                + " use",
                        "X.java:4: SERVER -> ENGINE (dev.sandjar.quickjs)"),
                check(Layer.SERVER, "X.java", server));
    }

    @Test
    void commentsStringsAndOwnPackagesAreNotArrows() {
        String core =
                "package dev.sandjar.host;\n"
                        + "// see dev.sandjar.bridges.console\n"
                        + "/** {@link dev.sandjar.packs.PackLoader} */\n"
                        + "class X { String s = \"dev.sandjar.server.cli\"; }\n"
                        + "import dev.sandjar.host.Sandbox;\n"
                        + "import dev.sandjar.quickjs.JsValue;\n";
        assertEquals(List.of(), check(Layer.CORE, "X.java", core));
    }

    /** The forbidden references one source file of {@code layer} makes. */
    static List<String> check(Layer layer, String name, String source) {
        String code = blank(STRINGS, blank(COMMENTS, source));
        if (name.endsWith("module-info.java")) {
            code = blank(QUALIFIED, code);
        }
        List<String> out = new ArrayList<>();
        Matcher m = REFERENCE.matcher(code);
        while (m.find()) {
            String pkg = m.group(); // lower-case segments only: the package, never a class
            int line =
                    1 + (int) code.substring(0, m.start()).chars().filter(c -> c == '\n').count();
            if (code.lastIndexOf("package ", m.start()) == m.start() - "package ".length()) {
                continue; // the file's own package declaration
            }
            Layer target = Layer.ofPackage(pkg);
            if (target == null || target == layer) {
                continue;
            }
            String where = name + ":" + line + ": " + layer + " -> ";
            if (pkg.contains(".internal")) {
                out.add(where + pkg + ", another module's internals");
            } else if (layer != Layer.CORE && CORE_ONLY.stream().anyMatch(pkg::startsWith)) {
                out.add(where + pkg + ", which only the core may use");
            } else if (!ALLOWED.get(layer).contains(target)) {
                out.add(where + target + " (" + pkg + ")");
            }
        }
        return out;
    }

    /** Replaces each match with spaces, keeping newlines so line numbers stay right. */
    private static String blank(Pattern p, String s) {
        Matcher m = p.matcher(s);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, Matcher.quoteReplacement(m.group().replaceAll("[^\\n]", " ")));
        }
        m.appendTail(b);
        return b.toString();
    }
}
