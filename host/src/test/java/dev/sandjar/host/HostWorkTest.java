package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.testing.SandboxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Host work under the run's budgets (docs/sandbox.md, "Host work"): isolated tasks in a real worker
 * process with a small heap, and in-process work on the host meter. After every test the one engine
 * and the one worker serve an ordinary call.
 */
class HostWorkTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX =
            SandboxExtension.poolSize(1)
                    .configure(
                            b ->
                                    b.hostIsolation(
                                            HostIsolation.builder()
                                                    .withWorkers(1)
                                                    .withHeapBytes(96L << 20)
                                                    .build()));

    static Sandbox sandbox;

    private static final Map<String, Class<? extends IsolatedTask>> TASKS =
            Map.of(
                    "echo", TestTasks.Echo.class,
                    "noisy", TestTasks.Noisy.class,
                    "hoard", TestTasks.Hoard.class,
                    "spin", TestTasks.Spin.class,
                    "crash", TestTasks.Crash.class,
                    "refuse", TestTasks.Refuse.class,
                    "pid", TestTasks.Pid.class,
                    "big", TestTasks.Big.class,
                    "late", TestTasks.Late.class);

    /**
     * {@code tasks.run(name, input)} (a promise), {@code tasks.now(name, input)}, {@code
     * tasks.local(kind, n)}.
     */
    static final Bridge TASKS_BRIDGE =
            Bridge.builder("tasks")
                    .guest(
                            "(host) => ({ tasks: { run: (t, i) => host.call('run', t, i),"
                                    + " now: (t, i) => host.call('now', t, i),"
                                    + " local: (k, n) => host.call('local', k, n),"
                                    + " reserve: (n) => host.call('reserve', n) } })")
                    .operation(
                            Operation.builder("run")
                                    .param(Param.string("task"))
                                    .param(Param.any("input").optional())
                                    .handler(
                                            c ->
                                                    c.session()
                                                            .isolated(
                                                                    "tasks." + c.string(0),
                                                                    TASKS.get(c.string(0)),
                                                                    c.arg(1)))
                                    .build())
                    .operation(
                            Operation.builder("now")
                                    .param(Param.string("task"))
                                    .param(Param.any("input").optional())
                                    .handler(
                                            c ->
                                                    c.session()
                                                            .await(
                                                                    c.session()
                                                                            .isolated(
                                                                                    "tasks."
                                                                                            + c
                                                                                                    .string(
                                                                                                            0),
                                                                                    TASKS.get(
                                                                                            c
                                                                                                    .string(
                                                                                                            0)),
                                                                                    c.arg(1))))
                                    .build())
                    .operation(
                            Operation.builder("reserve")
                                    .param(Param.integer("bytes"))
                                    .handler(
                                            c -> {
                                                c.session()
                                                        .reserveHostMemory(
                                                                "tasks.reserve", c.integer(0, 0));
                                                return null;
                                            })
                                    .build())
                    .operation(
                            Operation.builder("local")
                                    .param(Param.string("kind"))
                                    .param(Param.integer("n"))
                                    .handler(c -> local(c.session(), c.string(0), c.integer(1, 0)))
                                    .build())
                    .build();

    private static Object local(RunSession session, String kind, long n) {
        return session.work(
                "tasks.local",
                call -> {
                    if (kind.equals("alloc")) {
                        // n MiB, kept, then held for a second, checking: long enough for the
                        // meter (every 20 ms) to see it however fast the allocation was.
                        List<byte[]> kept = new ArrayList<>();
                        for (long i = 0; i < n; i++) {
                            kept.add(new byte[1 << 20]);
                            call.check();
                        }
                        for (int i = 0; i < 100; i++) {
                            call.check();
                            try {
                                Thread.sleep(10);
                            } catch (InterruptedException e) {
                                call.check();
                                throw new IllegalStateException("interrupted without a stop");
                            }
                        }
                        return (long) kept.size();
                    }
                    if (kind.equals("nice")) {
                        return niceOfThisThread();
                    }
                    long x = 0;
                    while (true) { // spin, checking
                        x = x * 31 + 7;
                        if ((x & 0xfff) == 0) {
                            call.check();
                        }
                    }
                });
    }

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    @AfterEach
    void everythingStillServes() {
        RunResult r = run("return await tasks.run('echo', 'still here')", Limits.none());
        assertTrue(r.isOk(), r.toString());
        assertEquals("still here", r.value());
        assertEquals(0, sandbox.leaks());
    }

    private static RunResult run(String code, Limits limits) {
        return sandbox.run(RunRequest.builder(code).bridge(TASKS_BRIDGE).limits(limits).build());
    }

    private static Object ok(RunResult r) {
        assertTrue(r.isOk(), r.toString());
        return r.value();
    }

    private static long pid() {
        return (Long) ok(run("return await tasks.run('pid')", Limits.none()));
    }

    @Test
    void valuesCrossToTheWorkerAndBackUnchanged() {
        Object v =
                ok(
                        run(
                                "const s = 'a\\ud800b' + 'x'.repeat(9000);const r = await"
                                    + " tasks.run('echo', {s, n: 1.5, i: 7, b: new"
                                    + " Uint8Array([1,2,3]), l: [null, true, 'é']});return [r.s ==="
                                    + " s, r.n, r.i, Array.from(r.b), r.l];",
                                Limits.none()));
        assertEquals(
                List.of(
                        true,
                        1.5,
                        7L,
                        List.of(1L, 2L, 3L),
                        java.util.Arrays.asList(null, true, "é")),
                v);
    }

    @Test
    void whatATaskPrintsDoesNotReachTheChannel() {
        assertEquals("quiet", ok(run("return await tasks.run('noisy', 'quiet')", Limits.none())));
    }

    @Test
    void aBridgeErrorOfATaskReachesTheGuestAsItIs() {
        Object v =
                ok(
                        run(
                                "try { await tasks.run('refuse', 'x') } catch (e) { return [e.name,"
                                        + " e.code, e.message] }",
                                Limits.none()));
        assertEquals(List.of("RangeError", "INPUT_TOO_LARGE", "refuse: x"), v);
    }

    @Test
    void aTaskThatFillsTheWorkersHeapFailsItsCallAndTheWorkerIsReplaced() {
        long before = pid();
        for (String check : List.of("true", "false")) {
            Object v =
                    ok(
                            run(
                                    "try { await tasks.run('hoard', {check: "
                                            + check
                                            + "}); return 'no error' } catch (e) { return [e.name,"
                                            + " e.code] }",
                                    Limits.builder().hostBytes(32L << 20).build()));
            assertEquals(List.of("RangeError", "HOST_MEMORY_LIMIT"), v, "check " + check);
        }
        assertNotEquals(before, pid(), "the worker that ran out of memory was replaced");
    }

    @Test
    void aTaskThatNeverChecksEndsWithTheRunsCpuBudget() {
        RunResult r =
                run(
                        "await tasks.run('spin')",
                        Limits.builder().timeout(Duration.ofMillis(400)).build());
        assertFalse(r.isOk());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind(), r.toString());
        assertTrue(r.error().message().contains("in host work"), r.error().message());
    }

    @Test
    void aSynchronousCallEndsWithTheRunsWallBound() {
        RunResult r =
                run(
                        "tasks.now('spin')",
                        Limits.builder()
                                .timeout(Duration.ofSeconds(60))
                                .wallTimeout(Duration.ofMillis(600))
                                .build());
        assertFalse(r.isOk());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind(), r.toString());
    }

    @Test
    void aCrashedWorkerFailsItsCallWithAHostError() {
        Object v =
                ok(
                        run(
                                "try { await tasks.run('crash') } catch (e) { return [e.name,"
                                        + " e.code] }",
                                Limits.none()));
        assertEquals(List.of("HostError", "HOST_ERROR"), v);
    }

    @Test
    void aCancelledRunEndsTheWorkerRunningItsCall() throws Exception {
        long before = pid();
        SandboxRun run =
                sandbox.submit(
                        RunRequest.builder("await tasks.run('spin')").bridge(TASKS_BRIDGE).build());
        Thread.sleep(300);
        run.cancel();
        RunResult r = run.result().get();
        assertEquals(RunError.Kind.CANCELLED, r.error().kind(), r.toString());
        assertNotEquals(before, pid());
    }

    @Test
    void aResultLargerThanHostBytesIsRefusedByName() {
        Object v =
                ok(
                        run(
                                "try { await tasks.run('big', 3 * 1024 * 1024) } catch (e) { return"
                                        + " [e.code, e.message] }",
                                Limits.builder().hostBytes(2L << 20).build()));
        assertEquals("HOST_RESULT_TOO_LARGE", ((List<?>) v).get(0));
        assertTrue(((String) ((List<?>) v).get(1)).contains("hostBytes"), v.toString());
    }

    @Test
    void inProcessWorkPastHostBytesFailsItsCallAndTheRunGoesOn() {
        Object v =
                ok(
                        run(
                                "try { await tasks.local('alloc', 300) } catch (e) { return"
                                        + " [e.code, 'went on'] }",
                                Limits.builder().hostBytes(16L << 20).build()));
        assertEquals(List.of("HOST_MEMORY_LIMIT", "went on"), v);
    }

    @Test
    void inProcessWorkCountsAgainstTheRunsCpuBudget() {
        RunResult r =
                run(
                        "await tasks.local('spin', 0)",
                        Limits.builder().timeout(Duration.ofMillis(300)).build());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind(), r.toString());
        assertTrue(r.error().message().contains("in host work"), r.error().message());
    }

    @Test
    void byteArraysSurviveTheRoundTrip() {
        Object v =
                ok(
                        run(
                                "return await tasks.run('echo', new Uint8Array(70000).fill(9))",
                                Limits.none()));
        byte[] expected = new byte[70000];
        java.util.Arrays.fill(expected, (byte) 9);
        assertArrayEquals(expected, (byte[]) v);
    }

    private static RunResult run(String code, HostMemory tenant) {
        return sandbox.run(
                RunRequest.builder(code).bridge(TASKS_BRIDGE).hostMemory(tenant).build());
    }

    /**
     * A tenant's host memory is its own: its reservations are refused by name past its budget,
     * while another tenant's go through; what a run reserved is given back when it ends.
     */
    @Test
    void aTenantsHostMemoryBudgetRefusesOnlyThatTenant() {
        HostMemory a = HostMemory.of("tenant a's host memory", 8L << 20);
        HostMemory b = HostMemory.of("tenant b's host memory", 8L << 20);
        Object v =
                ok(
                        run(
                                "tasks.reserve(6 * 1024 * 1024);try { tasks.reserve(4 * 1024 *"
                                        + " 1024); return 'no error' } catch (e) { return [e.code,"
                                        + " e.message] }",
                                a));
        assertEquals("HOST_MEMORY_LIMIT", ((List<?>) v).get(0));
        assertEquals(
                "tasks.reserve: 4194304 more bytes would take tenant a's host memory past its"
                        + " 8388608 bytes (6291456 in use)",
                ((List<?>) v).get(1));
        assertEquals(0, a.inUse(), "the run gave back what it reserved when it ended");
        assertEquals(null, ok(run("tasks.reserve(6 * 1024 * 1024); return null", b)));
        assertEquals(0, b.inUse());
    }

    /**
     * In-process work of one tenant that together passes the tenant's budget: the call holding the
     * most is stopped by name, and the same work under another tenant's larger budget completes.
     */
    @Test
    void inProcessWorkPastATenantsBudgetStopsTheLargestCall() {
        HostMemory small = HostMemory.of("tenant a's host memory", 16L << 20);
        Object v =
                ok(
                        run(
                                "try { await tasks.local('alloc', 64); return 'no error' } catch"
                                    + " (e) { return [e.code, e.message.includes(\"tenant a's host"
                                    + " memory\")] }",
                                small));
        assertEquals(List.of("HOST_MEMORY_LIMIT", true), v);
        HostMemory large = HostMemory.of("tenant b's host memory", 512L << 20);
        assertEquals(16L, ok(run("return await tasks.local('alloc', 16)", large)));
    }

    /**
     * A worker ends its process for the call past its bound, never for the next one: a monitor held
     * up between deciding and ending (here for 0.8 s) holds up the call's end with it, so the late
     * call fails by its bound and the next run's calls, sent to a fresh worker, succeed (had the
     * late call answered first, the process would end under one of them).
     */
    @Test
    void aWorkerEndedForALateCallNeverFailsTheNextCall() {
        HostIsolation paused =
                HostIsolation.builder()
                        .withWorkers(1)
                        .withJvmOptions(List.of("-Dsandjar.worker.faultHaltPauseMillis=800"))
                        .build();
        try (Sandbox own = Sandbox.builder().poolSize(1).hostIsolation(paused).build()) {
            Limits short_ = Limits.builder().timeout(Duration.ofMillis(300)).build();
            RunResult late =
                    own.run(
                            RunRequest.builder("return await tasks.run('late', 400)")
                                    .bridge(TASKS_BRIDGE)
                                    .limits(short_)
                                    .build());
            assertFalse(late.isOk());
            assertEquals(RunError.Kind.TIMEOUT, late.error().kind(), late.toString());
            String calls =
                    "let n = 0; for (let i = 0; i < 2500; i++) n += await tasks.run('echo', 1);"
                            + " return n;";
            RunResult next = own.run(RunRequest.builder(calls).bridge(TASKS_BRIDGE).build());
            assertEquals(2500L, ok(next));
        }
    }

    /** A worker idle for its idle timeout exits; the next call starts another. */
    @Test
    void anIdleWorkerExitsAndTheNextCallStartsAnother() throws Exception {
        try (Sandbox own =
                Sandbox.builder()
                        .poolSize(1)
                        .hostIsolation(
                                HostIsolation.builder()
                                        .withWorkers(1)
                                        .withIdleTimeout(Duration.ofSeconds(1))
                                        .build())
                        .build()) {
            String code = "return await tasks.run('echo', 7)";
            RunRequest request = RunRequest.builder(code).bridge(TASKS_BRIDGE).build();
            assertEquals(7L, own.run(request).valueOrThrow());
            assertEquals(1, own.hostWorkerCount());
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (own.hostWorkerCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(0, own.hostWorkerCount(), "the idle worker exited");
            assertEquals(7L, own.run(request).valueOrThrow());
            assertEquals(1, own.hostWorkerCount());
        }
    }

    /** The calling thread's nice value (field 19 of /proc/thread-self/stat), or -100 off Linux. */
    static long niceOfThisThread() {
        try {
            String stat =
                    java.nio.file.Files.readString(java.nio.file.Path.of("/proc/thread-self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[16]); // field 19 counted from pid, after the name
        } catch (java.io.IOException | RuntimeException e) {
            return -100;
        }
    }

    /** In-process host work runs at nice 10, yielding the CPU to the engines' guest code. */
    @Test
    void inProcessHostWorkRunsAtALowerPriority() {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/renice"))
                        && niceOfThisThread() != -100,
                "needs Linux's /proc/thread-self and renice");
        assertEquals(10L, ok(run("return await tasks.local('nice', 0)", Limits.none())));
    }
}
