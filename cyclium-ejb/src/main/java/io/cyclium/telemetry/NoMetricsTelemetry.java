package io.cyclium.telemetry;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * The default {@link Telemetry} bean: records nothing and says so once, when it is first used. The
 * enabled alternatives replace it, {@link MetricsTelemetry} where the server has MicroProfile
 * Metrics and otherwise {@link MicrometerTelemetry} (which loads everywhere and is itself off
 * without Micrometer), so it is the bean only where an archive leaves both out; it keeps a
 * deployment from failing for want of a Telemetry bean (WELD-001408 for the ten injection points,
 * before this bean existed).
 */
@ApplicationScoped
public class NoMetricsTelemetry implements Telemetry {

    private static final Logger LOG = Logger.getLogger(NoMetricsTelemetry.class.getName());

    @PostConstruct
    void announce() {
        LOG.info("No MicroProfile Metrics on this server: Cyclium telemetry is off (no cyclium_* series); "
                + "this node's claim outcomes are still at /cyclium/api/stats/claims");
    }

    @Override
    public void count(String name, String... tags) {
        Telemetry.NOOP.count(name, tags);
    }

    @Override
    public void time(String name, Duration duration, String... tags) {
        Telemetry.NOOP.time(name, duration, tags);
    }
}
