package dev.sandjar.packs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.ClosedFileSystemException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where the packs Sandjar ships live: {@code dev/sandjar/packs/shipped/} on the class path, a
 * directory in a build tree or a folder inside the jar (read through a zip file system, which has
 * no links). Discovery reads them exactly as it reads any other search path.
 */
final class ShippedPacks {
    static final String RESOURCE = "/dev/sandjar/packs/shipped/";

    private static volatile Path root;

    private ShippedPacks() {}

    static synchronized Path root() {
        if (root != null && !readable(root)) {
            // A thread interrupted while it read the jar closes the zip file system's channel
            // (an interruptible FileChannel), and every later read in this JVM would fail: the
            // shipped packs would vanish. Open the jar again.
            try {
                root.getFileSystem().close();
            } catch (IOException | UnsupportedOperationException ignored) {
                // closing a broken file system: nothing more to do
            }
            root = null;
        }
        if (root == null) {
            URL url = ShippedPacks.class.getResource(RESOURCE);
            if (url == null) {
                throw new IllegalStateException(
                        RESOURCE + " is missing from the sandjar-packs jar");
            }
            try {
                URI uri = url.toURI();
                if (uri.getScheme().equals("jar")) {
                    FileSystem fs;
                    try {
                        fs = FileSystems.newFileSystem(uri, Map.of());
                    } catch (FileSystemAlreadyExistsException e) {
                        fs = FileSystems.getFileSystem(uri);
                    }
                    root = fs.getPath(RESOURCE);
                } else {
                    root = Path.of(uri);
                }
            } catch (URISyntaxException e) {
                throw new IllegalStateException("bad resource URL " + url, e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return root;
    }

    /** Whether the packs' files can still be read: one manifest is read to tell. */
    private static boolean readable(Path dir) {
        if (dir.getFileSystem() == FileSystems.getDefault()) {
            return true;
        }
        try (DirectoryStream<Path> packs = Files.newDirectoryStream(dir)) {
            for (Path pack : packs) {
                Path manifest = pack.resolve("package.json");
                if (Files.isRegularFile(manifest)) {
                    Files.readAllBytes(manifest);
                    return true;
                }
            }
            return true;
        } catch (IOException | ClosedFileSystemException e) {
            return false;
        }
    }
}
