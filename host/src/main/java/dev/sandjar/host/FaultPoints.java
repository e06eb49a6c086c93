package dev.sandjar.host;

import java.util.function.Consumer;

/**
 * Named points in a run where tests inject faults (an interrupt as the watchdog would send it, an
 * {@link OutOfMemoryError} as a full heap would throw it) to prove the pool heals from each
 * (docs/sandbox.md, "Test support"). Unset outside those tests: one volatile read per point.
 */
final class FaultPoints {
    /** After the engine's memory was restored to its template, before the run's limits are set. */
    static final String RESTORE = "restore";

    /** On the engine thread, as a finished host operation is applied to its guest promise. */
    static final String COMPLETION = "completion";

    /** After the entry settled, before its value is read out of the guest. */
    static final String RESULT = "result";

    private static volatile Consumer<String> hook;

    private FaultPoints() {}

    static void at(String point) {
        Consumer<String> h = hook;
        if (h != null) {
            h.accept(point);
        }
    }

    /** Sets the hook for the tests of this package; null removes it. */
    static void inject(Consumer<String> h) {
        hook = h;
    }
}
