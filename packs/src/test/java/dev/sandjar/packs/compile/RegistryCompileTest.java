package dev.sandjar.packs.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.Diagnostic;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one test that fetches from the npm registry, by the path the build and {@code sandjar packs
 * compile} use: an ordinary library is admitted, one that needs Node's file system is refused by
 * name.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class RegistryCompileTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    @Test
    void lodashEsIsAdmittedAndFsExtraIsRefusedNamingFs(Sandbox sandbox, @TempDir Path dir)
            throws Exception {
        NpmCompiler compiler =
                new NpmCompiler(sandbox, null, new PrintStream(PrintStream.nullOutputStream()));
        NpmCompiler.Outcome lodash =
                compiler.compileFromRegistry("lodash-es", "4.17.21", dir.resolve("lodash"));
        assertTrue(lodash.admitted(), () -> lodash.diagnostics().toString());
        assertTrue(lodash.integrity().startsWith("sha512-"), lodash.integrity());

        NpmCompiler.Outcome fsExtra =
                compiler.compileFromRegistry("fs-extra", "11.2.0", dir.resolve("fs-extra"));
        assertFalse(fsExtra.admitted());
        Diagnostic first =
                fsExtra.diagnostics().stream()
                        .filter(Diagnostic::isError)
                        .findFirst()
                        .orElseThrow();
        assertEquals("npm-module-requires-builtin", first.code());
        assertTrue(
                fsExtra.diagnostics().stream()
                        .anyMatch(d -> d.message().startsWith("needs the Node built-in 'fs'")),
                () -> fsExtra.diagnostics().toString());
    }
}
