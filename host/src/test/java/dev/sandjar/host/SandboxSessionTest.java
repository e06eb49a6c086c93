package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.testing.SandboxExtension;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.DeflaterOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Persistent sessions: carry-over, isolation, bounds, failures, save, restore and fork. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SandboxSessionTest {
    static final int MAX_SESSIONS = 6;

    @RegisterExtension
    static final SandboxExtension SANDBOX =
            SandboxExtension.poolSize(2).configure(b -> b.maxSessions(MAX_SESSIONS));

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    static Object ok(SandboxSession s, String code) {
        RunResult r = s.run(code);
        assertTrue(r.isOk(), () -> "expected success: " + r.error() + "\n" + r.error().stack());
        return r.value();
    }

    static RunError failed(SandboxSession s, String code) {
        RunResult r = s.run(code);
        assertFalse(r.isOk(), () -> "expected failure, got " + r.value());
        return r.error();
    }

    @Test
    void declarationsCarryOverBetweenCalls() {
        try (SandboxSession s = sandbox.openSession()) {
            ok(s, "let counter = 0; function inc() { return ++counter }");
            assertEquals(1L, ok(s, "return inc()"));
            assertEquals(2L, ok(s, "return inc()"));
            ok(
                    s,
                    "const { a, b: [c, ...rest] } = { a: 1, b: [2, 3, 4] };\n"
                            + "var v = 'var';\nclass Point { constructor(x) { this.x = x } }\n"
                            + "let later;");
            assertEquals(
                    List.of(1L, 2L, List.of(3L, 4L), "var", 5L, true),
                    ok(s, "return [a, c, rest, v, new Point(5).x, later === undefined]"));
            // await and return at the top level, and an async function kept for later calls
            ok(s, "async function twice(x) { return 2 * await Promise.resolve(x) }");
            assertEquals(42L, ok(s, "const got = await twice(21);\nreturn got;"));
            assertEquals(42L, ok(s, "return got"));
            // a later call may declare a name again (as in a REPL): the binding is reassigned
            ok(s, "let counter = 100;");
            assertEquals(101L, ok(s, "return inc()"));
            // names inside functions and blocks stay local
            ok(s, "{ let hidden = 1; } for (let i = 0; i < 2; i++) {} function f() { let x = 1 }");
            assertEquals(
                    List.of("undefined", "undefined"), ok(s, "return [typeof hidden, typeof i]"));
            assertEquals(12L, s.calls());
        }
    }

    @Test
    void twoSessionsNeverSeeEachOther() {
        try (SandboxSession a = sandbox.openSession();
                SandboxSession b = sandbox.openSession()) {
            ok(a, "let secret = 'a'; globalThis.mark = 'a';");
            ok(b, "let secret = 'b';");
            assertEquals("a", ok(a, "return secret"));
            assertEquals("b", ok(b, "return secret"));
            assertEquals("undefined", ok(b, "return typeof mark"));
            // and a plain run sees nothing of either
            RunResult plain = sandbox.run(RunRequest.builder("return typeof secret").build());
            assertEquals("undefined", plain.value());
            assertNotEquals(a.id(), b.id());
        }
    }

    @Test
    void eachCallHasItsOwnLogsGlobalsAndErrors() {
        try (SandboxSession s =
                sandbox.openSession(
                        SessionOptions.builder()
                                .bridge(TestBridges.echo())
                                .bridge(TestBridges.log())
                                .build())) {
            RunResult first =
                    s.run(
                            RunRequest.builder("log('INFO', 'one'); let x = input; return x")
                                    .global("input", 7)
                                    .build());
            assertEquals(7L, first.value(), String.valueOf(first.error()));
            assertEquals(1, first.logs().size());
            RunResult second =
                    s.run(
                            RunRequest.builder(
                                            "log('INFO', 'two'); return [x, typeof input, other]")
                                    .global("other", "o")
                                    .build());
            assertEquals(
                    List.of(7L, "undefined", "o"), second.value(), String.valueOf(second.error()));
            assertEquals(List.of("two"), second.logs().stream().map(LogEntry::message).toList());
            assertEquals(5L, ok(s, "return await echoLater(5)"));
            RunError thrown = failed(s, "let y = 1;\nthrow new TypeError('nope')");
            assertEquals(RunError.Kind.EXCEPTION, thrown.kind());
            assertEquals(2, thrown.line());
            // what ran before the throw stays, like a REPL
            assertEquals(1L, ok(s, "return y"));
            RunError syntax = failed(s, "let z = ;");
            assertEquals(RunError.Kind.SYNTAX, syntax.kind());
            assertEquals("undefined", ok(s, "return typeof z"));
            RunError imports = failed(s, "import x from 'y';\nreturn 1");
            assertTrue(imports.message().contains("cannot import"), imports.message());
        }
    }

    @Test
    void aCallPastItsBudgetOrHeapLeavesTheSessionUsable() {
        Limits limits =
                Limits.builder().timeout(Duration.ofMillis(300)).heapBytes(32L << 20).build();
        try (SandboxSession s =
                sandbox.openSession(SessionOptions.builder().limits(limits).build())) {
            ok(s, "let kept = 'still here';");
            assertEquals(RunError.Kind.TIMEOUT, failed(s, "let spun = 1; for (;;) {}").kind());
            assertEquals("still here", ok(s, "return kept"));
            RunResult hogged =
                    s.run(
                            RunRequest.builder(
                                            "const hog = []; for (;;) hog.push('x'.repeat(1 << 16)"
                                                    + " + hog.length)")
                                    .limits(
                                            Limits.builder()
                                                    .timeout(Duration.ofSeconds(60))
                                                    .build())
                                    .build());
            RunError oom = hogged.error();
            assertEquals(RunError.Kind.MEMORY, oom.kind(), oom + " " + hogged.limits());
            assertEquals("still here", ok(s, "hog.length = 0; return kept"));
            // a cancelled call too
            SandboxRun run = s.submit(RunRequest.builder("for (;;) {}").build());
            run.cancel();
            assertEquals(RunError.Kind.CANCELLED, run.result().join().error().kind());
            assertEquals("still here", ok(s, "return kept"));
            // a call's heap is the session's: asking for another is refused
            assertThrows(
                    InvalidRequestException.class,
                    () ->
                            s.run(
                                    RunRequest.builder("return 1")
                                            .limits(Limits.builder().heapBytes(64L << 20).build())
                                            .build()));
        }
    }

    @Test
    void callsRunOneAtATime() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Bridge gate =
                Bridge.builder("gate")
                        .guest("(host) => ({ gate: () => host.call('wait') })")
                        .operation(
                                Operation.builder("wait")
                                        .handler(
                                                c ->
                                                        java.util.concurrent.CompletableFuture
                                                                .supplyAsync(
                                                                        () -> {
                                                                            entered.countDown();
                                                                            try {
                                                                                release.await();
                                                                            } catch (
                                                                                    InterruptedException
                                                                                            e) {
                                                                                Thread
                                                                                        .currentThread()
                                                                                        .interrupt();
                                                                            }
                                                                            return "open";
                                                                        }))
                                        .build())
                        .build();
        try (SandboxSession s =
                sandbox.openSession(SessionOptions.builder().bridge(gate).build())) {
            SandboxRun first = s.submit(RunRequest.builder("return await gate()").build());
            assertTrue(entered.await(30, TimeUnit.SECONDS));
            SessionException busy = assertThrows(SessionException.class, () -> s.run("return 1"));
            assertEquals(SessionException.Reason.BUSY, busy.reason());
            SessionException saving = assertThrows(SessionException.class, s::save);
            assertEquals(SessionException.Reason.BUSY, saving.reason());
            assertTrue(saving.getMessage().contains("host work"), saving.getMessage());
            release.countDown();
            assertEquals("open", first.result().get(30, TimeUnit.SECONDS).value());
            assertEquals(1L, ok(s, "return 1"));
        }
    }

    @Test
    void theSessionCapIdleExpiryAndCloseAreEnforced() throws Exception {
        List<SandboxSession> open = new ArrayList<>();
        try {
            while (sandbox.sessionCount() < MAX_SESSIONS) {
                open.add(sandbox.openSession());
            }
            SessionException full = assertThrows(SessionException.class, sandbox::openSession);
            assertEquals(SessionException.Reason.TOO_MANY, full.reason());
            assertTrue(
                    full.getMessage().contains("maxSessions is " + MAX_SESSIONS),
                    full.getMessage());
        } finally {
            open.forEach(SandboxSession::close);
        }
        SandboxSession closed = sandbox.openSession();
        closed.close();
        assertEquals(
                SessionException.Reason.CLOSED,
                assertThrows(SessionException.class, () -> closed.run("return 1")).reason());
        SandboxSession idle =
                sandbox.openSession(
                        SessionOptions.builder().idleTimeout(Duration.ofMillis(200)).build());
        ok(idle, "let x = 1");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (idle.isOpen() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        SessionException expired = assertThrows(SessionException.class, () -> idle.run("return x"));
        assertEquals(SessionException.Reason.EXPIRED, expired.reason());
        assertTrue(expired.getMessage().contains("expired"), expired.getMessage());
        assertEquals(null, sandbox.session(idle.id()));
        assertThrows(
                InvalidRequestException.class,
                () -> SessionOptions.builder().idleTimeout(Duration.ZERO));
    }

    @Test
    void saveAndRestoreInANewSandboxKeepsTheState() {
        byte[] saved;
        try (SandboxSession s = sandbox.openSession()) {
            ok(
                    s,
                    "let counter = 40; function inc() { return ++counter }\n"
                            + "const big = 'y'.repeat(100000);");
            assertEquals(41L, ok(s, "return inc()"));
            saved = s.save();
        }
        try (Sandbox other = Sandbox.builder().poolSize(1).build();
                SandboxSession back = other.restoreSession(saved)) {
            assertEquals(42L, ok(back, "return inc()"));
            assertEquals(100000L, ok(back, "return big.length"));
        }
        // the saved bytes stay valid: restore here too, twice, independent
        try (SandboxSession one = sandbox.restoreSession(saved);
                SandboxSession two = sandbox.restoreSession(saved)) {
            assertEquals(42L, ok(one, "return inc()"));
            assertEquals(43L, ok(one, "return inc()"));
            assertEquals(42L, ok(two, "return inc()"));
        }
    }

    @Test
    void forkIsAnIndependentCopy() {
        try (SandboxSession s = sandbox.openSession()) {
            ok(s, "let list = [1];");
            try (SandboxSession f = s.fork()) {
                ok(f, "list.push(2); let onlyInFork = true;");
                ok(s, "list.push(3);");
                assertEquals(List.of(1L, 2L), ok(f, "return list"));
                assertEquals(List.of(1L, 3L), ok(s, "return list"));
                assertEquals("undefined", ok(s, "return typeof onlyInFork"));
            }
        }
    }

    @Test
    void aForeignOrDamagedImageIsRefusedNamingWhy() {
        byte[] saved;
        try (SandboxSession s = sandbox.openSession()) {
            ok(s, "let x = 1");
            saved = s.save();
        }
        SessionException notOne =
                assertThrows(
                        SessionException.class, () -> sandbox.restoreSession(new byte[] {1, 2, 3}));
        assertEquals(SessionException.Reason.IMAGE, notOne.reason());
        byte[] damaged = saved.clone();
        damaged[damaged.length - 10] ^= 0x55;
        assertTrue(
                assertThrows(SessionException.class, () -> sandbox.restoreSession(damaged))
                        .getMessage()
                        .contains("digest"));
        // another engine build: rewrite the build id in the header (same length)
        byte[] foreign = replaceBuild(saved);
        SessionException build =
                assertThrows(SessionException.class, () -> sandbox.restoreSession(foreign));
        assertTrue(build.getMessage().contains("saved by engine build"), build.getMessage());
        assertTrue(build.getMessage().contains("this sandbox runs"), build.getMessage());
        SessionException bridges =
                assertThrows(
                        SessionException.class,
                        () ->
                                sandbox.restoreSession(
                                        saved,
                                        SessionOptions.builder()
                                                .bridge(TestBridges.echo())
                                                .build()));
        assertTrue(bridges.getMessage().contains("saved with bridges []"), bridges.getMessage());
        assertTrue(bridges.getMessage().contains("[echo]"), bridges.getMessage());
        byte[] cut = Arrays.copyOf(saved, saved.length / 2);
        assertEquals(
                SessionException.Reason.IMAGE,
                assertThrows(SessionException.class, () -> sandbox.restoreSession(cut)).reason());
    }

    @Test
    void aBodyThatInflatesPastTheSessionsMemoryFailsWithoutExhaustingTheJvm() throws IOException {
        SessionOptions small =
                SessionOptions.builder()
                        .limits(Limits.builder().heapBytes(1 << 20).build())
                        .build();
        byte[] saved;
        try (SandboxSession s = sandbox.openSession(small)) {
            ok(s, "let x = 1");
            saved = s.save();
        }
        // The saved header (magic, format, build, bridges) as it is, then a digest that matches a
        // body of 64 MiB of zeros deflated to about 64 KiB: past the bound of a 1 MiB session.
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
        byte[] body = zeros.toByteArray();
        ByteArrayOutputStream forged = new ByteArrayOutputStream();
        forged.write(saved, 0, header);
        forged.write(sha256(body));
        forged.write(body);
        SessionException e =
                assertThrows(
                        SessionException.class,
                        () -> sandbox.restoreSession(forged.toByteArray(), small));
        assertEquals(SessionException.Reason.IMAGE, e.reason());
        assertTrue(e.getMessage().contains("inflates past"), e.getMessage());
        // the bound of the largest engine stays below what a Java array can hold
        assertEquals(
                SessionImages.MAX_ARRAY,
                SessionImages.payloadBound(dev.sandjar.quickjs.EngineOptions.MAX_MEMORY_PAGES));
        assertTrue(sandbox.maxSavedSessionBytes() <= SessionImages.MAX_ARRAY);
    }

    private static byte[] sha256(byte[] data) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(data);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] replaceBuild(byte[] saved) {
        String build = dev.sandjar.quickjs.QuickJsEngine.buildId();
        byte[] b = saved.clone();
        int at = 6 + 2 + 2; // magic, format, the UTF length
        assertEquals(build.charAt(0), (char) b[at]);
        b[at] = (byte) (b[at] == 'X' ? 'Y' : 'X');
        return b;
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aSavedSessionComesBackInANewJvm(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("session.bin");
        try (SandboxSession s = sandbox.openSession()) {
            ok(
                    s,
                    "let n = 6; function times(k) { return n * k }\n"
                            + "const when = new Map([[1, 'one']]);");
            Files.write(file, s.save());
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xss4m");
        cmd.addAll(Sandbox.jvmFlags());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(RestoreInThisJvm.class.getName());
        cmd.add(file.toString());
        Path out = dir.resolve("out.txt");
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        try {
            assertTrue(p.waitFor(280, TimeUnit.SECONDS), "the new JVM did not finish");
        } finally {
            p.destroyForcibly();
        }
        String printed = Files.readString(out);
        assertEquals(0, p.exitValue(), printed);
        assertTrue(printed.contains("RESULT [42, one]"), printed);
    }

    /** Run in a new JVM: restores the session from the file and prints a call's result. */
    public static final class RestoreInThisJvm {
        private RestoreInThisJvm() {}

        public static void main(String[] args) throws IOException {
            byte[] saved = Files.readAllBytes(Path.of(args[0]));
            try (Sandbox s = Sandbox.builder().poolSize(1).build();
                    SandboxSession back = s.restoreSession(saved)) {
                RunResult r = back.run("return [times(7), when.get(1)]");
                System.out.println(r.isOk() ? "RESULT " + r.value() : "FAILED " + r.error());
            }
        }
    }
}
