package dev.sandjar.bench;

import dev.sandjar.host.RunStats;
import java.util.List;
import java.util.Locale;

/**
 * Guest compute round after round in one JVM, for comparing JVM flags: each round runs the four
 * {@link GuestBench} workloads once on Sandjar (the same bodies and {@link SandjarSystem}, a fresh
 * run each) and prints, per workload, the wall time and the engine thread's CPU time for the run
 * ({@link RunStats#setupCpuNanos()} + {@link RunStats#guestCpuNanos()}), in ms. The CPU time is the
 * figure to compare on a shared machine: the wall time also counts waiting for a core. Run it with
 * {@code -XX:+PrintCompilation} to see when the interpreter loop ({@code func_251}) reaches C2
 * (docs/jvm-flags.md).
 *
 * <p>usage: {@code GuestRounds SECONDS [WORKLOAD ...]} (default: every compute workload)
 */
public final class GuestRounds {
    private GuestRounds() {}

    public static void main(String[] args) {
        long seconds = Long.parseLong(args[0]);
        List<String> workloads =
                args.length > 1 ? List.of(args).subList(1, args.length) : Workloads.COMPUTE;
        long t0 = System.nanoTime();
        long end = t0 + seconds * 1_000_000_000L;
        try (SandjarSystem js = new SandjarSystem(1)) {
            int round = 0;
            while (System.nanoTime() < end) {
                StringBuilder line = new StringBuilder();
                line.append(
                        String.format(
                                Locale.ROOT,
                                "round %d t=%.0f",
                                ++round,
                                (System.nanoTime() - t0) / 1e9));
                for (String w : workloads) {
                    String body = Workloads.body(w);
                    long start = System.nanoTime();
                    js.eval(body);
                    double wall = (System.nanoTime() - start) / 1e6;
                    RunStats s = js.lastStats();
                    line.append(
                            String.format(
                                    Locale.ROOT,
                                    " %s=%.1f %s_cpu=%.1f",
                                    w,
                                    wall,
                                    w,
                                    (s.setupCpuNanos() + s.guestCpuNanos()) / 1e6));
                }
                System.out.println(line);
            }
        }
    }
}
