package dev.sandjar.server;

import static dev.sandjar.server.ServerHarness.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each token's share of the server's sessions (docs/server.md, "Tokens and policies"): live
 * sessions, forks per minute and session bytes on disk, each refused with a 429 that names the
 * quota and its value, without touching another token's; and restored sessions counting against
 * their owner after a restart.
 */
@ExtendWith(EngineLeakCheck.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerSessionsQuotaTest {
    private static final String CI = "quota-ci-token";
    private static final String OTHER = "quota-other-token";

    @TempDir Path dir;

    private static SandjarServer.Builder server(Quotas ci, Quotas other) {
        return SandjarServer.builder()
                .pool(2)
                .queue(2)
                .tokens(
                        Tokens.of(
                                List.of(
                                        Tokens.token("ci", CI, ServerHarness.withQuotas(ci)),
                                        Tokens.token(
                                                "other", OTHER, ServerHarness.withQuotas(other)))));
    }

    /** The 429 {@code res} must be, and its message. */
    private static String refused(HttpResponse<String> res) {
        assertEquals(429, res.statusCode(), res.body());
        assertEquals("TOO_MANY_RUNS", json(res).get("code").asText(), res.body());
        return json(res).get("message").asText();
    }

    @Test
    void aTokenAtItsSessionCapNeverRefusesAnother() {
        Quotas two = new Quotas(2, Quotas.DEFAULTS.maxSessionBytes(), 60);
        try (ServerHarness h = ServerHarness.start(server(two, two))) {
            String first = h.openSession(CI, "");
            h.openSession(CI, "");
            String msg = refused(h.post("/api/sessions", CI, ""));
            assertTrue(msg.contains("token's live sessions are at its cap (maxSessions 2)"), msg);
            msg = refused(h.post("/api/sessions/" + first + "/fork", CI, ""));
            assertTrue(msg.contains("(maxSessions 2)"), msg);

            // the other token is not refused by ci's cap
            String theirs = h.openSession(OTHER, "");
            h.openSession(OTHER, "");
            assertEquals(1, h.sessionCall(theirs, OTHER, "return 1").get("value").asInt());

            // below its cap again, ci opens once more
            assertEquals(200, h.delete("/api/sessions/" + first, CI).statusCode());
            h.openSession(CI, "");
            refused(h.post("/api/sessions", CI, ""));
        }
    }

    @Test
    void forksPastTheTokensForksPerMinuteAreRefusedNamingTheQuota() {
        Quotas twoForks = new Quotas(10, Quotas.DEFAULTS.maxSessionBytes(), 2);
        try (ServerHarness h = ServerHarness.start(server(twoForks, twoForks))) {
            String id = h.openSession(CI, "");
            h.sessionCall(id, CI, "let n = 41");
            String fork = "/api/sessions/" + id + "/fork";
            assertEquals(200, h.post(fork, CI, "").statusCode());
            HttpResponse<String> second = h.post(fork, CI, "");
            assertEquals(200, second.statusCode(), second.body());
            HttpResponse<String> third = h.post(fork, CI, "");
            String msg = refused(third);
            assertTrue(msg.contains("forks in the last minute"), msg);
            assertTrue(msg.contains("(maxForksPerMinute 2)"), msg);
            long retry = Long.parseLong(third.headers().firstValue("Retry-After").orElseThrow());
            assertTrue(retry >= 1 && retry <= 60, "Retry-After " + retry);

            // the copies work, and the other token forks as it likes
            String copy = json(second).get("id").asText();
            assertEquals(42, h.sessionCall(copy, CI, "return n + 1").get("value").asInt());
            String theirs = h.openSession(OTHER, "");
            assertEquals(200, h.post("/api/sessions/" + theirs + "/fork", OTHER, "").statusCode());
        }
    }

    @Test
    void aForkOrACallPastTheTokensSessionBytesIsRefusedAndWritesNothing() throws Exception {
        Path sessions = dir.resolve("sessions");
        Path tokens = dir.resolve("tokens.json");
        Files.writeString(tokens, tokensFile(1L << 30, 10));
        try (ServerHarness h =
                ServerHarness.start(
                        SandjarServer.builder().pool(2).tokensFile(tokens).sessionsDir(sessions))) {
            String id = h.openSession(CI, "");
            // random numbers do not deflate: the file grows by about their size
            h.sessionCall(id, CI, "let noise = Array.from({length: 20000}, () => Math.random())");
            long size = Files.size(sessions.resolve(id + ".session"));
            long quota = size + size / 2;
            Files.writeString(tokens, tokensFile(quota, 10));
            h.server.reloadTokens();

            // a fork would double the token's bytes: refused, and no file (nor part of one) left
            String msg = refused(h.post("/api/sessions/" + id + "/fork", CI, ""));
            assertTrue(msg.contains("(maxSessionBytes " + quota), msg);
            assertTrue(msg.contains("the fork was not made"), msg);
            assertEquals(List.of(id + ".session"), sessionDirFiles(sessions));

            // a call whose state would not fit is undone: the session is as it was before it
            HttpResponse<String> grow =
                    h.sessionCallResponse(
                            id, CI, "let more = Array.from({length: 100000}, () => Math.random())");
            msg = refused(grow);
            assertTrue(msg.contains("(maxSessionBytes " + quota), msg);
            assertTrue(msg.contains("the call was undone"), msg);
            assertEquals(size, Files.size(sessions.resolve(id + ".session")));
            assertEquals(
                    "undefined", h.sessionCall(id, CI, "return typeof more").get("value").asText());
            assertEquals(20000, h.sessionCall(id, CI, "return noise.length").get("value").asInt());
            assertEquals(List.of(id + ".session"), sessionDirFiles(sessions));
        }
    }

    @Test
    void restoredSessionsCountAgainstTheirOwnersQuotaAfterARestart() throws Exception {
        Path sessions = dir.resolve("sessions");
        Path tokens = dir.resolve("tokens.json");
        Files.writeString(tokens, tokensFile(1L << 30, 10));
        String a;
        String b;
        try (ServerHarness h =
                ServerHarness.start(
                        SandjarServer.builder().pool(2).tokensFile(tokens).sessionsDir(sessions))) {
            a = h.openSession(CI, "");
            b = h.openSession(CI, "");
        }
        Files.writeString(tokens, tokensFile(1L << 30, 1));
        try (ServerHarness h =
                ServerHarness.start(
                        SandjarServer.builder().pool(2).tokensFile(tokens).sessionsDir(sessions))) {
            assertEquals(2, h.server.sessionsRestored().get(60, TimeUnit.SECONDS));
            // both are kept, over the quota, but nothing new opens until the token is under it
            assertEquals(1, h.sessionCall(a, CI, "return 1").get("value").asInt());
            assertEquals(1, h.sessionCall(b, CI, "return 1").get("value").asInt());
            assertTrue(refused(h.post("/api/sessions", CI, "")).contains("(maxSessions 1)"));
            assertEquals(200, h.delete("/api/sessions/" + a, CI).statusCode());
            refused(h.post("/api/sessions", CI, ""));
            assertEquals(200, h.delete("/api/sessions/" + b, CI).statusCode());
            h.openSession(CI, "");
            // the other token was never limited by ci's sessions
            h.openSession(OTHER, "");
        }
    }

    private static String tokensFile(long maxSessionBytes, int maxSessions) {
        return "{\"tokens\": ["
                + entry("ci", CI, maxSessionBytes, maxSessions)
                + ", "
                + entry("other", OTHER, 1L << 30, 10)
                + "]}";
    }

    private static String entry(String name, String token, long bytes, int sessions) {
        return "{\"name\": \""
                + name
                + "\", \"sha256\": \""
                + ServerAuthTest.sha256Hex(token)
                + "\", \"policy\": {\"maxSessionBytes\": "
                + bytes
                + ", \"maxSessions\": "
                + sessions
                + "}}";
    }

    /** The directory's entries but its key, by name. */
    private static List<String> sessionDirFiles(Path sessions) throws IOException {
        try (Stream<Path> files = Files.list(sessions)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> !n.equals(SessionFiles.KEY_FILE))
                    .sorted()
                    .toList();
        }
    }
}
