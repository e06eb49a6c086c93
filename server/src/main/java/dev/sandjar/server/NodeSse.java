package dev.sandjar.server;

import dev.sandjar.bridges.node.NodeEvent;
import dev.sandjar.bridges.node.NodeListener;
import dev.sandjar.bridges.node.NodeResult;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One Code-node execution streamed as Server-Sent Events: {@code run} (its id), then {@code emit},
 * {@code log}, {@code progress} and {@code outputs} in the order the body made them, then exactly
 * one {@code result}. Unlike a run's stream, events are written by the node's delivery thread as
 * they are delivered, so a client that reads slowly holds the body at its next {@code await
 * emit(...)} (the emit queue's backpressure reaches through TCP). The request thread sends a
 * comment every second without events; a failed write cancels the execution.
 */
final class NodeSse implements NodeListener {
    private static final long HEARTBEAT_MILLIS = 1_000;

    private final CountDownLatch opened = new CountDownLatch(1);
    private final Object lock = new Object();
    private OutputStream out; // guarded by lock; null once the client is gone
    private RunService.ActiveNode node; // set before opened counts down
    private volatile long lastWrite = System.nanoTime();

    @Override
    public void onEvent(NodeEvent event) {
        try {
            opened.await(); // the run event goes first
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        send(ResultJson.nodeEventName(event), ResultJson.nodeEvent(event));
    }

    /** Streams the execution until its result; a failed write cancels it. */
    void stream(Context ctx, RunService.ActiveNode started) throws InterruptedException {
        try {
            SseEvents.open(ctx);
            synchronized (lock) {
                out = ctx.res().getOutputStream();
                node = started;
            }
            send("run", "{\"id\":\"" + started.id() + "\"}");
        } catch (IOException gone) {
            started.cancel();
            return;
        } finally {
            opened.countDown();
        }
        NodeResult r;
        while (true) {
            try {
                r = started.result().get(HEARTBEAT_MILLIS, TimeUnit.MILLISECONDS);
                break;
            } catch (TimeoutException quiet) {
                if (System.nanoTime() - lastWrite
                        >= TimeUnit.MILLISECONDS.toNanos(HEARTBEAT_MILLIS)) {
                    heartbeat();
                }
            } catch (ExecutionException impossible) {
                throw new IllegalStateException("a node result never fails", impossible);
            } catch (InterruptedException stopping) {
                started.cancel();
                throw stopping;
            }
        }
        send("result", ResultJson.node(started.id(), r));
        synchronized (lock) {
            if (out != null) {
                try {
                    out.close(); // complete before the handler returns: stop() counts on it
                } catch (IOException gone) {
                    // the result was written or the client is gone: nothing more to do
                }
            }
        }
    }

    private void heartbeat() {
        synchronized (lock) {
            if (out == null) {
                return;
            }
            try {
                out.write(":\n\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                lastWrite = System.nanoTime();
            } catch (IOException gone) {
                lost();
            }
        }
    }

    private void send(String name, String data) {
        synchronized (lock) {
            if (out == null) {
                return;
            }
            try {
                SseEvents.write(out, name, data);
                lastWrite = System.nanoTime();
            } catch (IOException gone) {
                lost();
            }
        }
    }

    /** Under lock: the client went away; its execution is cancelled. */
    private void lost() {
        out = null;
        if (node != null) {
            node.cancel();
        }
    }
}
