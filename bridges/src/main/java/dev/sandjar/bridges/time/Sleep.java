package dev.sandjar.bridges.time;

import dev.sandjar.bridges.internal.Args;
import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.transport.Undefined;
import java.time.Duration;

/**
 * {@code sleep(ms)}: a Promise that resolves to {@code undefined} after {@code ms} milliseconds,
 * the guest's only timer. It waits on the run's host timer ({@code RunSession.delay}), so sleeping
 * counts against the run's wall-clock bound but not its CPU budget, and it rejects with a {@code
 * CancelledError} as soon as the run is cancelled or ends. {@code ms} must be a number from 0 to
 * the run's {@code wallTimeout}; fractions of a millisecond are kept. See {@code docs/bridges.md}.
 */
public final class Sleep {
    private static final Bridge BRIDGE =
            Bridge.builder("sleep")
                    .guest(GuestScripts.load(Sleep.class, "sleep.js"))
                    .operation(
                            Operation.builder("sleep")
                                    .param(Param.any("ms"))
                                    .handler(Sleep::sleep)
                                    .build())
                    .build();

    private Sleep() {}

    /** The sleep bridge; one immutable instance serves every run. */
    public static Bridge bridge() {
        return BRIDGE;
    }

    private static Object sleep(OperationCall call) {
        double ms = Args.number(call.arg(0), "sleep", "ms");
        Duration wall = call.session().limits().wallTimeout();
        long maxMs = wall.toMillis();
        if (Double.isNaN(ms) || ms < 0 || ms > maxMs) {
            throw new BridgeException(
                    "RangeError",
                    "INVALID_DELAY",
                    "sleep: ms must be from 0 to "
                            + maxMs
                            + " (the run's wallTimeout), got "
                            + Args.show(ms));
        }
        return call.session()
                .delay(Duration.ofNanos(Math.round(ms * 1_000_000d)))
                .thenApply(done -> Undefined.INSTANCE);
    }
}
