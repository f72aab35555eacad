package io.cyclium.node;

import jakarta.enterprise.context.ApplicationScoped;
import io.cyclium.config.CycliumConfig;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.time.Clock;

/**
 * The application's clock for anything that is not lease arithmetic (journal timestamps, debounce,
 * cooldown). Lease arithmetic uses the database clock ({@link DbClock}). Tests replace this one.
 */
@ApplicationScoped
public class ClockProducer {

    @Inject
    CycliumConfig config;

    /** {@code cyclium.clock.skew-ms} (a test hook) shifts it; leases do not notice, by design. */
    @Produces
    public Clock clock() {
        return config.clockSkew().isZero() ? Clock.systemUTC() : Clock.offset(Clock.systemUTC(), config.clockSkew());
    }
}
