package dev.sandjar.server;

import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxSession;
import dev.sandjar.host.SessionException;
import dev.sandjar.host.SessionOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's sessions (docs/sessions.md, "Over HTTP"): each belongs to the token that opened it
 * (another token's id is the same 404 as an unknown one), and each token holds them within its
 * {@link Quotas}: live sessions, bytes of session files, forks per minute. With a sessions
 * directory each session is written there after every change ({@link SessionFiles}: authenticated,
 * atomically) and read back in the background once the server starts; until that pass is over, an
 * id whose file is still waiting answers 503. Thread-safe.
 */
final class ServerSessions {
    private static final Logger LOG = LoggerFactory.getLogger(ServerSessions.class);
    private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** How a session was opened: enough to open it again with the same bridges and limits. */
    record Opening(String token, List<String> withhold, Map<String, Long> limits, long idleMs) {}

    /**
     * A live session and how it was opened. {@code calling} is held from a call's start until its
     * state is written (or undone), so nothing else starts on the session in between.
     */
    private static final class Entry {
        final Opening opening;
        volatile SandboxSession session;
        final AtomicBoolean calling = new AtomicBoolean();

        Entry(Opening opening, SandboxSession session) {
            this.opening = opening;
            this.session = session;
        }
    }

    /**
     * One token's share: its live sessions with the bytes of their files (0 before the first write,
     * and always without a directory), the sessions being opened, and when its forks of the last
     * minute were made. Guarded by itself.
     */
    private static final class Usage {
        final Map<String, Long> files = new HashMap<>();
        long bytes;
        int opening;
        final ArrayDeque<Long> forks = new ArrayDeque<>();
    }

    private final Sandbox sandbox;
    private final SessionFiles files;
    private final Function<String, Optional<Tokens.Token>> tokens;
    private final Function<Opening, SessionOptions> options;
    private final Map<String, Entry> byId = new ConcurrentHashMap<>();
    private final Map<String, Usage> usage = new ConcurrentHashMap<>();
    private final CompletableFuture<Integer> restored = new CompletableFuture<>();
    private volatile boolean restoring;
    private volatile boolean stopping;
    private Thread restorer; // guarded by this

    /**
     * @param dir the sessions directory, or null to keep sessions in memory only
     * @param tokens the token of a name, for a restored file's owner
     * @param options a session's options from how it was opened (its owner must exist)
     * @throws IllegalArgumentException for a refused key file ({@link SessionFiles#open})
     */
    ServerSessions(
            Sandbox sandbox,
            Path dir,
            Function<String, Optional<Tokens.Token>> tokens,
            Function<Opening, SessionOptions> options) {
        this.sandbox = sandbox;
        this.files = dir == null ? null : SessionFiles.open(dir, sandbox.maxSavedSessionBytes());
        this.tokens = tokens;
        this.options = options;
        this.restoring = files != null;
    }

    // ---- restore ----

    /**
     * Starts restoring the directory's sessions on a thread of its own (once; later calls do
     * nothing): each file that authenticates and whose token still exists becomes a live session of
     * its owner, counted in the owner's quotas even past them. A file that does not is logged (its
     * name and the reason, never its content) and left where it is. {@code beforeEach} sees each id
     * before its file is read (tests hold the restore there).
     */
    synchronized void restoreInBackground(Consumer<String> beforeEach) {
        if (restorer != null) {
            return;
        }
        if (files == null) {
            restored.complete(0);
            return;
        }
        restorer =
                new Thread(
                        () -> {
                            int n = 0;
                            try {
                                for (String id : files.ids()) {
                                    if (stopping) {
                                        break;
                                    }
                                    beforeEach.accept(id);
                                    if (restore(id)) {
                                        n++;
                                    }
                                }
                            } catch (IOException | RuntimeException e) {
                                LOG.error(
                                        "cannot list the sessions directory {}: {}",
                                        files.dir(),
                                        e.toString());
                            } finally {
                                restoring = false;
                                LOG.info("restored {} session(s) from {}", n, files.dir());
                                restored.complete(n);
                            }
                        },
                        "sandjar-session-restore");
        restorer.setDaemon(true);
        restorer.start();
    }

    /** Completes with how many sessions were restored once the restore pass is over. */
    CompletableFuture<Integer> restored() {
        return restored;
    }

    /** Restores one file; false (and logged) when it is not restored. */
    private boolean restore(String id) {
        Path file = files.path(id);
        try {
            SessionFiles.Contents c = files.read(id);
            Opening o = c.opening();
            if (tokens.apply(o.token()).isEmpty()) {
                LOG.warn(
                        "session file {}: its token '{}' no longer exists; left in place",
                        file,
                        o.token());
                return false;
            }
            SandboxSession s = sandbox.restoreSession(c.saved(), options.apply(o));
            byId.put(id, new Entry(o, s));
            Usage u = usage(o.token());
            synchronized (u) {
                u.files.put(id, c.bytes());
                u.bytes += c.bytes();
            }
            return true;
        } catch (IOException | RuntimeException e) {
            // IOException messages are SessionFiles' own or the file system's; the others come
            // only from an authentic file, which this server wrote.
            LOG.warn("session file {} not restored, left in place: {}", file, e.getMessage());
        } catch (OutOfMemoryError e) {
            // a legitimate file too large for this JVM's heap: its arrays are garbage already
            LOG.warn(
                    "session file {} not restored, left in place: the JVM's heap cannot hold it",
                    file);
        }
        return false;
    }

    /** Stops the restore pass after the file it is on, waiting for it a little. */
    void stopRestoring() {
        Thread t;
        synchronized (this) {
            stopping = true;
            t = restorer;
        }
        if (t == null) {
            return;
        }
        t.interrupt();
        try {
            t.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- routes ----

    /** Opens a session for {@code token}; returns its id. */
    String open(Tokens.Token token, Opening opening, SessionOptions options) {
        Quotas q = token.policy().quotas();
        Usage u = usage(token.name());
        takeSession(u, q);
        SandboxSession s;
        try {
            s = sandbox.openSession(options);
        } catch (RuntimeException e) {
            giveBackSession(u);
            throw e;
        }
        String id = UUID.randomUUID().toString();
        Entry e = new Entry(opening, s);
        add(id, e, u);
        persistNew(id, e, q, "the session was not opened");
        return id;
    }

    /** Answers 404 or 503 unless the token has a live session of that id. */
    void check(String id, Tokens.Token token) {
        entry(id, token);
    }

    /**
     * Runs a call on the token's session and writes what it left. A state that would take the
     * token's session files over its {@code maxSessionBytes} is undone: the session goes back to
     * its file, the state before the call, and the answer is 429 saying so.
     */
    RunResult run(String id, Tokens.Token token, RunRequest call, RunService runs)
            throws Exception {
        Entry e = entry(id, token);
        if (!e.calling.compareAndSet(false, true)) {
            throw busy(id);
        }
        try {
            RunResult r;
            try {
                r = runs.startSession(e.session, call, token).get();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                throw new ApiException(ApiException.Code.DRAINING, "the server is stopping");
            } catch (ExecutionException x) {
                throw SandjarServer.unwrap(x);
            }
            try {
                persist(id, e, token.policy().quotas());
            } catch (OverQuota over) {
                throw undo(id, e, over);
            }
            return r;
        } finally {
            e.calling.set(false);
        }
    }

    /** Forks the token's session; returns the copy's id. */
    String fork(String id, Tokens.Token token) {
        Entry e = entry(id, token);
        Quotas q = token.policy().quotas();
        Usage u = usage(token.name());
        if (!e.calling.compareAndSet(false, true)) {
            throw busy(id);
        }
        SandboxSession copy;
        long forkedAt;
        try {
            takeSession(u, q);
            try {
                forkedAt = takeFork(u, q);
            } catch (RuntimeException x) {
                giveBackSession(u);
                throw x;
            }
            try {
                copy = e.session.fork();
            } catch (RuntimeException x) {
                giveBackSession(u);
                giveBackFork(u, forkedAt);
                throw x;
            }
        } finally {
            e.calling.set(false);
        }
        String forkId = UUID.randomUUID().toString();
        Entry f = new Entry(e.opening, copy);
        add(forkId, f, u);
        try {
            persistNew(forkId, f, q, "the fork was not made");
        } catch (RuntimeException x) {
            giveBackFork(u, forkedAt);
            throw x;
        }
        return forkId;
    }

    /** Closes and forgets the token's session, and deletes its file. */
    void close(String id, Tokens.Token token) {
        forget(id, entry(id, token));
    }

    int count() {
        return byId.size();
    }

    /**
     * The token's live session by id; a 404 for an unknown, closed or expired one or another
     * token's, a 503 for one whose file the restore pass has not reached yet.
     */
    private Entry entry(String id, Tokens.Token token) {
        Entry e = byId.get(id);
        if (e == null && restoring && files != null && files.exists(id) && !byId.containsKey(id)) {
            throw new ApiException(
                    ApiException.Code.RESTORING,
                    "the server is still restoring its sessions from its sessions directory;"
                            + " retry shortly",
                    Map.of("Retry-After", "1"));
        }
        if (e == null || !e.opening.token().equals(token.name())) {
            throw new ApiException(
                    ApiException.Code.NOT_FOUND, "no session of this token has that id");
        }
        if (!e.session.isOpen()) {
            forget(id, e);
            throw new ApiException(
                    ApiException.Code.NOT_FOUND,
                    "session "
                            + id
                            + " expired (idle past "
                            + e.session.options().idleTimeout()
                            + ") or was closed");
        }
        return e;
    }

    private static ApiException busy(String id) {
        return new ApiException(
                ApiException.Code.CONFLICT,
                "session " + id + " is running a call; its calls run one at a time");
    }

    // ---- the token's share ----

    private Usage usage(String token) {
        return usage.computeIfAbsent(token, t -> new Usage());
    }

    /** Takes one of the token's live sessions, or refuses naming {@code maxSessions}. */
    private void takeSession(Usage u, Quotas q) {
        synchronized (u) {
            if (u.files.size() + u.opening >= q.maxSessions()) {
                forgetEnded(u);
            }
            if (u.files.size() + u.opening >= q.maxSessions()) {
                throw new ApiException(
                        ApiException.Code.TOO_MANY_RUNS,
                        "the token's live sessions are at its cap (maxSessions "
                                + q.maxSessions()
                                + "); close one or wait for one to expire");
            }
            u.opening++;
        }
    }

    private static void giveBackSession(Usage u) {
        synchronized (u) {
            u.opening--;
        }
    }

    /** Forgets the token's sessions that expired or were closed since a request last saw them. */
    private void forgetEnded(Usage u) {
        assert Thread.holdsLock(u);
        for (String id : List.copyOf(u.files.keySet())) {
            Entry e = byId.get(id);
            if (e != null && !e.session.isOpen()) {
                forget(id, e);
            }
        }
    }

    /**
     * Takes one of the token's forks of the last minute (a sliding window: the forks made in the 60
     * seconds before now), or refuses naming {@code maxForksPerMinute} with a {@code Retry-After}
     * of when the oldest leaves the window. Returns the fork's time.
     */
    private static long takeFork(Usage u, Quotas q) {
        long now = System.nanoTime();
        synchronized (u) {
            while (!u.forks.isEmpty() && now - u.forks.peekFirst() >= MINUTE_NANOS) {
                u.forks.removeFirst();
            }
            if (u.forks.size() >= q.maxForksPerMinute()) {
                long wait = u.forks.peekFirst() + MINUTE_NANOS - now;
                long seconds = Math.max(1, (wait + 999_999_999) / 1_000_000_000);
                throw new ApiException(
                        ApiException.Code.TOO_MANY_RUNS,
                        "the token made "
                                + u.forks.size()
                                + " forks in the last minute, its cap (maxForksPerMinute "
                                + q.maxForksPerMinute()
                                + "); retry in "
                                + seconds
                                + " s",
                        Map.of("Retry-After", Long.toString(seconds)));
            }
            u.forks.addLast(now);
            return now;
        }
    }

    /** A fork that was not made does not count. */
    private static void giveBackFork(Usage u, long at) {
        synchronized (u) {
            u.forks.removeLastOccurrence(at);
        }
    }

    /** Lists a session the token took a place for ({@link #takeSession}). */
    private void add(String id, Entry e, Usage u) {
        byId.put(id, e);
        synchronized (u) {
            u.opening--;
            u.files.put(id, 0L);
        }
    }

    /** Forgets a session: closes it, gives back its place and bytes, deletes its file. */
    private void forget(String id, Entry e) {
        if (!byId.remove(id, e)) {
            return;
        }
        e.session.close();
        Usage u = usage(e.opening.token());
        synchronized (u) {
            Long bytes = u.files.remove(id);
            if (bytes != null) {
                u.bytes -= bytes;
            }
        }
        if (files != null) {
            files.delete(id);
        }
    }

    // ---- files ----

    /** A write the token's {@code maxSessionBytes} refuses; nothing was written. */
    private static final class OverQuota extends Exception {
        private static final long serialVersionUID = 1L;

        OverQuota(String message) {
            super(message, null, false, false);
        }
    }

    /** Writes a new session's first file; a refusal forgets the session, and answers 429. */
    private void persistNew(String id, Entry e, Quotas q, String outcome) {
        try {
            persist(id, e, q);
        } catch (OverQuota over) {
            forget(id, e);
            throw new ApiException(
                    ApiException.Code.TOO_MANY_RUNS, over.getMessage() + "; " + outcome);
        } catch (RuntimeException x) {
            forget(id, e);
            throw x;
        }
    }

    /**
     * Writes the session's file, unless it would take the token's session files over its {@code
     * maxSessionBytes} (a file that does not grow is always written: a set restored over the quota
     * shrinks back under it). The quota is checked before anything is written, so a refused write
     * leaves no file, not even part of one.
     */
    private void persist(String id, Entry e, Quotas q) throws OverQuota {
        if (files == null) {
            return;
        }
        byte[] file;
        try {
            file = files.encode(id, e.opening, e.session.save());
        } catch (SessionException closedOrBusy) {
            return; // closed meanwhile (nothing to keep), or a later call will write it
        }
        Usage u = usage(e.opening.token());
        long before;
        synchronized (u) {
            Long had = u.files.get(id);
            if (had == null) {
                return; // forgotten meanwhile
            }
            before = had;
            long after = u.bytes - before + file.length;
            if (file.length > before && after > q.maxSessionBytes()) {
                throw new OverQuota(
                        "the token's session files would take "
                                + after
                                + " bytes, over its cap (maxSessionBytes "
                                + q.maxSessionBytes()
                                + "; they take "
                                + u.bytes
                                + " now)");
            }
            u.files.put(id, (long) file.length);
            u.bytes = after;
        }
        try {
            files.write(id, file);
        } catch (IOException x) {
            synchronized (u) {
                if (u.files.replace(id, (long) file.length, before)) {
                    u.bytes -= file.length - before;
                }
            }
            throw new UncheckedIOException("cannot write session " + id + " to " + files.dir(), x);
        }
        if (byId.get(id) != e) {
            files.delete(id); // closed while it was written
        }
    }

    /**
     * Takes the session back to its file (the state before the call that went over the quota) and
     * returns the 429 to answer; a session that cannot be brought back is closed, and the answer
     * says so.
     */
    private ApiException undo(String id, Entry e, OverQuota over) {
        String outcome;
        try {
            SessionFiles.Contents before = files.read(id);
            SandboxSession old = e.session;
            old.close();
            e.session = sandbox.restoreSession(before.saved(), options.apply(e.opening));
            outcome = "the call was undone: the session is back to its state before it";
        } catch (IOException | RuntimeException x) {
            forget(id, e);
            outcome =
                    "the session could not be taken back to its state before the call ("
                            + x.getMessage()
                            + ") and is closed";
        }
        if (byId.get(id) != e) {
            e.session.close(); // closed by its client meanwhile
        }
        return new ApiException(
                ApiException.Code.TOO_MANY_RUNS, over.getMessage() + "; " + outcome);
    }

    static Duration idle(long ms) {
        return ms > 0 ? Duration.ofMillis(ms) : SessionOptions.DEFAULT_IDLE_TIMEOUT;
    }
}
