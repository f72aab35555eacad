package io.cyclium.telemetry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Cyclium's meters on a Micrometer registry (WildFly's {@code micrometer} subsystem), with the
 * names and tags {@link MetricsTelemetry} gives MicroProfile Metrics on Payara, so one dashboard
 * reads both: Micrometer's Prometheus naming writes a counter {@code cyclium_x} as
 * {@code cyclium_x_total}, a timer as {@code cyclium_x_seconds_count}, {@code _sum}, {@code _max}
 * and {@code _bucket} (the same bounds as Payara's, {@link #BUCKETS}), a size as
 * {@code cyclium_x_count}, {@code _sum} and {@code _max}, a gauge as {@code cyclium_x}. Payara
 * also writes {@code _mean}; Micrometer does not. Prometheus reserves the suffixes {@code _total},
 * {@code _created}, {@code _bucket} and {@code _info}, and Micrometer cuts them off a name: no
 * Cyclium name ends in one ({@code ObservabilityConfigTest}).
 *
 * <p>Not a bean: only {@link MicrometerTelemetry} creates it, once it found the Micrometer API, so
 * no class the container scans names a Micrometer type (Payara's scanner logged SEVERE for a bean
 * that did). Metric failures are logged once and never reach the caller.
 */
final class MicrometerMeters implements Telemetry {

    private static final Logger LOG = Logger.getLogger(MicrometerMeters.class.getName());
    /** The timers' histogram bounds, as {@code mp.metrics.distribution.timer.buckets} gives Payara. */
    static final Duration[] BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofSeconds(1),
            Duration.ofSeconds(10), Duration.ofSeconds(60)};

    private final MeterRegistry registry;
    // Meters by name and tags, resolved once (the registry's own lookup builds an id per call).
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, DistributionSummary> summaries = new ConcurrentHashMap<>();
    /** The current reading of each gauge: the registry keeps the first object it was given, so it reads through this. */
    private final Map<String, AtomicReference<LongSupplier>> gauges = new ConcurrentHashMap<>();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** @param registry a {@code io.micrometer.core.instrument.MeterRegistry} */
    MicrometerMeters(Object registry) {
        this.registry = (MeterRegistry) registry;
    }

    String registryName() {
        return registry.getClass().getSimpleName();
    }

    @Override
    public void count(String name, String... tags) {
        onRegistry(name, r -> counter(r, name, tags).increment());
    }

    @Override
    public void count(String name, long n, String... tags) {
        if (n > 0) {
            onRegistry(name, r -> counter(r, name, tags).increment(n));
        }
    }

    @Override
    public void time(String name, Duration duration, String... tags) {
        onRegistry(name, r -> timers.computeIfAbsent(MetricsTelemetry.key(name, tags), k -> Timer.builder("cyclium_" + name)
                .tags(tags(tags)).serviceLevelObjectives(BUCKETS).register(r)).record(duration));
    }

    @Override
    public void record(String name, long value, String... tags) {
        onRegistry(name, r -> summaries.computeIfAbsent(MetricsTelemetry.key(name, tags),
                k -> DistributionSummary.builder("cyclium_" + name).tags(tags(tags)).register(r)).record(value));
    }

    @Override
    public void gauge(String name, LongSupplier value, String... tags) {
        onRegistry(name, r -> {
            AtomicReference<LongSupplier> reading = gauges.computeIfAbsent(MetricsTelemetry.key(name, tags), k -> {
                AtomicReference<LongSupplier> ref = new AtomicReference<>(value);
                // strong: by default Micrometer holds a gauge's object weakly and the reading would vanish
                Gauge.builder("cyclium_" + name, ref, MicrometerMeters::read).tags(tags(tags)).strongReference(true).register(r);
                return ref;
            });
            reading.set(value);
        });
    }

    private Counter counter(MeterRegistry r, String name, String... tags) {
        return counters.computeIfAbsent(MetricsTelemetry.key(name, tags), k -> Counter.builder("cyclium_" + name).tags(tags(tags)).register(r));
    }

    private void onRegistry(String name, Consumer<MeterRegistry> use) {
        try {
            use.accept(registry);
        } catch (RuntimeException e) {
            if (warned.add(name)) {
                LOG.log(Level.WARNING, "Cyclium metric " + name + " could not be recorded; further failures of it are silent", e);
            }
        }
    }

    /** A gauge's reading; a failing supplier reads as -1 rather than failing the whole scrape. */
    private static double read(AtomicReference<LongSupplier> reading) {
        try {
            return reading.get().getAsLong();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static Tags tags(String... pairs) {
        Tags out = Tags.empty();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            out = out.and(pairs[i], pairs[i + 1] == null ? "none" : pairs[i + 1]);
        }
        return out;
    }
}
