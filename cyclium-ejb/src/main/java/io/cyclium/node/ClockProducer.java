package io.cyclium.node;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;

/**
 * The application's clock for anything that is not lease arithmetic (journal timestamps, debounce,
 * cooldown). Lease arithmetic uses the database clock ({@link DbClock}). Tests replace this one.
 */
@ApplicationScoped
public class ClockProducer {

    @Produces
    public Clock clock() {
        return Clock.systemUTC();
    }
}
