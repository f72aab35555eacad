package io.cyclium.testing;

import io.cyclium.telemetry.Telemetry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Counts calls per metric name (tags ignored), so tests can assert what was counted. */
public final class RecordingTelemetry implements Telemetry {

    private final Map<String, Integer> counts = new ConcurrentHashMap<>();

    @Override
    public void count(String name, String... tags) {
        counts.merge(name, 1, Integer::sum);
    }

    @Override
    public void time(String name, Duration duration, String... tags) {
        counts.merge(name + "#timed", 1, Integer::sum);
    }

    public int count(String name) {
        return counts.getOrDefault(name, 0);
    }
}
