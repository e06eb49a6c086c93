package dev.sandjar.packs;

import dev.sandjar.host.InvalidRequestException;
import java.time.Duration;
import java.util.Objects;

/**
 * What one run may spend on pack WebAssembly. Each call gets a fresh instance on one of the
 * process's {@value #POOL_SIZE} WebAssembly worker threads and is interrupted at {@code
 * callTimeout}; a run makes at most {@code callsPerRun} calls, at most {@code concurrentCalls} at a
 * time (the rest wait in order), and its calls together run for at most {@code runTime} (checked
 * when a call starts, whose own timeout is then at most what remains). The defaults are also the
 * ceilings: a catalog may lower them, never raise them.
 */
public record WasmBudgets(
        Duration callTimeout, int callsPerRun, int concurrentCalls, Duration runTime) {

    /** Worker threads that run WebAssembly calls, shared by every run in the process. */
    public static final int POOL_SIZE = 4;

    public static final WasmBudgets DEFAULTS =
            new WasmBudgets(Duration.ofSeconds(5), 256, 2, Duration.ofSeconds(30));

    public WasmBudgets {
        Objects.requireNonNull(callTimeout, "callTimeout");
        Objects.requireNonNull(runTime, "runTime");
        within("callTimeout", callTimeout, Duration.ofSeconds(5));
        within("runTime", runTime, Duration.ofSeconds(30));
        if (callsPerRun < 1 || callsPerRun > 256) {
            throw new InvalidRequestException(
                    "callsPerRun (" + callsPerRun + ") must be between 1 and 256");
        }
        if (concurrentCalls < 1 || concurrentCalls > 2) {
            throw new InvalidRequestException(
                    "concurrentCalls (" + concurrentCalls + ") must be 1 or 2");
        }
    }

    private static void within(String name, Duration d, Duration max) {
        if (d.isNegative() || d.isZero() || d.compareTo(max) > 0) {
            throw new InvalidRequestException(
                    name
                            + " ("
                            + d.toMillis()
                            + " ms) must be > 0 and <= "
                            + max.toMillis()
                            + " ms");
        }
    }
}
