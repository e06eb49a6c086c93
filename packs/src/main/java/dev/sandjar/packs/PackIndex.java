package dev.sandjar.packs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sandjar.host.CodeAnalysis;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The pack index: what the sandbox's parser found in pack files, kept between processes. Parsing is
 * nearly all of discovery's cost in a new process (the analysis engine starts, loads acorn and
 * parses every file while the JIT is cold: 9 s for the shipped packs on a loaded two-core machine),
 * and a pack file rarely changes between two starts.
 *
 * <p>What it holds, and why a wrong entry cannot let anything in:
 *
 * <ul>
 *   <li>Entries are keyed by the SHA-256 of the exact text discovery read, so an entry cannot be
 *       stale: a changed file has another key and is parsed again. Discovery still reads, caps,
 *       link-checks and hashes every file, checks every WebAssembly binary and compiled bundle, and
 *       computes every graph digest from the bytes it read; only the parser's findings come from
 *       here.
 *   <li>A guard entry only ever says "the guard shadows every name the file can name" ({@link
 *       PackTrust#guardUnparsed}), the strongest guard; a file that declared one of those names
 *       itself then fails to load with a redeclaration error. Names left to a file are never taken
 *       from the index.
 *   <li>The file is authenticated with HMAC-SHA256 under a key kept beside it ({@code index.key},
 *       made on first use, owner-only where the file system has permissions). An index that fails
 *       the check (written by someone else, copied from another machine, truncated) is ignored
 *       whole and rebuilt.
 *   <li>The parser's id ({@link CodeAnalysis#parserId()}) is part of the index: what another parser
 *       found is dropped.
 * </ul>
 *
 * <p>One file per catalog configuration (its search paths), named by a hash of it, holding the
 * entries the last discovery used. It is written to a temporary file and renamed into place, so a
 * reader sees a whole index or none. Not thread-safe: a discovery pass uses it from one thread.
 */
final class PackIndex {
    static final String FORMAT = "sandjar-pack-index/1";
    static final String KEY_FILE = "index.key";

    /** An index larger than this is not read (a search path holds at most 1,000 packs). */
    static final int MAX_INDEX_BYTES = 64 << 20;

    private static final Logger LOG = Logger.getLogger(PackIndex.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private final Path file;
    private final byte[] key;
    private final String parserId;
    private final Map<String, JsonNode> loaded;
    private final String state; // why loaded is empty, for the log line; null when it was read
    private final Map<String, JsonNode> used = new LinkedHashMap<>();
    private int misses;

    private PackIndex(
            Path file, byte[] key, String parserId, Map<String, JsonNode> loaded, String state) {
        this.file = file;
        this.key = key;
        this.parserId = parserId;
        this.loaded = loaded;
        this.state = state;
    }

    /**
     * The index of the catalog configuration {@code configuration} in {@code dir} (made if
     * missing), or null when {@code dir} cannot hold one; then discovery parses everything, as
     * without an index.
     */
    static PackIndex open(Path dir, String configuration) {
        String parserId = CodeAnalysis.parserId();
        Path file =
                dir.resolve(
                        "packs-"
                                + Digests.sha256Hex(FORMAT + "\n" + configuration).substring(0, 16)
                                + ".idx");
        byte[] key;
        try {
            Files.createDirectories(dir);
            key = key(dir.resolve(KEY_FILE));
        } catch (IOException | RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "pack index: "
                            + dir
                            + " cannot hold one ("
                            + e.getMessage()
                            + "); every start parses the packs' JavaScript");
            return null;
        }
        byte[] bytes;
        try {
            bytes = read(file);
        } catch (NoSuchFileException e) {
            return new PackIndex(file, key, parserId, Map.of(), "it was missing");
        } catch (IOException e) {
            return new PackIndex(
                    file, key, parserId, Map.of(), "it could not be read (" + e.getMessage() + ")");
        }
        Map<String, JsonNode> entries = new LinkedHashMap<>();
        String state = verify(bytes, key, parserId, entries);
        return new PackIndex(file, key, parserId, entries, state);
    }

    /** The path of the index file (for tests and log lines). */
    Path file() {
        return file;
    }

    /** The entry under {@code k}, recorded as used; null when the index has none. */
    JsonNode get(String k) {
        JsonNode v = used.get(k);
        if (v == null) {
            v = loaded.get(k);
            if (v != null) {
                used.put(k, v);
            }
        }
        return v;
    }

    /** Records what the parser found for {@code k}. */
    void put(String k, JsonNode v) {
        used.put(k, v);
        misses++;
    }

    /**
     * Writes the entries this discovery used, when they differ from what was read: new ones, or
     * ones no longer used (a pack removed or changed). Says so in one log line when it had to
     * parse.
     */
    void save() {
        if (misses == 0 && used.size() == loaded.size()) {
            return;
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("format", FORMAT);
        body.put("parser", parserId);
        ObjectNode entries = body.putObject("entries");
        used.forEach(entries::set);
        try {
            byte[] json = JSON.writeValueAsBytes(body);
            byte[] header =
                    (FORMAT + " hmac-sha256:" + HEX.formatHex(mac(key, json)) + "\n")
                            .getBytes(StandardCharsets.UTF_8);
            byte[] all = Arrays.copyOf(header, header.length + json.length);
            System.arraycopy(json, 0, all, header.length, json.length);
            replace(file, all);
        } catch (IOException | RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "pack index "
                            + file
                            + " not written ("
                            + e.getMessage()
                            + "); the next start"
                            + " parses again");
            return;
        }
        if (misses > 0) {
            LOG.info(
                    "pack index "
                            + file
                            + ": parsed "
                            + misses
                            + " pack file(s) it did not hold"
                            + (state == null ? " (new or changed)" : "; " + state)
                            + "; written with "
                            + used.size()
                            + " entries");
        }
    }

    /**
     * Reads {@code bytes} into {@code entries} if they are an index this key wrote for this parser;
     * otherwise leaves {@code entries} empty and says why.
     */
    private static String verify(
            byte[] bytes, byte[] key, String parserId, Map<String, JsonNode> entries) {
        int nl = -1;
        for (int i = 0; i < Math.min(bytes.length, 256); i++) {
            if (bytes[i] == '\n') {
                nl = i;
                break;
            }
        }
        String prefix = FORMAT + " hmac-sha256:";
        String header = nl < 0 ? "" : new String(bytes, 0, nl, StandardCharsets.UTF_8);
        if (!header.startsWith(prefix)) {
            return "it had another format and was ignored";
        }
        byte[] json = Arrays.copyOfRange(bytes, nl + 1, bytes.length);
        byte[] claimed;
        try {
            claimed = HEX.parseHex(header.substring(prefix.length()));
        } catch (IllegalArgumentException e) {
            claimed = new byte[0];
        }
        if (!MessageDigest.isEqual(claimed, mac(key, json))) {
            return "it failed its integrity check (written with another key, or altered) and was"
                    + " ignored";
        }
        JsonNode body;
        try {
            body = JSON.readTree(json);
        } catch (IOException e) {
            return "it could not be parsed and was ignored";
        }
        if (!parserId.equals(body.path("parser").asText())) {
            return "it was made by another parser version and was ignored";
        }
        body.path("entries").properties().forEach(e -> entries.put(e.getKey(), e.getValue()));
        return null;
    }

    private static byte[] read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX_INDEX_BYTES + 1);
            if (bytes.length > MAX_INDEX_BYTES) {
                throw new IOException("it is over " + MAX_INDEX_BYTES + " bytes");
            }
            return bytes;
        }
    }

    private static byte[] mac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JVM has no HmacSHA256", e);
        }
    }

    /** The key in {@code file}, made (32 random bytes, hex) if it does not exist yet. */
    private static byte[] key(Path file) throws IOException {
        if (!Files.exists(file)) {
            byte[] k = new byte[32];
            new SecureRandom().nextBytes(k);
            Path tmp = Files.createTempFile(file.getParent(), ".index-key-", ".tmp");
            try {
                ownerOnly(tmp);
                Files.writeString(tmp, HEX.formatHex(k) + "\n");
                try {
                    // A link fails if another process made the key meanwhile: theirs is kept.
                    Files.createLink(file, tmp);
                } catch (FileAlreadyExistsException raced) {
                    // read below
                } catch (UnsupportedOperationException noLinks) {
                    if (!Files.exists(file)) {
                        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
                    }
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
        if (!text.matches("[0-9a-f]{64}")) {
            throw new IOException(file + " is not a key Sandjar wrote (64 hex digits)");
        }
        return HEX.parseHex(text);
    }

    private static void ownerOnly(Path p) throws IOException {
        try {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException notPosix) {
            // the file system has no POSIX permissions: the directory's own protection applies
        }
    }

    private static void replace(Path file, byte[] bytes) throws IOException {
        Path tmp = Files.createTempFile(file.getParent(), ".packs-", ".tmp");
        try {
            Files.write(tmp, bytes);
            try {
                Files.move(
                        tmp,
                        file,
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The configuration a catalog's index is named by: its shipped root and search paths. */
    static String configuration(Path shippedRoot, List<CatalogSnapshot.SearchPath> roots) {
        StringBuilder s = new StringBuilder();
        s.append(shippedRoot == null ? "-" : shippedRoot.toUri().toString()).append('\n');
        for (CatalogSnapshot.SearchPath r : roots) {
            Path p;
            try {
                p = r.dir().toRealPath();
            } catch (IOException e) {
                p = r.dir().toAbsolutePath().normalize();
            }
            s.append(p).append('\n');
        }
        return s.toString();
    }
}
