package dev.sandjar.packs.compile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Admitted bundles by content: a key is the SHA-256 of everything that decides the bundle (the
 * package, version and lockfile integrity of every package it can be made of, the compiler's
 * version, esbuild's version and the options). An entry is a directory {@code <key>/} holding
 * {@code bundle.js} and {@code entry.json}, written to a temporary directory and renamed into
 * place, so a reader sees a whole entry or none. Only admitted bundles are stored.
 */
final class Cache {
    private static final Pattern KEY = Pattern.compile("[0-9a-f]{64}");

    private final Path root; // null: no cache

    Cache(Path root) {
        this.root = root;
    }

    /** {@code $XDG_CACHE_HOME/sandjar/npm}, else {@code ~/.cache/sandjar/npm}. */
    static Path defaultRoot() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base =
                xdg != null && !xdg.isBlank()
                        ? Path.of(xdg)
                        : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("sandjar").resolve("npm");
    }

    record Entry(String bundle, JsonNode meta) {}

    Entry get(String key) {
        if (root == null || !KEY.matcher(key).matches()) {
            return null;
        }
        Path dir = root.resolve(key);
        try {
            byte[] bundle = Files.readAllBytes(dir.resolve("bundle.js"));
            JsonNode meta = NpmTree.JSON.readTree(dir.resolve("entry.json").toFile());
            // Content decides: an entry whose bundle no longer matches its record is not used.
            if (!sha256Hex(bundle).equals(meta.path("bundleSha256").asText())) {
                return null;
            }
            return new Entry(new String(bundle, StandardCharsets.UTF_8), meta);
        } catch (IOException e) {
            return null;
        }
    }

    void put(String key, String bundle, ObjectNode meta) throws IOException {
        if (root == null || !KEY.matcher(key).matches()) {
            return;
        }
        Files.createDirectories(root);
        Path tmp = Files.createTempDirectory(root, "tmp-");
        Files.writeString(tmp.resolve("bundle.js"), bundle, StandardCharsets.UTF_8);
        Files.writeString(tmp.resolve("entry.json"), meta.toPrettyString());
        try {
            Files.move(tmp, root.resolve(key), StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
            // another build stored the same content first
            deleteTree(tmp);
        } catch (IOException e) {
            deleteTree(tmp);
            if (!Files.isDirectory(root.resolve(key))) {
                throw e;
            }
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p :
                    (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
    }

    static String sha256Hex(String text) {
        return sha256Hex(text.getBytes(StandardCharsets.UTF_8));
    }
}
