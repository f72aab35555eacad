package io.cyclium.telemetry;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.annotation.RegistryScope;

/**
 * Telemetry on the application's MicroProfile Metrics registry (names prefixed {@code cyclium_}),
 * or nothing when the server has no registry. Metric failures are logged once and never reach
 * the caller: telemetry must not break the work it observes.
 */
@ApplicationScoped
public class MetricsTelemetry implements Telemetry {

    private static final Logger LOG = Logger.getLogger(MetricsTelemetry.class.getName());

    @Inject
    @RegistryScope(scope = MetricRegistry.APPLICATION_SCOPE)
    Instance<MetricRegistry> registries;

    private volatile MetricRegistry registry;
    private volatile boolean warned;

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
        MetricRegistry r = registry;
        if (r == null) {
            return;
        }
        try {
            r.counter("cyclium_" + name, tags(tags)).inc();
        } catch (RuntimeException e) {
            warnOnce(name, e);
        }
    }

    @Override
    public void countMany(String name, long amount, String... tags) {
        MetricRegistry r = registry;
        if (r == null || amount <= 0) {
            return;
        }
        try {
            r.counter("cyclium_" + name, tags(tags)).inc(amount);
        } catch (RuntimeException e) {
            warnOnce(name, e);
        }
    }

    @Override
    public void time(String name, Duration duration, String... tags) {
        MetricRegistry r = registry;
        if (r == null) {
            return;
        }
        try {
            r.timer("cyclium_" + name, tags(tags)).update(duration);
        } catch (RuntimeException e) {
            warnOnce(name, e);
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
        if (!warned) {
            warned = true;
            LOG.log(Level.WARNING, "Cyclium metric " + name + " could not be recorded; further failures are silent", e);
        }
    }
}
