package io.cyclium.telemetry;

import java.time.Duration;

/**
 * One facade over metrics: counters tagged by outcome and timers. In the container it is backed by
 * MicroProfile Metrics where the server has it and is a no-op where it does not (WildFly), so a
 * missing metrics subsystem never fails a deployment. Tags come in name/value pairs.
 */
public interface Telemetry {

    /** Priority of the enabled alternative {@link MetricsTelemetry}. */
    int METRICS_PRIORITY = 100;

    void count(String name, String... tags);

    /** Adds {@code n} at once (a batch that cleared or dispatched several); nothing when n is 0 or less. */
    default void count(String name, long n, String... tags) {
        for (long i = 0; i < n; i++) {
            count(name, tags);
        }
    }

    void time(String name, Duration duration, String... tags);

    Telemetry NOOP = new Telemetry() {
        @Override
        public void count(String name, String... tags) {
        }

        @Override
        public void time(String name, Duration duration, String... tags) {
        }
    };
}
