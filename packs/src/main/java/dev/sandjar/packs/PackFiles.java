package dev.sandjar.packs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads files of one pack directory, and nothing outside it. A pack-relative path is walked segment
 * by segment: a symbolic link anywhere on the way is refused, the real path must equal the path
 * walked (so no link, mount trick or case fold leads elsewhere), and the file must be a regular
 * file within its size cap. The last segment is opened without following links as well, so a file
 * swapped for a link after the check is not followed either. Bytes are counted against the pack's
 * total.
 */
final class PackFiles {
    /** Authored JavaScript, per file. */
    static final int MAX_JS_BYTES = 256 * 1024;

    /** A bundle Sandjar's npm compiler made (its own cap, NpmCompiler.MAX_BUNDLE_BYTES). */
    static final int MAX_NPM_BUNDLE_BYTES = 1 << 20;

    /** A WebAssembly binary. */
    static final int MAX_WASM_BYTES = 4 << 20;

    /** Everything a pack ships that discovery reads. */
    static final long MAX_PACK_BYTES = 8L << 20;

    /** SKILL.md (warning-grade). */
    static final int MAX_SKILL_BYTES = 16 * 1024;

    /** Why a read failed: a diagnostic code and a message. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        final String code;

        Refused(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }

    private final Path dir;
    private long total;

    /** {@code dir} must already be a real path. */
    PackFiles(Path dir) {
        this.dir = dir;
    }

    long totalBytes() {
        return total;
    }

    boolean exists(String rel) {
        return Files.exists(walk(rel), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * The bytes of pack-relative {@code rel} (already checked by {@link PackNames#pathProblem}), at
     * most {@code cap} of them.
     */
    byte[] read(String rel, int cap) throws Refused {
        Path p = dir;
        String[] segments = rel.split("/");
        for (String seg : segments) {
            p = p.resolve(seg);
            if (Files.isSymbolicLink(p)) {
                throw new Refused(
                        "file-symlink",
                        (p.equals(walk(rel)) ? "is" : "passes through")
                                + " a symbolic link; pack files must be plain files inside the"
                                + " pack");
            }
        }
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new Refused("file-missing", "does not exist");
        }
        if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new Refused("file-missing", "is not a regular file");
        }
        try {
            Path real = p.toRealPath();
            if (!real.startsWith(dir) || !real.equals(p)) {
                throw new Refused("file-outside-pack", "resolves outside the pack directory");
            }
            long size = Files.size(p);
            if (size > cap) {
                throw new Refused("file-too-large", "is " + size + " bytes; at most " + cap);
            }
            byte[] bytes;
            try (InputStream in = Files.newInputStream(p, openOptions(p))) {
                bytes = in.readNBytes(cap + 1);
            }
            if (bytes.length > cap) {
                throw new Refused("file-too-large", "is over " + cap + " bytes");
            }
            total += bytes.length;
            return bytes;
        } catch (IOException e) {
            throw new Refused("file-unreadable", "cannot be read: " + e.getClass().getSimpleName());
        }
    }

    private Path walk(String rel) {
        Path p = dir;
        for (String seg : rel.split("/")) {
            p = p.resolve(seg);
        }
        return p;
    }

    private static OpenOption[] openOptions(Path p) {
        // The default file system opens with O_NOFOLLOW; a zip file system (shipped packs inside
        // a jar) has no links and does not take the option.
        return p.getFileSystem() == FileSystems.getDefault()
                ? new OpenOption[] {StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS}
                : new OpenOption[] {StandardOpenOption.READ};
    }
}
