package io.cyclium.testing;

import io.cyclium.telemetry.Telemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Counts calls per metric name (tags ignored), keeps every recorded size and timer with its tags,
 * and reads gauges as a scrape would, so tests can assert what was measured.
 */
public final class RecordingTelemetry implements Telemetry {

    private final Map<String, Integer> counts = new ConcurrentHashMap<>();
    private final Map<String, List<Long>> recorded = new ConcurrentHashMap<>();
    private final Map<String, LongSupplier> gauges = new ConcurrentHashMap<>();

    @Override
    public void count(String name, String... tags) {
        counts.merge(name, 1, Integer::sum);
        if (tags.length > 0) {
            counts.merge(key(name, tags), 1, Integer::sum);
        }
    }

    @Override
    public void time(String name, Duration duration, String... tags) {
        counts.merge(name + "#timed", 1, Integer::sum);
        remember(key(name, tags), duration.toMillis());
    }

    @Override
    public void record(String name, long value, String... tags) {
        remember(key(name, tags), value);
    }

    @Override
    public void gauge(String name, LongSupplier value, String... tags) {
        gauges.put(key(name, tags), value);
    }

    public int count(String name) {
        return counts.getOrDefault(name, 0);
    }

    /** Counted under exactly this name and these tags. */
    public int countTagged(String name, String... tags) {
        return counts.getOrDefault(key(name, tags), 0);
    }

    /** Every value recorded (sizes) or timed (milliseconds) under exactly this name and these tags, in order. */
    public List<Long> recorded(String name, String... tags) {
        return List.copyOf(recorded.getOrDefault(key(name, tags), List.of()));
    }

    /** The gauge's reading now; fails when no gauge of this name and tags was registered. */
    public long gauge(String name, String... tags) {
        LongSupplier g = gauges.get(key(name, tags));
        if (g == null) {
            throw new AssertionError("no gauge " + key(name, tags) + " among " + gauges.keySet());
        }
        return g.getAsLong();
    }

    private void remember(String key, long value) {
        recorded.computeIfAbsent(key, k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(value);
    }

    private static String key(String name, String... tags) {
        return name + java.util.Arrays.toString(tags);
    }
}
