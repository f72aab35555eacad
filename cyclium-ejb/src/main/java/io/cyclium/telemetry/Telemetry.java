package io.cyclium.telemetry;

import java.time.Duration;

/**
 * One facade over metrics: counters tagged by outcome and timers. In the container it is backed by
 * MicroProfile Metrics where the server has it and is a no-op where it does not (WildFly), so a
 * missing metrics subsystem never fails a deployment. Tags come in name/value pairs.
 */
public interface Telemetry {

    void count(String name, String... tags);

    void time(String name, Duration duration, String... tags);

    /** Adds {@code amount} (≥ 0) to a counter at once: set-based work (retention) changes many rows per statement. */
    default void countMany(String name, long amount, String... tags) {
        for (long i = 0; i < amount; i++) {
            count(name, tags);
        }
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
