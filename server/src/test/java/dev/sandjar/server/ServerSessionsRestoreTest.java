package dev.sandjar.server;

import static dev.sandjar.server.ServerHarness.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.DeflaterOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restart with a sessions directory whose files someone else may have written (docs/sessions.md,
 * "Session files"): only authentic files come back, for the owner they were written for; links,
 * FIFOs and bodies that inflate without end fail that file alone, logged by name and reason and
 * never with their content; the server answers while the restore runs, and a session it has not
 * reached yet answers 503 with {@code Retry-After}.
 */
@ExtendWith(EngineLeakCheck.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerSessionsRestoreTest {
    private static final String CI = "restore-ci-token";
    private static final String OTHER = "restore-other-token";

    @TempDir Path dir;

    private static SandjarServer.Builder server(Path sessions) {
        return SandjarServer.builder()
                .pool(2)
                .queue(2)
                .tokens(
                        Tokens.of(
                                List.of(
                                        Tokens.token("ci", CI, ServerHarness.policy()),
                                        Tokens.token("other", OTHER, ServerHarness.policy()))))
                .sessionsDir(sessions);
    }

    /** Opens a session of ci with {@code body}, runs each call on it; returns its id. */
    private static String session(ServerHarness h, String body, String... calls) {
        String id = h.openSession(CI, body);
        for (String code : calls) {
            assertTrue(h.sessionCall(id, CI, code).get("ok").asBoolean());
        }
        return id;
    }

    private static int restored(ServerHarness h) throws Exception {
        return h.server.sessionsRestored().get(60, TimeUnit.SECONDS);
    }

    private static void notFound(ServerHarness h, String id, String token) {
        HttpResponse<String> res = h.sessionCallResponse(id, token, "return 1");
        assertEquals(404, res.statusCode(), res.body());
    }

    @Test
    void onlyAuthenticFilesComeBackAndTamperedOnesAreLoggedWithoutTheirContent() throws Exception {
        Path sessions = dir.resolve("sessions");
        String owner;
        String body;
        String good;
        try (ServerHarness h = ServerHarness.start(server(sessions))) {
            owner = session(h, "", "let note = 'owner'");
            body = session(h, "", "let note = 'body'");
            good = session(h, "", "let note = 'kept'");
        }
        // the owner in the header, ci, becomes the other token
        Path ownerFile = sessions.resolve(owner + ".session");
        String text = new String(Files.readAllBytes(ownerFile), StandardCharsets.ISO_8859_1);
        assertTrue(text.contains("\"token\":\"ci\""), "the header names its owner");
        Files.write(
                ownerFile,
                text.replace("\"token\":\"ci\"", "\"token\":\"other\"")
                        .getBytes(StandardCharsets.ISO_8859_1));
        // one bit of the saved session flips
        Path bodyFile = sessions.resolve(body + ".session");
        byte[] bytes = Files.readAllBytes(bodyFile);
        bytes[bytes.length - 100] ^= 0x20;
        Files.write(bodyFile, bytes);
        // a file as servers before authentication wrote it: the header line, then the session
        String legacy = UUID.randomUUID().toString();
        byte[] goodBytes = Files.readAllBytes(sessions.resolve(good + ".session"));
        int tagLine = text.indexOf('\n') + 1;
        Files.write(
                sessions.resolve(legacy + ".session"),
                java.util.Arrays.copyOfRange(goodBytes, tagLine, goodBytes.length));

        try (LogCapture log = new LogCapture();
                ServerHarness h = ServerHarness.start(server(sessions))) {
            assertEquals(1, restored(h));
            assertEquals("kept", h.sessionCall(good, CI, "return note").get("value").asText());
            notFound(h, owner, CI);
            notFound(h, owner, OTHER);
            notFound(h, body, CI);
            notFound(h, legacy, CI);
            String logged = log.text();
            for (String id : List.of(owner, body)) {
                assertTrue(
                        logged.contains(
                                id
                                        + ".session not restored, left in place: it fails"
                                        + " authentication"),
                        logged);
            }
            assertTrue(
                    logged.contains(
                            legacy
                                    + ".session not restored, left in place: it has no"
                                    + " authentication tag line"),
                    logged);
            assertFalse(logged.contains("\"token\""), logged);
            assertFalse(logged.contains("withhold"), logged);
        }
        // refused files are left where they were
        assertTrue(Files.isRegularFile(ownerFile));
        assertTrue(Files.isRegularFile(bodyFile));
    }

    @Test
    void aSymbolicLinkIsNotFollowedAndItsTargetNeverReachesTheLog() throws Exception {
        Path sessions = Files.createDirectories(dir.resolve("sessions"));
        String marker = "TOPSECRET-" + UUID.randomUUID();
        Path secret = dir.resolve("secret.json");
        Files.writeString(secret, "{\"token\": \"" + marker + "\"}\n" + marker + "\n");
        String id = UUID.randomUUID().toString();
        Files.createSymbolicLink(sessions.resolve(id + ".session"), secret);
        Files.createSymbolicLink(sessions.resolve("x.session"), secret);

        try (LogCapture log = new LogCapture();
                ServerHarness h = ServerHarness.start(server(sessions))) {
            assertEquals(0, restored(h));
            notFound(h, id, CI);
            String logged = log.text();
            assertTrue(
                    logged.contains(
                            id
                                    + ".session not restored, left in place: it is not a regular"
                                    + " file (a symbolic link)"),
                    logged);
            assertTrue(logged.contains("skipped 1 file(s) whose name is not"), logged);
            assertFalse(logged.contains("TOPSECRET"), logged);
        }
        assertTrue(Files.isSymbolicLink(sessions.resolve(id + ".session")));
        assertEquals("{\"token\": \"" + marker + "\"}\n" + marker + "\n", Files.readString(secret));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aFifoNamedLikeASessionDoesNotHoldTheRestore() throws Exception {
        Path sessions = dir.resolve("sessions");
        String good;
        try (ServerHarness h = ServerHarness.start(server(sessions))) {
            good = session(h, "", "let note = 'kept'");
        }
        String fifo = UUID.randomUUID().toString();
        Path path = sessions.resolve(fifo + ".session");
        Process mkfifo;
        try {
            mkfifo = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
        } catch (IOException e) {
            assumeTrue(false, "mkfifo is not on PATH: " + e.getMessage());
            return;
        }
        assumeTrue(
                mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo failed");
        assertTrue(
                Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                        .isOther());

        try (LogCapture log = new LogCapture();
                ServerHarness h = ServerHarness.start(server(sessions))) {
            // were the FIFO opened, the restore would wait for a writer that never comes
            assertEquals(1, restored(h));
            assertEquals("kept", h.sessionCall(good, CI, "return note").get("value").asText());
            assertTrue(
                    log.text()
                            .contains(
                                    fifo
                                            + ".session not restored, left in place: it is not a"
                                            + " regular file (a FIFO, socket or device)"),
                    log.text());
        }
    }

    @Test
    void anAuthenticBodyThatInflatesPastItsBoundFailsThatFileAlone() throws Exception {
        Path sessions = dir.resolve("sessions");
        String small;
        try (ServerHarness h = ServerHarness.start(server(sessions))) {
            small = session(h, "{\"limits\": {\"memoryMb\": 1}}", "let note = 'small'");
        }
        // As someone holding the key would: a 1 MiB session whose saved body is 64 MiB of zeros
        // deflated (64 KiB), signed with the directory's key so that it passes authentication.
        SessionFiles files = SessionFiles.open(sessions, 1L << 30);
        SessionFiles.Contents c = files.read(small);
        byte[] saved = c.saved();
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(saved));
        in.skipNBytes(6 + 2);
        in.readUTF();
        in.readUTF();
        int header = saved.length - in.available();
        ByteArrayOutputStream zeros = new ByteArrayOutputStream();
        try (DeflaterOutputStream d = new DeflaterOutputStream(zeros)) {
            byte[] block = new byte[1 << 20];
            for (int i = 0; i < 64; i++) {
                d.write(block);
            }
        }
        ByteArrayOutputStream forged = new ByteArrayOutputStream();
        forged.write(saved, 0, header);
        forged.write(MessageDigest.getInstance("SHA-256").digest(zeros.toByteArray()));
        forged.write(zeros.toByteArray());
        String bomb = UUID.randomUUID().toString();
        files.write(bomb, files.encode(bomb, c.opening(), forged.toByteArray()));
        assertTrue(Files.size(sessions.resolve(bomb + ".session")) < 200_000);

        try (LogCapture log = new LogCapture();
                ServerHarness h = ServerHarness.start(server(sessions))) {
            assertEquals(1, restored(h));
            assertEquals("small", h.sessionCall(small, CI, "return note").get("value").asText());
            notFound(h, bomb, CI);
            String logged = log.text();
            assertTrue(logged.contains(bomb + ".session not restored, left in place"), logged);
            assertTrue(logged.contains("inflates past"), logged);
        }
    }

    @Test
    void theServerAnswersWhileItRestoresAndASessionNotYetBackIs503() throws Exception {
        Path sessions = dir.resolve("sessions");
        String id;
        try (ServerHarness h = ServerHarness.start(server(sessions))) {
            id = session(h, "", "let n = 7");
        }
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Consumer<String> hold =
                file -> {
                    reached.countDown();
                    try {
                        release.await(ServerHarness.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                };
        try (ServerHarness h = ServerHarness.start(server(sessions).restoreHook(hold))) {
            try {
                assertTrue(reached.await(60, TimeUnit.SECONDS), "the restore began");
                assertEquals(200, h.get("/healthz", null).statusCode());
                HttpResponse<String> waiting = h.sessionCallResponse(id, CI, "return n");
                assertEquals(503, waiting.statusCode(), waiting.body());
                assertEquals("RESTORING", json(waiting).get("code").asText());
                assertEquals("1", waiting.headers().firstValue("Retry-After").orElseThrow());
                assertEquals(503, h.post("/api/sessions/" + id + "/fork", CI, "").statusCode());
                assertEquals(503, h.delete("/api/sessions/" + id, CI).statusCode());
                // an id without a file is unknown, restore or not; new sessions open meanwhile
                notFound(h, UUID.randomUUID().toString(), CI);
                String fresh = h.openSession(CI, "");
                assertEquals(1, h.sessionCall(fresh, CI, "return 1").get("value").asInt());
                assertFalse(h.server.sessionsRestored().isDone());
            } finally {
                release.countDown();
            }
            assertEquals(1, restored(h));
            assertEquals(7, h.sessionCall(id, CI, "return n").get("value").asInt());
        }
    }

    @Test
    void aKeyFileOpenToOthersStopsTheServerFromStarting() throws Exception {
        Path sessions = dir.resolve("sessions");
        SessionFiles.open(sessions, 1 << 20);
        Path key = sessions.resolve(SessionFiles.KEY_FILE);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class, () -> server(sessions).port(0).build());
        assertTrue(
                e.getMessage().contains("the sessions key " + key + " is refused"), e.getMessage());
        assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
    }
}
