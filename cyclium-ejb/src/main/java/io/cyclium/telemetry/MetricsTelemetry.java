package io.cyclium.telemetry;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Histogram;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;
import org.eclipse.microprofile.metrics.annotation.RegistryScope;

/**
 * Telemetry on the application's MicroProfile Metrics registry (names prefixed {@code cyclium_}),
 * or nothing when the server has no registry. Metric failures are logged once and never reach
 * the caller: telemetry must not break the work it observes.
 *
 * <p>An enabled alternative: where the server has MicroProfile Metrics it wins over
 * {@link NoMetricsTelemetry}. Where it has not (WildFly 38), this class cannot even be loaded —
 * its fields name the Metrics API — so CDI skips it and the no-op is the only bean left.
 */
@ApplicationScoped
@Alternative
@Priority(Telemetry.METRICS_PRIORITY)
public class MetricsTelemetry implements Telemetry {

    private static final Logger LOG = Logger.getLogger(MetricsTelemetry.class.getName());

    @Inject
    @RegistryScope(scope = MetricRegistry.APPLICATION_SCOPE)
    Instance<MetricRegistry> registries;

    private volatile MetricRegistry registry;
    /** The current reading of each gauge: the registry keeps the first function it was given, so it reads through this. */
    // Metrics by name and tags, resolved once: the registry validates every tag with a regular
    // expression and looks the metric up on each call, a cost paid several times per episode.
    private final Map<String, AtomicReference<LongSupplier>> gauges = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, Histogram> histograms = new ConcurrentHashMap<>();
    /** Metric names whose failure was logged (once each). */
    private final java.util.Set<String> warned = ConcurrentHashMap.newKeySet();
    /**
     * Serializes every creation of a metric on the registry. Payara 6.2025.10's TimerImpl
     * constructor updates a plain HashMap of the distribution settings (computeIfAbsent): two
     * timers created at once — the heartbeat's first tick beside an episode's — threw
     * ConcurrentModificationException, and the heartbeat timer never appeared in /metrics. Creation
     * happens once per name and tags, so the lock costs nothing afterwards.
     */
    private final Object creating = new Object();

    @PostConstruct
    void init() {
        try {
            registry = registries.isResolvable() ? registries.get() : null;
        } catch (RuntimeException e) {
            registry = null;
        }
        if (registry == null) {
            LOG.info("No MicroProfile Metrics registry on this server: Cyclium telemetry is off");
        }
    }

    @Override
    public void count(String name, String... tags) {
        onRegistry(name, r -> counter(r, name, tags).inc());
    }

    @Override
    public void count(String name, long n, String... tags) {
        if (n > 0) {
            onRegistry(name, r -> counter(r, name, tags).inc(n));
        }
    }

    @Override
    public void time(String name, Duration duration, String... tags) {
        onRegistry(name, r -> timers.computeIfAbsent(key(name, tags), k -> create(() -> r.timer(timerMetadata(name), tags(tags))))
                .update(duration));
    }

    /**
     * A timer's metadata names its unit, nanoseconds (what a Timer records). Payara's Prometheus
     * writer scales a timer's mean, max and default quantiles by the metadata's unit and only its
     * sum by the Duration: registered without a unit, they came out in nanoseconds under a
     * {@code _seconds} name while {@code _seconds_sum} was in seconds. Configured quantiles (any
     * {@code mp.metrics.distribution.*} setting on the timer, buckets included) it never scales:
     * the shipped configuration keeps the buckets and turns quantiles off (docs/metrics.md).
     */
    static Metadata timerMetadata(String name) {
        return Metadata.builder().withName("cyclium_" + name).withUnit(MetricUnits.NANOSECONDS).build();
    }

    @Override
    public void record(String name, long value, String... tags) {
        onRegistry(name, r -> histograms.computeIfAbsent(key(name, tags), k -> create(() -> r.histogram("cyclium_" + name, tags(tags))))
                .update(value));
    }

    @Override
    public void gauge(String name, LongSupplier value, String... tags) {
        onRegistry(name, r -> {
            AtomicReference<LongSupplier> reading = gauges.computeIfAbsent(key(name, tags), k -> {
                AtomicReference<LongSupplier> ref = new AtomicReference<>(value);
                create(() -> r.gauge(new MetricID("cyclium_" + name, tags(tags)), ref, MetricsTelemetry::read));
                return ref;
            });
            reading.set(value);
        });
    }

    /** Records on the registry when there is one; a failure is logged once and never reaches the caller. */
    private void onRegistry(String name, java.util.function.Consumer<MetricRegistry> use) {
        MetricRegistry r = registry;
        if (r == null) {
            return;
        }
        try {
            use.accept(r);
        } catch (RuntimeException e) {
            warnOnce(name, e);
        }
    }

    private Counter counter(MetricRegistry r, String name, String... tags) {
        return counters.computeIfAbsent(key(name, tags), k -> create(() -> r.counter("cyclium_" + name, tags(tags))));
    }

    private <M> M create(java.util.function.Supplier<M> registration) {
        synchronized (creating) {
            return registration.get();
        }
    }

    /** Name and tags as one map key (the registry's own lookup validates every tag with a regex). */
    static String key(String name, String... tags) {
        StringBuilder k = new StringBuilder(name);
        for (String t : tags) {
            k.append('\u0000').append(t == null ? "none" : t);
        }
        return k.toString();
    }

    /** A gauge's reading; a failing supplier reads as -1 rather than failing the whole scrape. */
    private static Long read(AtomicReference<LongSupplier> reading) {
        try {
            return reading.get().getAsLong();
        } catch (RuntimeException e) {
            return -1L;
        }
    }

    private static Tag[] tags(String... pairs) {
        Tag[] out = new Tag[pairs.length / 2];
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            out[i / 2] = new Tag(pairs[i], pairs[i + 1] == null ? "none" : pairs[i + 1]);
        }
        return out;
    }

    private void warnOnce(String name, RuntimeException e) {
        if (warned.add(name)) {
            LOG.log(Level.WARNING, "Cyclium metric " + name + " could not be recorded; further failures of it are silent", e);
        }
    }
}
