package io.cyclium.it.actors;

import io.cyclium.actor.Actor;
import io.cyclium.actor.ConcurrencyKeyFunction;
import io.cyclium.actor.Expectation;
import io.cyclium.episode.TriggerInfo;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * An expectation whose concurrency key is computed by a CDI bean of the application
 * ({@code concurrencyKeyFunction}): the tenant is the part of the order id before its dash; the
 * order "boom" makes the function throw. An actor of its own, so that it_actor stays without flow
 * control.
 */
@ApplicationScoped
@Actor(id = "it_keyed", maxConcurrentEpisodes = 20)
@Expectation(id = "by_order", strategy = ItStrategies.Echo.class, concurrencyKeyFunction = ItKeyedActor.TenantOfOrder.class,
        concurrencyLimit = 5)
public class ItKeyedActor {

    @ApplicationScoped
    public static class TenantOfOrder implements ConcurrencyKeyFunction {
        @Override
        public String keyOf(TriggerInfo trigger) {
            String order = trigger.payload().getString("order", "");
            if (order.equals("boom")) {
                throw new IllegalStateException("no such order: boom");
            }
            int dash = order.indexOf('-');
            return dash < 0 ? null : order.substring(0, dash);
        }
    }
}
