package dev.sandjar.host.testing;

import dev.sandjar.host.Bridge;
import dev.sandjar.host.Operation;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A bridge with one operation, a global function of the given name, that tells the test the guest
 * got there: wait on it instead of sleeping until a run "has probably started".
 *
 * <pre>{@code
 * GuestSignal started = GuestSignal.named("started");
 * SandboxRun run = sandbox.submit(RunRequest.builder("const p = sleep(20000); started(); await p;")
 *         .bridge(Sleep.bridge()).bridge(started.bridge()).build());
 * started.await(Duration.ofSeconds(30)); // the sleep is in flight now
 * }</pre>
 */
public final class GuestSignal {
    private final CountDownLatch reached = new CountDownLatch(1);
    private final String function;
    private final Bridge bridge;

    private GuestSignal(String function) {
        this.function = function;
        this.bridge =
                Bridge.builder("signal." + function)
                        .guest("(host) => ({ " + function + ": () => host.call(\"reached\") })")
                        .operation(
                                Operation.builder("reached")
                                        .handler(
                                                c -> {
                                                    reached.countDown();
                                                    return null;
                                                })
                                        .build())
                        .build();
    }

    /**
     * A signal the guest sends by calling {@code function()}: lower camel case, as bridges name.
     */
    public static GuestSignal named(String function) {
        if (!function.matches("[a-z][a-zA-Z0-9]*")) {
            throw new IllegalArgumentException(
                    "function (" + function + ") must match [a-z][a-zA-Z0-9]*");
        }
        return new GuestSignal(function);
    }

    public Bridge bridge() {
        return bridge;
    }

    /**
     * Waits until the guest has called the function once.
     *
     * @throws AssertionError if it did not within {@code timeout}
     */
    public void await(Duration timeout) throws InterruptedException {
        if (!reached.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the guest did not call " + function + "() within " + timeout);
        }
    }
}
