package dev.sandjar.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of a sessions directory (docs/sessions.md, "Session files"). Each file is authenticated
 * with HMAC-SHA256 under the server's key, kept in {@code DIR/.key}, so the server restores only
 * what it wrote itself, for the owner it wrote:
 *
 * <pre>
 * line 1: "sandjar-session 1 " + hex(HMAC-SHA256(key, everything after line 1)) + "\n"
 * line 2: the header, JSON: {"id", "token", "withhold", "limits", "idleMs"}, then "\n"
 * then:   the saved session ({@code SandboxSession.save()})
 * </pre>
 *
 * Reading trusts nothing before the tag matches: it takes a regular file only (its attributes read
 * without following a link; never a symbolic link, a FIFO or a device), opens it without following
 * a link, reads at most {@link #maxFileBytes} bytes, and parses the header only once the tag
 * matches. Its failures name the file and the reason, never the file's content. Thread-safe.
 */
final class SessionFiles {
    private static final Logger LOG = LoggerFactory.getLogger(SessionFiles.class);

    static final String SUFFIX = ".session";

    /** The key's file, inside the sessions directory. */
    static final String KEY_FILE = ".key";

    private static final Pattern ID =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Pattern KEY_TEXT = Pattern.compile("[0-9a-f]{64}\n?");
    private static final String TAG_PREFIX = "sandjar-session 1 ";
    private static final int TAG_LINE = TAG_PREFIX.length() + 64 + 1;
    private static final int MAX_HEADER_BYTES = 64 << 10;
    private static final String MAC = "HmacSHA256";
    private static final Set<PosixFilePermission> OWNER_ONLY =
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

    /** What an authentic file holds, and its size on disk. */
    record Contents(ServerSessions.Opening opening, byte[] saved, long bytes) {}

    private final Path dir;
    private final SecretKeySpec key;
    private final long maxFileBytes;

    private SessionFiles(Path dir, byte[] key, long maxFileBytes) {
        this.dir = dir;
        this.key = new SecretKeySpec(key, MAC);
        this.maxFileBytes = maxFileBytes;
    }

    /**
     * The files of {@code dir} (created if missing) under the key in {@code DIR/.key}, which is
     * made on first start: 32 random bytes as 64 hex digits and a newline, mode 0600.
     *
     * @param maxSavedBytes the largest saved session the sandbox makes; a file may hold no more,
     *     besides its two lines
     * @throws IllegalArgumentException naming the key file and what is wrong with it: not a regular
     *     file, open to group or others, another user's, malformed, or on a file system without
     *     POSIX permissions
     * @throws UncheckedIOException when the directory or the key cannot be made or read
     */
    static SessionFiles open(Path dir, long maxSavedBytes) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the sessions directory " + dir, e);
        }
        long max = Math.min(Integer.MAX_VALUE - 16, maxSavedBytes + TAG_LINE + MAX_HEADER_BYTES);
        return new SessionFiles(dir, key(dir), max);
    }

    Path dir() {
        return dir;
    }

    /** The most bytes a file may hold; a larger one is refused without being read. */
    long maxFileBytes() {
        return maxFileBytes;
    }

    /** Whether {@code id} is a session id, so that its file name stays inside the directory. */
    static boolean isId(String id) {
        return ID.matcher(id).matches();
    }

    Path path(String id) {
        if (!isId(id)) {
            throw new IllegalArgumentException("not a session id");
        }
        return dir.resolve(id + SUFFIX);
    }

    /** Whether the directory has an entry (of any kind) for {@code id}. */
    boolean exists(String id) {
        return isId(id) && Files.exists(path(id), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * The ids of the directory's session files, in name order. Names under {@code *.session} that
     * are not a session id are counted in the log, not named (a name is the one part of a file
     * anyone who can write there chooses).
     */
    List<String> ids() throws IOException {
        List<String> ids = new ArrayList<>();
        int others = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                String id = name.substring(0, name.length() - SUFFIX.length());
                if (isId(id)) {
                    ids.add(id);
                } else {
                    others++;
                }
            }
        }
        if (others > 0) {
            LOG.warn(
                    "sessions directory {}: skipped {} file(s) whose name is not <session id>{}",
                    dir,
                    others,
                    SUFFIX);
        }
        Collections.sort(ids);
        return ids;
    }

    /**
     * Reads and authenticates {@code id}'s file.
     *
     * @throws IOException whose message names the reason and holds nothing of the file's content
     */
    Contents read(String id) throws IOException {
        Path file = path(id);
        BasicFileAttributes a =
                Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isRegularFile()) {
            throw new IOException(
                    "it is not a regular file ("
                            + (a.isSymbolicLink()
                                    ? "a symbolic link"
                                    : a.isDirectory() ? "a directory" : "a FIFO, socket or device")
                            + "); it was not opened");
        }
        if (a.size() > maxFileBytes) {
            throw new IOException(
                    "it holds "
                            + a.size()
                            + " bytes, more than a session file of this server can ("
                            + maxFileBytes
                            + "); it was not read");
        }
        byte[] all;
        // The attributes above were read without following a link and opening does not follow
        // one either; a FIFO put in the file's place between the two would still block this read
        // (Java opens no file without blocking): that takes write access to the directory, and
        // the restore it holds up runs beside the server, never before it listens.
        try (SeekableByteChannel ch =
                        Files.newByteChannel(
                                file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
                InputStream in = Channels.newInputStream(ch)) {
            all = in.readNBytes((int) maxFileBytes + 1);
        }
        if (all.length > maxFileBytes) {
            throw new IOException("it grew past " + maxFileBytes + " bytes while it was read");
        }
        if (all.length < TAG_LINE
                || !startsWith(all, TAG_PREFIX)
                || all[TAG_LINE - 1] != '\n'
                || !isHex(all, TAG_PREFIX.length(), 64)) {
            throw new IOException(
                    "it has no authentication tag line (a file written before session files were"
                            + " authenticated is not restored either)");
        }
        byte[] tag =
                HexFormat.of()
                        .parseHex(
                                new String(
                                        all, TAG_PREFIX.length(), 64, StandardCharsets.US_ASCII));
        Mac mac = mac();
        mac.update(all, TAG_LINE, all.length - TAG_LINE);
        if (!MessageDigest.isEqual(tag, mac.doFinal())) {
            throw new IOException(
                    "it fails authentication: its tag does not match its content under this"
                            + " directory's key (it was altered, or written under another key)");
        }
        int nl = indexOf(all, (byte) '\n', TAG_LINE);
        if (nl < 0) {
            throw new IOException("it has no header line");
        }
        JsonNode header;
        try {
            header = RunBody.JSON.readTree(all, TAG_LINE, nl - TAG_LINE);
        } catch (IOException e) {
            throw new IOException("its header is damaged");
        }
        if (header == null || !id.equals(header.path("id").asText(null))) {
            throw new IOException("its header names another session");
        }
        byte[] saved = java.util.Arrays.copyOfRange(all, nl + 1, all.length);
        return new Contents(opening(header), saved, all.length);
    }

    private static ServerSessions.Opening opening(JsonNode h) throws IOException {
        if (!h.path("token").isTextual()
                || !h.path("withhold").isArray()
                || !h.path("limits").isObject()
                || !h.path("idleMs").canConvertToLong()) {
            throw new IOException("its header is damaged");
        }
        List<String> withhold = new ArrayList<>();
        h.get("withhold").forEach(w -> withhold.add(w.asText()));
        Map<String, Long> limits = new LinkedHashMap<>();
        h.get("limits").properties().forEach(e -> limits.put(e.getKey(), e.getValue().asLong()));
        return new ServerSessions.Opening(
                h.get("token").asText(), withhold, limits, h.get("idleMs").asLong());
    }

    /** The bytes of {@code id}'s file: the tag line, the header line and the saved session. */
    byte[] encode(String id, ServerSessions.Opening o, byte[] saved) {
        byte[] header = (header(id, o) + "\n").getBytes(StandardCharsets.UTF_8);
        Mac mac = mac();
        mac.update(header);
        mac.update(saved);
        byte[] tag =
                (TAG_PREFIX + HexFormat.of().formatHex(mac.doFinal()) + "\n")
                        .getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[tag.length + header.length + saved.length];
        System.arraycopy(tag, 0, out, 0, tag.length);
        System.arraycopy(header, 0, out, tag.length, header.length);
        System.arraycopy(saved, 0, out, tag.length + header.length, saved.length);
        return out;
    }

    private static String header(String id, ServerSessions.Opening o) {
        return ResultJson.write(
                g -> {
                    g.writeStartObject();
                    g.writeStringField("id", id);
                    g.writeStringField("token", o.token());
                    g.writeArrayFieldStart("withhold");
                    for (String w : o.withhold()) {
                        g.writeString(w);
                    }
                    g.writeEndArray();
                    g.writeObjectFieldStart("limits");
                    for (Map.Entry<String, Long> l : o.limits().entrySet()) {
                        g.writeNumberField(l.getKey(), l.getValue());
                    }
                    g.writeEndObject();
                    g.writeNumberField("idleMs", o.idleMs());
                    g.writeEndObject();
                });
    }

    /** Writes {@code id}'s file: a temporary file (mode 0600) moved over the old one. */
    void write(String id, byte[] bytes) throws IOException {
        Path target = path(id);
        Path tmp = Files.createTempFile(dir, id, ".tmp");
        try {
            Files.write(tmp, bytes);
            try {
                Files.move(
                        tmp,
                        target,
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException unsupported) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    void delete(String id) {
        try {
            Files.deleteIfExists(path(id));
        } catch (IOException e) {
            LOG.warn("cannot delete the session file of {}: {}", id, e.getMessage());
        }
    }

    private Mac mac() {
        try {
            Mac mac = Mac.getInstance(MAC);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JVM has no " + MAC, e);
        }
    }

    // ---- the key ----

    private static byte[] key(Path dir) {
        Path file = dir.resolve(KEY_FILE);
        PosixFileAttributes a;
        try {
            a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return create(dir, file);
        } catch (UnsupportedOperationException e) {
            throw noPosix(dir, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the sessions key " + file, e);
        }
        if (!a.isRegularFile()) {
            throw badKey(file, "it is not a regular file (a symbolic link, directory or device)");
        }
        Set<PosixFilePermission> others = EnumSet.noneOf(PosixFilePermission.class);
        others.addAll(a.permissions());
        others.removeAll(
                EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
        if (!others.isEmpty()) {
            throw badKey(
                    file,
                    "it is open to its group or others ("
                            + PosixFilePermissions.toString(a.permissions())
                            + "); only the server's user may read it: chmod 600 "
                            + file);
        }
        byte[] text;
        try {
            UserPrincipal us = ourselves(dir);
            if (!a.owner().equals(us)) {
                throw badKey(
                        file,
                        "it belongs to "
                                + a.owner().getName()
                                + ", not to the server's user "
                                + us.getName());
            }
            try (SeekableByteChannel ch =
                            Files.newByteChannel(
                                    file,
                                    Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
                    InputStream in = Channels.newInputStream(ch)) {
                text = in.readNBytes(128);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the sessions key " + file, e);
        }
        String s = new String(text, StandardCharsets.ISO_8859_1);
        if (!KEY_TEXT.matcher(s).matches()) {
            throw badKey(
                    file,
                    "it is malformed: a sessions key is 64 lower-case hexadecimal digits and a"
                            + " newline. The server makes one on its first start; a new key makes"
                            + " every session file already in the directory fail authentication");
        }
        return HexFormat.of().parseHex(s.substring(0, 64));
    }

    /** The owner of a file this process makes: who the key file must belong to. */
    private static UserPrincipal ourselves(Path dir) throws IOException {
        Path probe = Files.createTempFile(dir, ".owner", ".tmp");
        try {
            return Files.getOwner(probe, LinkOption.NOFOLLOW_LINKS);
        } finally {
            Files.deleteIfExists(probe);
        }
    }

    private static byte[] create(Path dir, Path file) {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        ByteBuffer text =
                ByteBuffer.wrap(
                        (HexFormat.of().formatHex(key) + "\n").getBytes(StandardCharsets.US_ASCII));
        try (FileChannel ch =
                FileChannel.open(
                        file,
                        EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                        PosixFilePermissions.asFileAttribute(OWNER_ONLY))) {
            while (text.hasRemaining()) {
                ch.write(text);
            }
            ch.force(true);
        } catch (FileAlreadyExistsException raced) {
            return key(dir); // made by another process meanwhile
        } catch (UnsupportedOperationException e) {
            throw noPosix(dir, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the sessions key " + file, e);
        }
        LOG.info(
                "made the sessions key {} (mode 0600): session files restore only beside it", file);
        return key;
    }

    private static IllegalArgumentException badKey(Path file, String why) {
        return new IllegalArgumentException("the sessions key " + file + " is refused: " + why);
    }

    private static IllegalArgumentException noPosix(Path dir, RuntimeException e) {
        return new IllegalArgumentException(
                "the sessions directory "
                        + dir
                        + " is on a file system without POSIX permissions, so its key ("
                        + KEY_FILE
                        + ") cannot be kept private",
                e);
    }

    private static boolean startsWith(byte[] a, String prefix) {
        for (int i = 0; i < prefix.length(); i++) {
            if (a[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isHex(byte[] a, int from, int n) {
        for (int i = from; i < from + n; i++) {
            byte b = a[i];
            if (!(b >= '0' && b <= '9' || b >= 'a' && b <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] a, byte b, int from) {
        int end = (int) Math.min(a.length, (long) from + MAX_HEADER_BYTES);
        for (int i = from; i < end; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
