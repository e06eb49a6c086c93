package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sessions directory's files on a real file system: the key (made private on first open,
 * refused when open to others, malformed or a link), and what a read refuses before it trusts a
 * byte: tampering, another directory's key, a file too large, one without a tag, one under another
 * id, and anything that is not a regular file.
 */
class SessionFilesTest {
    private static final ServerSessions.Opening OPENING =
            new ServerSessions.Opening("ci", List.of("format"), Map.of("memoryMb", 32L), 60_000);

    @TempDir Path dir;

    private static byte[] saved(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31);
        }
        return b;
    }

    private static String refused(SessionFiles files, String id) {
        return assertThrows(IOException.class, () -> files.read(id)).getMessage();
    }

    @Test
    void theFirstOpenMakesAPrivateKeyAndFilesReadBackUnderIt() throws IOException {
        Path sessions = dir.resolve("sessions");
        SessionFiles files = SessionFiles.open(sessions, 1 << 20);
        Path key = sessions.resolve(SessionFiles.KEY_FILE);
        assertEquals(
                "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        String text = Files.readString(key);
        assertTrue(text.matches("[0-9a-f]{64}\n"), "64 hex digits and a newline");

        String id = UUID.randomUUID().toString();
        byte[] saved = saved(5000);
        files.write(id, files.encode(id, OPENING, saved));
        SessionFiles again = SessionFiles.open(sessions, 1 << 20);
        assertEquals(text, Files.readString(key), "an existing key is kept");
        SessionFiles.Contents c = again.read(id);
        assertEquals(OPENING, c.opening());
        assertArrayEquals(saved, c.saved());
        assertEquals(Files.size(sessions.resolve(id + ".session")), c.bytes());
        assertEquals(List.of(id), again.ids());

        // the same file beside another key does not authenticate
        SessionFiles elsewhere = SessionFiles.open(dir.resolve("elsewhere"), 1 << 20);
        Files.copy(
                sessions.resolve(id + ".session"),
                dir.resolve("elsewhere").resolve(id + ".session"));
        assertTrue(refused(elsewhere, id).startsWith("it fails authentication"));
    }

    @Test
    void aKeyOpenToOthersMalformedOrALinkIsRefusedNamingWhy() throws IOException {
        Path sessions = dir.resolve("sessions");
        SessionFiles.open(sessions, 1 << 20);
        Path key = sessions.resolve(SessionFiles.KEY_FILE);
        for (String mode : List.of("rw-r-----", "rw----r--", "rw--w----")) {
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString(mode));
            String msg =
                    assertThrows(
                                    IllegalArgumentException.class,
                                    () -> SessionFiles.open(sessions, 1 << 20))
                            .getMessage();
            assertTrue(msg.contains("open to its group or others (" + mode + ")"), msg);
            assertTrue(msg.contains("chmod 600 " + key), msg);
        }
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(key, "not a key\n");
        String malformed =
                assertThrows(
                                IllegalArgumentException.class,
                                () -> SessionFiles.open(sessions, 1 << 20))
                        .getMessage();
        assertTrue(malformed.contains("the sessions key " + key + " is refused"), malformed);
        assertTrue(malformed.contains("malformed"), malformed);
        assertTrue(!malformed.contains("not a key"), "the message holds none of the file");

        Files.delete(key);
        Path elsewhere = Files.writeString(dir.resolve("k"), "a".repeat(64) + "\n");
        Files.setPosixFilePermissions(elsewhere, PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(key, elsewhere);
        String link =
                assertThrows(
                                IllegalArgumentException.class,
                                () -> SessionFiles.open(sessions, 1 << 20))
                        .getMessage();
        assertTrue(link.contains("not a regular file"), link);
    }

    @Test
    void aReadRefusesWhatItCannotTrustBeforeParsingIt() throws IOException {
        Path sessions = dir.resolve("sessions");
        SessionFiles files = SessionFiles.open(sessions, 100_000);
        String id = UUID.randomUUID().toString();
        byte[] file = files.encode(id, OPENING, saved(5000));

        byte[] owner =
                new String(file, StandardCharsets.ISO_8859_1)
                        .replace("\"token\":\"ci\"", "\"token\":\"cj\"")
                        .getBytes(StandardCharsets.ISO_8859_1);
        files.write(id, owner);
        assertTrue(refused(files, id).startsWith("it fails authentication"));

        byte[] body = file.clone();
        body[body.length - 1] ^= 1;
        files.write(id, body);
        assertTrue(refused(files, id).startsWith("it fails authentication"));

        int tagLine = new String(file, StandardCharsets.ISO_8859_1).indexOf('\n') + 1;
        byte[] untagged = java.util.Arrays.copyOfRange(file, tagLine, file.length);
        files.write(id, untagged);
        assertTrue(refused(files, id).startsWith("it has no authentication tag line"));

        // an authentic file under another session's name
        String other = UUID.randomUUID().toString();
        files.write(other, file);
        assertEquals("its header names another session", refused(files, other));

        // larger than any session file of this server: refused by its size, never read
        String big = UUID.randomUUID().toString();
        files.write(big, new byte[(int) files.maxFileBytes() + 1]);
        assertTrue(refused(files, big).contains("more than a session file of this server can"));

        String directory = UUID.randomUUID().toString();
        Files.createDirectory(sessions.resolve(directory + ".session"));
        assertTrue(refused(files, directory).startsWith("it is not a regular file (a directory)"));
    }
}
