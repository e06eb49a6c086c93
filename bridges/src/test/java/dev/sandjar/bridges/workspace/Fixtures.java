package dev.sandjar.bridges.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sandjar.bridges.workspace.WorkspaceException.Code;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;

/** Shared test helpers: error assertions and leak checks. */
final class Fixtures {
    private Fixtures() {}

    static WorkspaceException assertCode(Code code, Executable call) {
        WorkspaceException e = assertThrows(WorkspaceException.class, call);
        assertEquals(code, e.code(), e.getMessage());
        return e;
    }

    /** Guest-facing messages must never carry the host's path of the root. */
    static WorkspaceException assertCode(Code code, Path root, Executable call) {
        WorkspaceException e = assertCode(code, call);
        assertFalse(
                e.getMessage().contains(root.toString()),
                "message leaks the host root: " + e.getMessage());
        return e;
    }

    /** Temporary files and staging directories this module creates, anywhere under dir. */
    static List<Path> strays(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(
                            p ->
                                    p.getFileName() != null
                                            && p.getFileName()
                                                    .toString()
                                                    .startsWith(AtomicWriter.TEMP_PREFIX))
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What this process has open under {@code dir}, as sorted /proc/self/fd targets. Scoped to the
     * test's directory, because the JVM and the test runner open descriptors of their own.
     */
    static List<String> openFilesUnder(Path dir) {
        String prefix = dir.toString();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.map(Fixtures::target)
                    .filter(t -> t.startsWith(prefix))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String target(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (IOException e) {
            return ""; // closed meanwhile (the listing's own descriptor)
        }
    }
}
