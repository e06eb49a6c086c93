package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The run's CPU budget is the guest's: what the sandbox does before {@code start} is free. */
class RunBudgetTest {
    private static void burnCpu(RunBudget budget, long nanos) {
        long t0 = budget.cpuNow();
        long x = 0;
        while (budget.cpuNow() - t0 < nanos) {
            x += System.nanoTime() & 1;
        }
        assertTrue(x >= 0);
    }

    @Test
    void theCpuBudgetCountsOnlyFromStart() {
        Limits limits =
                Limits.builder()
                        .timeout(Duration.ofMillis(1))
                        .build()
                        .resolve(Limits.DEFAULTS, Limits.CEILINGS);
        RunBudget budget = new RunBudget(limits, null, System.nanoTime());
        burnCpu(budget, 5_000_000); // building a template: five budgets' worth
        assertFalse(budget.expired(), "CPU spent before start was charged to the guest");
        budget.start();
        assertFalse(budget.expired());
        burnCpu(budget, 2_000_000);
        assertTrue(budget.expired());
        assertEquals(RunBudget.Reason.CPU, budget.reason());
    }

    @Test
    void beforeStartCancellationStillStopsTheRun() {
        Limits limits = Limits.none().resolve(Limits.DEFAULTS, Limits.CEILINGS);
        RunBudget budget = new RunBudget(limits, null, System.nanoTime());
        budget.cancel();
        assertTrue(budget.expired());
        assertEquals(RunBudget.Reason.CANCELLED, budget.reason());
    }
}
