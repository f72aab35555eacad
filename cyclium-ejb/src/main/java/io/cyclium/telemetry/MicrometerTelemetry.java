package io.cyclium.telemetry;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Telemetry on the server's Micrometer registry where there is one (WildFly 38 with its
 * {@code micrometer} subsystem, which server-config/wildfly/configure.sh adds), the same series as
 * on Payara ({@link MicrometerMeters}); otherwise nothing, said once.
 *
 * <p>An enabled alternative below {@link MetricsTelemetry}: where the server has MicroProfile
 * Metrics (Payara) that one wins. This class names no Micrometer type, so it loads everywhere; it
 * looks the API up by name when the container creates it, and only then creates the meters.
 */
@ApplicationScoped
@Alternative
@Priority(Telemetry.MICROMETER_PRIORITY)
public class MicrometerTelemetry implements Telemetry {

    private static final Logger LOG = Logger.getLogger(MicrometerTelemetry.class.getName());
    static final String REGISTRY_TYPE = "io.micrometer.core.instrument.MeterRegistry";

    @Inject
    Instance<Object> beans;

    private volatile Telemetry meters = Telemetry.NOOP;

    @PostConstruct
    void init() {
        Object registry = registry();
        if (registry == null) {
            LOG.info("No MicroProfile Metrics and no Micrometer on this server: Cyclium telemetry is off (no cyclium_* series); "
                    + "this node's claim outcomes are still at /cyclium/api/stats/claims");
            return;
        }
        MicrometerMeters m = new MicrometerMeters(registry);
        meters = m;
        LOG.info("Cyclium metrics on the server's Micrometer registry (" + m.registryName() + ")");
    }

    /** The container's MeterRegistry bean, or null where the API or the bean is missing. */
    private Object registry() {
        try {
            Class<?> type = Class.forName(REGISTRY_TYPE, false, MicrometerTelemetry.class.getClassLoader());
            Instance<?> registry = beans.select(type);
            return registry.isResolvable() ? registry.get() : null;
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            return null;
        }
    }

    @Override
    public void count(String name, String... tags) {
        meters.count(name, tags);
    }

    @Override
    public void count(String name, long n, String... tags) {
        meters.count(name, n, tags);
    }

    @Override
    public void time(String name, Duration duration, String... tags) {
        meters.time(name, duration, tags);
    }

    @Override
    public void record(String name, long value, String... tags) {
        meters.record(name, value, tags);
    }

    @Override
    public void gauge(String name, LongSupplier value, String... tags) {
        meters.gauge(name, value, tags);
    }
}
