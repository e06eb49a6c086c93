package dev.sandjar.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxSession;
import dev.sandjar.host.SessionException;
import dev.sandjar.host.SessionOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's sessions (docs/sessions.md, "Over HTTP"): each belongs to the token that opened it
 * (another token's id is the same 404 as an unknown one), and with a sessions directory each is
 * written there after every change, atomically, and read back when the server starts. A file holds
 * one JSON header line (the owner and how the session was opened) and the session's saved bytes.
 * Thread-safe.
 */
final class ServerSessions {
    private static final Logger LOG = LoggerFactory.getLogger(ServerSessions.class);
    private static final Pattern ID = Pattern.compile("[0-9a-f-]{36}");
    private static final String SUFFIX = ".session";

    /** How a session was opened: enough to open it again with the same bridges and limits. */
    record Opening(String token, List<String> withhold, Map<String, Long> limits, long idleMs) {}

    private record Entry(Opening opening, SandboxSession session) {}

    private final Sandbox sandbox;
    private final Path dir;
    private final Map<String, Entry> byId = new ConcurrentHashMap<>();

    ServerSessions(Sandbox sandbox, Path dir) {
        this.sandbox = sandbox;
        this.dir = dir;
    }

    /**
     * Reads the sessions the directory holds, for the tokens that still exist; a file that cannot
     * be restored is logged and left where it is.
     */
    void load(
            Function<String, Optional<Tokens.Token>> tokens,
            Function<Opening, SessionOptions> options) {
        if (dir == null) {
            return;
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the sessions directory " + dir, e);
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : files) {
                String id = f.getFileName().toString();
                id = id.substring(0, id.length() - SUFFIX.length());
                if (!ID.matcher(id).matches()) {
                    continue;
                }
                try {
                    byte[] all = Files.readAllBytes(f);
                    int nl = indexOf(all, (byte) '\n');
                    if (nl < 0) {
                        throw new IOException("it has no header line");
                    }
                    Opening opening = opening(RunBody.JSON.readTree(Arrays.copyOf(all, nl)));
                    if (tokens.apply(opening.token()).isEmpty()) {
                        LOG.warn(
                                "session file {}: its token '{}' no longer exists; skipped",
                                f,
                                opening.token());
                        continue;
                    }
                    SandboxSession s =
                            sandbox.restoreSession(
                                    Arrays.copyOfRange(all, nl + 1, all.length),
                                    options.apply(opening));
                    byId.put(id, new Entry(opening, s));
                } catch (IOException | RuntimeException e) {
                    LOG.warn("session file {} could not be restored: {}", f, e.getMessage());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the sessions directory " + dir, e);
        }
        LOG.info("restored {} session(s) from {}", byId.size(), dir);
    }

    private static int indexOf(byte[] a, byte b) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static Opening opening(JsonNode h) throws IOException {
        if (h == null || !h.path("token").isTextual()) {
            throw new IOException("its header is damaged");
        }
        List<String> withhold = new java.util.ArrayList<>();
        h.path("withhold").forEach(w -> withhold.add(w.asText()));
        Map<String, Long> limits = new java.util.LinkedHashMap<>();
        h.path("limits").properties().forEach(e -> limits.put(e.getKey(), e.getValue().asLong()));
        return new Opening(h.get("token").asText(), withhold, limits, h.path("idleMs").asLong());
    }

    /** Opens a session for {@code opening}'s token; returns its id. */
    String open(Opening opening, SessionOptions options) {
        SandboxSession s = sandbox.openSession(options);
        String id = UUID.randomUUID().toString();
        byId.put(id, new Entry(opening, s));
        persist(id);
        return id;
    }

    /** The token's live session by id, or a 404 (unknown, another token's, closed or expired). */
    SandboxSession get(String id, Tokens.Token token) {
        Entry e = byId.get(id);
        if (e == null || !e.opening().token().equals(token.name())) {
            throw new ApiException(
                    ApiException.Code.NOT_FOUND, "no session of this token has that id");
        }
        if (!e.session().isOpen()) {
            byId.remove(id, e);
            delete(id);
            throw new ApiException(
                    ApiException.Code.NOT_FOUND,
                    "session "
                            + id
                            + " expired (idle past "
                            + e.session().options().idleTimeout()
                            + ") or was closed");
        }
        return e.session();
    }

    /** Runs a call on the token's session and persists what it left. */
    RunResult run(String id, Tokens.Token token, RunRequest call, RunService runs)
            throws Exception {
        SandboxSession s = get(id, token);
        RunResult r;
        try {
            r = runs.startSession(s, call, token).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(ApiException.Code.DRAINING, "the server is stopping");
        } catch (ExecutionException e) {
            throw SandjarServer.unwrap(e);
        }
        persist(id);
        return r;
    }

    /** Forks the token's session; returns the copy's id. */
    String fork(String id, Tokens.Token token) {
        Entry e = byId.get(id);
        SandboxSession s = get(id, token);
        SandboxSession copy = s.fork();
        String forkId = UUID.randomUUID().toString();
        byId.put(forkId, new Entry(e.opening(), copy));
        persist(forkId);
        return forkId;
    }

    /** Closes and forgets the token's session, and deletes its file. */
    void close(String id, Tokens.Token token) {
        Entry e = byId.get(id);
        if (e == null || !e.opening().token().equals(token.name())) {
            throw new ApiException(
                    ApiException.Code.NOT_FOUND, "no session of this token has that id");
        }
        byId.remove(id, e);
        e.session().close();
        delete(id);
    }

    int count() {
        return byId.size();
    }

    /** Writes the session's file: a temporary file moved over the old one. */
    private void persist(String id) {
        Entry e = byId.get(id);
        if (dir == null || e == null) {
            return;
        }
        try {
            byte[] saved = e.session().save();
            ByteArrayOutputStream out = new ByteArrayOutputStream(saved.length + 256);
            out.write(header(e.opening()).getBytes(StandardCharsets.UTF_8));
            out.write('\n');
            out.write(saved);
            Path tmp = Files.createTempFile(dir, id, ".tmp");
            try {
                Files.write(tmp, out.toByteArray());
                try {
                    Files.move(
                            tmp,
                            dir.resolve(id + SUFFIX),
                            StandardCopyOption.ATOMIC_MOVE,
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException unsupported) {
                    Files.move(tmp, dir.resolve(id + SUFFIX), StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (SessionException closed) {
            // closed meanwhile: nothing to keep
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot write session " + id + " to " + dir, ex);
        }
    }

    private static String header(Opening o) {
        return ResultJson.write(
                g -> {
                    g.writeStartObject();
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

    private void delete(String id) {
        if (dir == null) {
            return;
        }
        try {
            Files.deleteIfExists(dir.resolve(id + SUFFIX));
        } catch (IOException e) {
            LOG.warn("cannot delete session file for {}: {}", id, e.getMessage());
        }
    }

    static Duration idle(long ms) {
        return ms > 0 ? Duration.ofMillis(ms) : SessionOptions.DEFAULT_IDLE_TIMEOUT;
    }
}
