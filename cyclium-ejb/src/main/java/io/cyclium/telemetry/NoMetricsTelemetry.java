package io.cyclium.telemetry;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * The {@link Telemetry} bean on a server without MicroProfile Metrics (WildFly 38): records
 * nothing and says so once, when it is first used. Where Metrics exists the alternative
 * {@link MetricsTelemetry} replaces it, so a missing metrics subsystem never fails a deployment
 * (WELD-001408 for the ten injection points, before this bean existed).
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
