package dev.sandjar.bridges.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The guest's workspace object through Sandbox.run, on real files. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkspaceBridgeTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;
    @TempDir Path dir;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    private RunResult run(Path root, String code) {
        return sandbox.run(
                RunRequest.builder(code).bridge(WorkspaceBridge.create(root).bridge()).build());
    }

    @Test
    void theGuestReadsWritesListsAndMovesFilesInsideTheRoot() throws Exception {
        Path root = Files.createDirectory(dir.resolve("ws"));
        Files.writeString(root.resolve("in.txt"), "héllo");
        RunResult r =
                run(
                        root,
                        "const text = await workspace.read('in.txt');\n"
                            + "await workspace.mkdir('out/deep', {recursive: true});\n"
                            + "await workspace.write('out/deep/a.txt', text.toUpperCase());\n"
                            + "await workspace.writeBytes('/workspace/out/b.bin', new"
                            + " Uint8Array([1, 2, 3]));\n"
                            + "await workspace.copy('out/b.bin', 'out/c.bin');\n"
                            + "await workspace.move('out/c.bin', 'd.bin');\n"
                            + "const listed = (await workspace.list('out')).map((e) => e.name + ':'"
                            + " + e.type).sort();\n"
                            + "const st = await workspace.stat('out/b.bin');\n"
                            + "const bytes = await workspace.readBytes('d.bin');\n"
                            + "await workspace.remove('out', {recursive: true});\n"
                            + "return [workspace.root(), text, listed, st.type, st.size,"
                            + " st.modified instanceof Date, Array.from(bytes), (await"
                            + " workspace.list()).map((e) => e.name).sort()];");
        assertEquals(
                List.of(
                        "/workspace",
                        "héllo",
                        List.of("b.bin:file", "deep:directory"),
                        "file",
                        3L,
                        true,
                        List.of(1L, 2L, 3L),
                        List.of("d.bin", "in.txt")),
                r.valueOrThrow());
        assertEquals(
                List.of("d.bin", "in.txt"),
                Files.list(root).map(p -> p.getFileName().toString()).sorted().toList());
    }

    @Test
    void pathsOutsideTheRootAndSymlinksOutAreRefusedWithCodes() throws Exception {
        Path root = Files.createDirectory(dir.resolve("ws"));
        Path outside = Files.createDirectory(dir.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "top secret");
        Files.createSymbolicLink(root.resolve("link"), outside);
        RunResult r =
                run(
                        root,
                        "const out = {};\n"
                                + "for (const p of ['../outside/secret.txt', '/etc/passwd',"
                                + " 'link/secret.txt', 'a\\\\b', 'nul\\u0000x']) {\n"
                                + "  try { await workspace.read(p); out[p] = 'read'; } catch (e) {"
                                + " out[p] = e.name + ' ' + e.code; }\n"
                                + "}\n"
                                + "return out;");
        Map<?, ?> v = (Map<?, ?>) r.valueOrThrow();
        assertEquals("WorkspaceError OUTSIDE_ROOT", v.get("../outside/secret.txt"));
        assertEquals("WorkspaceError OUTSIDE_ROOT", v.get("/etc/passwd"));
        assertEquals("WorkspaceError SYMLINK", v.get("link/secret.txt"));
        assertEquals("WorkspaceError INVALID_PATH", v.get("a\\b"));
        assertEquals("WorkspaceError INVALID_PATH", v.get("nul\u0000x"));
        assertFalse(v.containsValue("read"));
    }

    @Test
    void perRunLimitsHoldAndAFailedWriteLeavesNothing() throws Exception {
        Path root = Files.createDirectory(dir.resolve("ws"));
        WorkspaceBridge small =
                WorkspaceBridge.create(
                        root,
                        WorkspaceLimits.builder().withMaxWriteBytes(1024).build(),
                        FilesystemAccess.CONTAINED);
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "try { await workspace.write('big.txt', 'x'.repeat(2000));"
                                                + " }\n"
                                                + "catch (e) { return [e.code, e.message]; }")
                                .bridge(small.bridge())
                                .build());
        List<?> v = (List<?>) r.valueOrThrow();
        assertEquals("TOO_LARGE", v.get(0));
        assertTrue(((String) v.get(1)).contains("1024"), (String) v.get(1));
        assertFalse(((String) v.get(1)).contains(root.toString()), "the host path leaked");
        try (var files = Files.list(root)) {
            assertEquals(0, files.count(), "a refused write left a file behind");
        }
    }

    @Test
    void theGuestSeesTheQuotaByName() throws Exception {
        Path root = Files.createDirectory(dir.resolve("quota"));
        WorkspaceBridge tiny =
                WorkspaceBridge.create(
                        root,
                        WorkspaceLimits.builder().withMaxWorkspaceEntries(1).build(),
                        FilesystemAccess.CONTAINED);
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "await workspace.write('a.txt', 'a');\n"
                                                + "try { await workspace.mkdir('d'); }\n"
                                                + "catch (e) { return [e.name, e.code, e.message];"
                                                + " }")
                                .bridge(tiny.bridge())
                                .build());
        assertEquals(
                List.of(
                        "WorkspaceError",
                        "QUOTA",
                        "mkdir \"d\": the workspace would hold 2 entries, over maxWorkspaceEntries"
                                + " (1)"),
                r.valueOrThrow());
    }
}
