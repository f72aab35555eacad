package io.cyclium.telemetry;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * One facade over metrics: counters tagged by outcome and timers. In the container it is backed by
 * MicroProfile Metrics where the server has it (Payara), by the server's Micrometer registry where
 * that is visible instead (WildFly with its micrometer subsystem), and is a no-op where neither is,
 * so a missing metrics subsystem never fails a deployment. Both write the same series names and
 * tags. Tags come in name/value pairs.
 */
public interface Telemetry {

    /** Priority of the enabled alternative {@link MetricsTelemetry}. */
    int METRICS_PRIORITY = 100;
    /** Priority of the enabled alternative {@link MicrometerTelemetry}: below MicroProfile Metrics where both load. */
    int MICROMETER_PRIORITY = 90;

    void count(String name, String... tags);

    /** Adds {@code n} at once (a batch that cleared or dispatched several); nothing when n is 0 or less. */
    default void count(String name, long n, String... tags) {
        for (long i = 0; i < n; i++) {
            count(name, tags);
        }
    }

    void time(String name, Duration duration, String... tags);

    /**
     * One observation of a size (a histogram: count, sum, quantiles), e.g. how many orphans one
     * recovery sweep found. Nothing where the server has no metrics.
     */
    default void record(String name, long value, String... tags) {
    }

    /**
     * A gauge read from {@code value} whenever metrics are scraped. Registering the same name and
     * tags again replaces the reading (a runtime rebuilt after a redeploy), it never adds a second
     * series. {@code value} must be cheap and must not touch the database.
     */
    default void gauge(String name, LongSupplier value, String... tags) {
    }

    Telemetry NOOP = new Telemetry() {
        @Override
        public void count(String name, String... tags) {
        }

        @Override
        public void time(String name, Duration duration, String... tags) {
        }
    };
}
