package dev.sandjar.bridges.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.console.Console;
import dev.sandjar.bridges.time.Sleep;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.transport.Undefined;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** progress(): checked, rate-limited, capped, and delivered in order off the engine thread. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProgressTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    /** Collects reports and the threads they arrived on. */
    static final class Recorder implements ProgressListener {
        final List<ProgressReport> reports = Collections.synchronizedList(new ArrayList<>());
        final Set<String> threads = ConcurrentHashMap.newKeySet();

        @Override
        public void onProgress(ProgressReport report) {
            threads.add(Thread.currentThread().getName());
            reports.add(report);
        }

        /** The reports so far: all of a run's once its result is back. */
        List<ProgressReport> delivered() {
            return List.copyOf(reports);
        }
    }

    private static RunResult run(String code, ProgressListener listener) {
        return sandbox.run(
                RunRequest.builder(code)
                        .bridge(Progress.bridge(listener))
                        .bridge(Sleep.bridge())
                        .build());
    }

    @Test
    void reportsArriveInOrderWithTheirRunAndOffTheEngineThread() throws Exception {
        Recorder recorder = new Recorder();
        Set<String> engineThreads = ConcurrentHashMap.newKeySet();
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const v = progress(0, 'start');\n"
                                                + "console.log('on the engine');\n"
                                                + "for (const p of [25, 50.5, 75]) { await"
                                                + " sleep(110); progress(p); }\n"
                                                + "await sleep(110); progress(100, 'done');\n"
                                                + "return v;")
                                .bridge(Progress.bridge(recorder))
                                .bridge(Sleep.bridge())
                                .bridge(Console.bridge())
                                .onLog(e -> engineThreads.add(Thread.currentThread().getName()))
                                .build());
        assertEquals(Undefined.INSTANCE, r.valueOrThrow(), "progress returns undefined");
        List<ProgressReport> reports = recorder.delivered();
        assertEquals(
                List.of(0.0, 25.0, 50.5, 75.0, 100.0),
                reports.stream().map(ProgressReport::percent).toList());
        assertEquals(
                List.of(1, 2, 3, 4, 5), reports.stream().map(ProgressReport::sequence).toList());
        assertEquals("start", reports.get(0).message());
        assertEquals(null, reports.get(1).message());
        assertEquals("done", reports.get(4).message());
        assertTrue(reports.stream().allMatch(p -> p.runId().equals(r.runId())));
        assertTrue(reports.stream().allMatch(p -> p.dropped() == 0));
        assertEquals(1, engineThreads.size());
        assertFalse(
                recorder.threads.stream().anyMatch(engineThreads::contains),
                "the listener ran on the engine thread " + engineThreads);
    }

    @Test
    void everyAcceptedReportIsDeliveredBeforeTheResult() throws Exception {
        List<Double> seen = Collections.synchronizedList(new ArrayList<>());
        ProgressListener slow =
                report -> {
                    try {
                        Thread.sleep(150);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    seen.add(report.percent());
                };
        run("progress(10); await sleep(110); progress(40); progress(100);", slow).valueOrThrow();
        assertEquals(List.of(10.0, 40.0, 100.0), List.copyOf(seen));
    }

    @Test
    void callsCloserThan100MsAreDroppedAndCountedButCompletionIsNot() throws Exception {
        Recorder recorder = new Recorder();
        run(
                        "for (let i = 1; i <= 50; i++) progress(i);\n"
                                + "progress(100, 'done');\n"
                                + "await sleep(120); progress(60, 'later');",
                        recorder)
                .valueOrThrow();
        // How many of the 50 quick calls get through depends on how fast the machine makes
        // them; what holds everywhere: every call is delivered or counted, delivered reports
        // are 100 ms apart, and the report of 100 is never dropped.
        List<ProgressReport> reports = recorder.delivered();
        ProgressReport last = reports.get(reports.size() - 1);
        assertEquals("later", last.message());
        assertEquals(52, reports.size() + last.dropped(), reports.toString());
        assertTrue(last.dropped() > 0, reports.toString());
        assertEquals(1.0, reports.get(0).percent());
        assertEquals(
                1, reports.stream().filter(p -> "done".equals(p.message())).count(), "100 dropped");
        ProgressReport previous = null;
        for (ProgressReport p : reports) {
            if (previous != null && p.percent() != 100) {
                long gap = Duration.between(previous.timestamp(), p.timestamp()).toMillis();
                assertTrue(gap >= 99, "reports " + gap + " ms apart: " + reports);
            }
            previous = p;
        }
    }

    @Test
    void aRunDeliversAtMost1000Reports() throws Exception {
        Recorder recorder = new Recorder();
        RunResult r =
                run("for (let i = 0; i < 1200; i++) progress(100);\nreturn 'sent';", recorder);
        assertEquals("sent", r.valueOrThrow());
        List<ProgressReport> reports = recorder.delivered();
        assertEquals(1000, reports.size());
        assertEquals(1000, reports.get(999).sequence());
        List<LogEntry> notices =
                r.logs().stream().filter(e -> e.message().startsWith("progress:")).toList();
        assertEquals(1, notices.size(), "one notice, not one per dropped call");
        assertEquals(LogEntry.Level.WARN, notices.get(0).level());
        assertTrue(notices.get(0).message().contains("1000 reports"), notices.get(0).message());
    }

    @Test
    void badArgumentsThrowEvenWhenTheCallWouldBeDropped() throws Exception {
        Recorder recorder = new Recorder();
        Object out =
                run(
                                "progress(10);\n"
                                    + "const out = [];\n"
                                    + "for (const args of [[-1], [100.5], [NaN], [Infinity],"
                                    + " ['50'], [], [50, 7], [50, 'x'.repeat(1001)]]) {\n"
                                    + "  try { progress(...args); out.push('accepted'); }\n"
                                    + "  catch (e) { out.push(`${e.name} ${e.code}: ${e.message}`);"
                                    + " }\n"
                                    + "}\n"
                                    + "return out;",
                                recorder)
                        .valueOrThrow();
        String range = "RangeError INVALID_PERCENT: progress: percent must be a number from 0 to";
        assertEquals(
                List.of(
                        range + " 100, got -1",
                        range + " 100, got 100.5",
                        range + " 100, got NaN",
                        range + " 100, got Infinity",
                        "TypeError INVALID_ARGUMENT: progress: percent must be a number, got a"
                                + " string",
                        "TypeError INVALID_ARGUMENT: progress.report: argument 1 (percent) is"
                                + " required, got undefined",
                        "TypeError INVALID_ARGUMENT: progress.report: argument 2 (message) must be"
                                + " a string, got a number",
                        "RangeError MESSAGE_TOO_LONG: progress: message is 1001 characters; at"
                                + " most 1000"),
                out);
        assertEquals(1, recorder.delivered().size());
    }

    @Test
    void aFailingListenerDoesNotReachTheRun() throws Exception {
        Recorder after = new Recorder();
        RunResult r =
                run(
                        "progress(1); await sleep(120); progress(2);\nreturn 'fine';",
                        report -> {
                            after.onProgress(report);
                            throw new IllegalStateException("listener bug");
                        });
        assertEquals("fine", r.valueOrThrow());
        assertEquals(2, after.delivered().size());
    }
}
