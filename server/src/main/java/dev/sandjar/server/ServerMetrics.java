package dev.sandjar.server;

import dev.sandjar.host.RunResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * The server's meters, in Prometheus text at {@code /metrics}:
 *
 * <ul>
 *   <li>{@code sandjar_runs_total{outcome}}: finished runs by outcome ({@code ok} or the error kind
 *       in lower case: {@code timeout}, {@code exception}, ...), and {@code
 *       sandjar_runs_rejected_total} for runs refused with 429 because every slot was taken;
 *   <li>{@code sandjar_run_duration_seconds} and {@code sandjar_run_setup_seconds}: histograms of a
 *       run's wall time and setup time;
 *   <li>{@code sandjar_queue_depth}, {@code sandjar_pool_busy}, {@code sandjar_pool_idle}: admitted
 *       runs beyond the pool's size, and the pool's engines with and without a run (from the
 *       admitted count: a run holds a slot from admission to its result);
 *   <li>{@code sandjar_bridge_calls_total{capability}}: host calls guest code made, by capability;
 *   <li>{@code sandjar_delivery_total{result}}: module deliveries ({@code hit}, {@code
 *       not_modified}, {@code not_found}).
 * </ul>
 */
final class ServerMetrics {
    private final PrometheusMeterRegistry registry =
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Timer duration;
    private final Timer setup;
    private final Counter rejected;

    ServerMetrics() {
        duration =
                Timer.builder("sandjar.run.duration")
                        .description("A run's wall time, from admission to its result")
                        .publishPercentileHistogram()
                        .minimumExpectedValue(Duration.ofMillis(1))
                        .maximumExpectedValue(Duration.ofMinutes(5))
                        .register(registry);
        setup =
                Timer.builder("sandjar.run.setup")
                        .description("A run's setup: restoring its engine and defining its globals")
                        .publishPercentileHistogram()
                        .minimumExpectedValue(Duration.ofNanos(1_000))
                        .maximumExpectedValue(Duration.ofSeconds(10))
                        .register(registry);
        rejected =
                Counter.builder("sandjar.runs.rejected")
                        .description("Runs refused with 429: every slot (pool + queue) was taken")
                        .register(registry);
    }

    /** The pool's gauges, read from the run service when scraped. */
    void pool(int poolSize, IntSupplier admitted) {
        Gauge.builder("sandjar.queue.depth", () -> Math.max(0, admitted.getAsInt() - poolSize))
                .description("Admitted runs waiting for an engine")
                .register(registry);
        Gauge.builder("sandjar.pool.busy", () -> Math.min(poolSize, admitted.getAsInt()))
                .description("Engines running a run")
                .register(registry);
        Gauge.builder("sandjar.pool.idle", () -> Math.max(0, poolSize - admitted.getAsInt()))
                .description("Engines without a run")
                .register(registry);
    }

    void finished(RunResult r) {
        String outcome = r.isOk() ? "ok" : r.error().kind().name().toLowerCase(Locale.ROOT);
        registry.counter("sandjar.runs", "outcome", outcome).increment();
        duration.record(Duration.ofNanos(r.stats().wallNanos()));
        setup.record(Duration.ofNanos(r.stats().setupNanos()));
        r.stats()
                .bridgeCallsByBridge()
                .forEach(
                        (bridge, n) ->
                                registry.counter("sandjar.bridge.calls", "capability", bridge)
                                        .increment(n));
    }

    void rejected() {
        rejected.increment();
    }

    void delivery(String result) {
        registry.counter("sandjar.delivery", "result", result).increment();
    }

    /** Prometheus text format. */
    String scrape() {
        return registry.scrape();
    }
}
