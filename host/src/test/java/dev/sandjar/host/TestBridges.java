package dev.sandjar.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** Small real bridges for the sandbox-core tests; each records what the host saw. */
final class TestBridges {
    private TestBridges() {}

    /** One host call as the host saw it: when its work started and ended. */
    record Span(long startNanos, long endNanos) {}

    /** {@code sleep(ms)}: an async operation on the session's timer, recording its span. */
    static final class Sleep {
        final List<Span> spans = Collections.synchronizedList(new ArrayList<>());
        final Bridge bridge =
                Bridge.builder("sleep")
                        .guest("(host) => ({ sleep: (ms) => host.call(\"sleep\", ms) })")
                        .operation(
                                Operation.builder("sleep")
                                        .param(Param.integer("ms").range(0, 600_000))
                                        .handler(
                                                call -> {
                                                    long start = System.nanoTime();
                                                    return call.session()
                                                            .delay(
                                                                    Duration.ofMillis(
                                                                            call.integer(0, 0)))
                                                            .thenApply(
                                                                    v -> {
                                                                        spans.add(
                                                                                new Span(
                                                                                        start,
                                                                                        System
                                                                                                .nanoTime()));
                                                                        return null;
                                                                    });
                                                })
                                        .build())
                        .build();
    }

    /** {@code echo(v)} returns its argument; {@code echoLater(v)} returns it asynchronously. */
    static Bridge echo() {
        return Bridge.builder("echo")
                .guest(
                        "(host) => ({ echo: (v) => host.call(\"echo\", v), echoLater: (v) =>"
                                + " host.call(\"later\", v) })")
                .operation(
                        Operation.builder("echo")
                                .param(Param.any("value").optional())
                                .handler(c -> c.arg(0))
                                .build())
                .operation(
                        Operation.builder("later")
                                .param(Param.any("value").optional())
                                .handler(c -> CompletableFuture.completedFuture(c.arg(0)))
                                .build())
                .build();
    }

    /** Typed parameters, counting how often the handler actually ran. */
    static final class Typed {
        final AtomicInteger calls = new AtomicInteger();
        final Bridge bridge =
                Bridge.builder("typed")
                        .guest(
                                "(host) => ({ typed: (...a) => host.call(\"op\", ...a), typedRaw:"
                                        + " (op, ...a) => host.call(op, ...a) })")
                        .operation(
                                Operation.builder("op")
                                        .param(Param.string("name").maxLength(8))
                                        .param(Param.integer("count").range(1, 10))
                                        .param(Param.bytes("data").optional())
                                        .handler(
                                                c -> {
                                                    calls.incrementAndGet();
                                                    byte[] d = c.bytes(2);
                                                    return c.string(0)
                                                            + ":"
                                                            + c.integer(1, 0)
                                                            + ":"
                                                            + (d == null ? -1 : d.length);
                                                })
                                        .build())
                        .build();
    }

    /** Failures: a bridge error, a host bug, and an async rejection. */
    static Bridge failing() {
        return Bridge.builder("fail")
                .guest(
                        "(host) => ({ failBridge: () => host.call(\"bridge\"), failHost: () =>"
                                + " host.call(\"host\"), failLater: () => host.call(\"later\") })")
                .operation(
                        Operation.builder("bridge")
                                .handler(
                                        c -> {
                                            throw new BridgeException(
                                                    "QuotaError", "QUOTA", "the quota is 3 calls");
                                        })
                                .build())
                .operation(
                        Operation.builder("host")
                                .handler(
                                        c -> {
                                            throw new IllegalStateException(
                                                    "secret host path /etc/shadow");
                                        })
                                .build())
                .operation(
                        Operation.builder("later")
                                .handler(
                                        c ->
                                                CompletableFuture.failedFuture(
                                                        new BridgeException(
                                                                "FetchError",
                                                                "BLOCKED_ADDRESS",
                                                                "10.0.0.1 is private")))
                                .build())
                .build();
    }

    /** {@code log(level, message)} into the run's log. */
    static Bridge log() {
        return Bridge.builder("log")
                .guest("(host) => ({ log: (level, m) => host.call(\"log\", level, String(m)) })")
                .operation(
                        Operation.builder("log")
                                .param(Param.string("level"))
                                .param(Param.string("message"))
                                .handler(
                                        c -> {
                                            c.session()
                                                    .log(
                                                            LogEntry.Level.valueOf(c.string(0)),
                                                            c.string(1));
                                            return null;
                                        })
                                .build())
                .build();
    }

    /** {@code hang()}: host work that never finishes by itself; records its cancellation. */
    static final class Hang {
        final List<CompletableFuture<Object>> started =
                Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger handled = new AtomicInteger();
        final AtomicInteger ended = new AtomicInteger();

        /** Counted down once the first call was handled and its future is in {@link #started}. */
        final CountDownLatch called = new CountDownLatch(1);

        final Bridge bridge =
                Bridge.builder("hang")
                        .guest("(host) => ({ hang: () => host.call(\"hang\") })")
                        .operation(
                                Operation.builder("hang")
                                        .handler(
                                                c -> {
                                                    handled.incrementAndGet();
                                                    c.session().onEnd(ended::incrementAndGet);
                                                    CompletableFuture<Object> f =
                                                            new CompletableFuture<>();
                                                    started.add(f);
                                                    called.countDown();
                                                    return f;
                                                })
                                        .build())
                        .build();
    }
}
