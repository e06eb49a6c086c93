package dev.sandjar.server.cli;

import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.Diagnostic;
import dev.sandjar.packs.compile.CompileException;
import dev.sandjar.packs.compile.NpmCompiler;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * {@code sandjar packs compile NAME@VERSION [--out DIR]}: one npm package, fetched with the npm
 * client into a private temporary directory ({@code --ignore-scripts}, integrity from the
 * lockfile), compiled by {@link NpmCompiler} into a pack directory {@code DIR/NAME} that {@code
 * --packs DIR} serves as {@code import ... from "NAME"} (docs/packs.md, "The npm compiler"). Prints
 * every diagnostic; exits 0 when admitted, 2 when refused, 1 on bad usage or when npm or node
 * cannot do their part.
 */
final class PacksCompileCommand {
    static final String USAGE =
            "       sandjar packs compile NAME@VERSION [--out DIR] [--no-cache]";

    private static final Pattern EXACT =
            Pattern.compile("[0-9]+\\.[0-9]+\\.[0-9]+([-+][0-9A-Za-z.+-]+)?");

    private PacksCompileCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        String spec = null;
        Path outDir = Path.of(".");
        boolean cache = true;
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> outDir = Path.of(SandjarCli.value(args, ++i, "--out"));
                case "--no-cache" -> cache = false;
                default -> {
                    if (args[i].startsWith("--")) {
                        throw new IllegalArgumentException("unknown option " + args[i]);
                    }
                    if (spec != null) {
                        throw new IllegalArgumentException("unexpected argument '" + args[i] + "'");
                    }
                    spec = args[i];
                }
            }
        }
        if (spec == null) {
            throw new IllegalArgumentException("packs compile needs NAME@VERSION");
        }
        int at = spec.lastIndexOf('@');
        if (at <= 0 || !EXACT.matcher(spec.substring(at + 1)).matches()) {
            throw new IllegalArgumentException(
                    "packs compile needs NAME@VERSION with an exact version (1.2.3), got '"
                            + spec
                            + "'");
        }
        String name = spec.substring(0, at);
        String version = spec.substring(at + 1);
        Path work = null;
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build()) {
            work = Files.createTempDirectory("sandjar-compile");
            NpmCompiler compiler =
                    new NpmCompiler(sandbox, cache ? NpmCompiler.defaultCacheRoot() : null, err);
            NpmCompiler.Outcome o = compiler.compileFromRegistry(name, version, work);
            for (Diagnostic d : o.diagnostics()) {
                out.println(d);
            }
            if (!o.admitted()) {
                long errors = o.diagnostics().stream().filter(Diagnostic::isError).count();
                out.println("refused: " + spec + " (" + errors + " error(s))");
                return 2;
            }
            Path dir = NpmCompiler.writePack(outDir, o);
            out.println(
                    "admitted: "
                            + spec
                            + " ("
                            + o.bundle().length()
                            + " characters, sha256:"
                            + o.bundleSha256()
                            + ") into "
                            + dir
                            + "; run with --packs "
                            + outDir
                            + " and import it as \""
                            + name
                            + "\"");
            return 0;
        } catch (CompileException | IOException e) {
            err.println("error: " + e.getMessage());
            return 1;
        } finally {
            if (work != null) {
                NpmCompiler.deleteQuietly(work);
            }
        }
    }
}
