package io.cyclium.claims;

import io.cyclium.telemetry.Telemetry;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Telemetry for the claim code that also keeps this node's own tally of claim outcomes
 * ({@code acquired}, {@code steal}, {@code busy}, {@code renew_failed}, {@code completed},
 * {@code failed}, …) since it started, so the console and the API can show them on any server,
 * with or without MicroProfile Metrics. Everything is passed on to the real telemetry unchanged.
 * The tally is per node and in memory: it starts at zero with every boot.
 */
public final class ClaimOutcomeTally implements Telemetry {

    private final Telemetry delegate;
    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    private final Instant since;

    public ClaimOutcomeTally(Telemetry delegate, Instant since) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.since = Objects.requireNonNull(since, "since");
    }

    @Override
    public void count(String name, String... tags) {
        if (JpaWorkClaims.METRIC.equals(name)) {
            for (int i = 0; i + 1 < tags.length; i += 2) {
                if ("outcome".equals(tags[i]) && tags[i + 1] != null) {
                    outcomes.computeIfAbsent(tags[i + 1], k -> new LongAdder()).increment();
                }
            }
        }
        delegate.count(name, tags);
    }

    @Override
    public void time(String name, Duration duration, String... tags) {
        delegate.time(name, duration, tags);
    }

    /** Outcome → count, sorted by outcome; an outcome that never happened is absent. */
    public Map<String, Long> counts() {
        Map<String, Long> out = new TreeMap<>();
        outcomes.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    public long count(String outcome) {
        LongAdder a = outcomes.get(outcome);
        return a == null ? 0 : a.sum();
    }

    public Instant since() {
        return since;
    }
}
