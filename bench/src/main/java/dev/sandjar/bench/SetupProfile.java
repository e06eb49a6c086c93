package dev.sandjar.bench;

import dev.sandjar.host.RunStats;

/**
 * Trivial runs in a loop, for profiling Sandjar's setup path under JFR ({@code bench/profile.sh}
 * starts it with a recording). Warms up first so the profile shows steady state, not JIT warm-up.
 *
 * <p>usage: {@code SetupProfile WARMUP_RUNS MEASURED_RUNS}
 */
public final class SetupProfile {
    private SetupProfile() {}

    public static void main(String[] args) {
        int warmup = Integer.parseInt(args[0]);
        int runs = Integer.parseInt(args[1]);
        try (SandjarSystem s = new SandjarSystem(1)) {
            String body = Workloads.body("trivial");
            for (int i = 0; i < warmup; i++) {
                s.eval(body);
            }
            System.out.println("warm; measuring " + runs + " runs");
            long setup = 0;
            long t0 = System.nanoTime();
            for (int i = 0; i < runs; i++) {
                s.eval(body);
                RunStats st = s.lastStats();
                setup += st.setupNanos();
            }
            long wall = System.nanoTime() - t0;
            System.out.printf(
                    "mean per run %.3f ms, mean setup %.3f ms%n",
                    wall / 1e6 / runs, setup / 1e6 / runs);
        }
    }
}
