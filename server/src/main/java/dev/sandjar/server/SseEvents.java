package dev.sandjar.server;

import dev.sandjar.bridges.progress.ProgressReport;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunResult;
import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One run streamed as Server-Sent Events: {@code run} (its id) first, then {@code log} and {@code
 * progress} as they happen, then exactly one {@code result} (the body {@code POST /api/runs}
 * answers with). A comment line goes out every second without events, so a client that went away is
 * noticed by a failed write; its run is then cancelled.
 *
 * <p>The engine thread only queues events (never blocks on the client); the request thread writes
 * them. The queue is bounded by the run's own limits: log lines by {@code logLines}, progress
 * reports by the progress capability's cap.
 */
final class SseEvents implements RunService.Listener {
    static final RunService.Listener NONE =
            new RunService.Listener() {
                @Override
                public void log(LogEntry entry) {}

                @Override
                public void progress(ProgressReport report) {}
            };

    private static final long HEARTBEAT_MILLIS = 1_000;

    private record Event(String name, String data) {}

    /** Queued after the run's last event: its result is ready. */
    private static final Event END = new Event("", "");

    private final BlockingQueue<Event> queue = new LinkedBlockingQueue<>();

    @Override
    public void log(LogEntry entry) {
        queue.add(new Event("log", ResultJson.log(entry)));
    }

    @Override
    public void progress(ProgressReport report) {
        queue.add(new Event("progress", ResultJson.progress(report)));
    }

    /** Starts the event stream: status 200 and the headers, sent at once. */
    static void open(Context ctx) throws IOException {
        HttpServletResponse res = ctx.res();
        res.setStatus(200);
        res.setContentType("text/event-stream; charset=utf-8");
        res.setHeader("Cache-Control", "no-cache");
        res.setHeader("X-Accel-Buffering", "no");
        res.flushBuffer();
    }

    static void write(OutputStream out, String event, String data) throws IOException {
        StringBuilder b = new StringBuilder("event: ").append(event).append('\n');
        for (String line : data.split("\n", -1)) {
            b.append("data: ").append(line).append('\n');
        }
        b.append('\n');
        out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** A stream for a run that ended before it started: its id, then its result at once. */
    static void answerAtOnce(Context ctx, String id, String result) throws IOException {
        open(ctx);
        try (OutputStream out = ctx.res().getOutputStream()) {
            write(out, "run", "{\"id\":\"" + id + "\"}");
            write(out, "result", result);
        }
    }

    /** Streams the run until its result; a failed write cancels it. */
    void stream(Context ctx, RunService.Active run) throws IOException, InterruptedException {
        // Wakes the writer the moment the result is there, not at the next heartbeat.
        run.result().whenComplete((r, t) -> queue.add(END));
        OutputStream out;
        try {
            open(ctx);
            out = ctx.res().getOutputStream();
            write(out, "run", "{\"id\":\"" + run.id() + "\"}");
        } catch (IOException gone) {
            run.run().cancel();
            return;
        }
        try {
            while (true) {
                Event e = queue.poll(HEARTBEAT_MILLIS, TimeUnit.MILLISECONDS);
                if (e == END) {
                    break; // the run's events were all queued before its result completed
                }
                if (e != null) {
                    write(out, e.name, e.data);
                    continue;
                }
                out.write(":\n\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            RunResult r;
            try {
                r = run.result().get();
            } catch (ExecutionException failed) {
                ApiException api =
                        ErrorResponses.asApi(
                                SandjarServer.unwrap(failed),
                                ctx.res().getHeader(SandjarServer.REQUEST_ID));
                write(out, "error", ResultJson.apiError(api.code.name(), api.getMessage()));
                out.close();
                return;
            }
            write(out, "result", ResultJson.result(run.id(), r));
            out.close(); // the response is complete once the handler returns: stop() counts on it
        } catch (IOException gone) {
            run.run().cancel();
        } catch (InterruptedException stopping) {
            run.run().cancel();
            throw stopping;
        }
    }
}
