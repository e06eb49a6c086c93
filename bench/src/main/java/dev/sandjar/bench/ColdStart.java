package dev.sandjar.bench;

import java.time.Instant;

/**
 * One cold start, run in a new JVM by the harness: create the system, run {@code return 1 + 1},
 * print the result and the wall-clock instant it existed (microseconds since the epoch), exit.
 */
public final class ColdStart {
    private ColdStart() {}

    public static void main(String[] args) {
        JsSystem js = JsSystem.create(args[0], 1);
        Object result = js.eval("return 1 + 1;");
        Instant at = Instant.now();
        System.out.println(result + " " + (at.getEpochSecond() * 1_000_000L + at.getNano() / 1000));
        System.out.flush();
        // No close: what a caller waits for ends at the first result.
        Runtime.getRuntime().halt(0);
    }
}
