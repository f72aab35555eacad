package io.cyclium.it.actors;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.RecoveryPolicy;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * An actor with a single slot: one "hold" episode occupies it until the test lets go, so anything
 * started meanwhile waits in this node's queue.
 */
@ApplicationScoped
@Actor(id = "it_one_slot", maxConcurrentEpisodes = 1)
@Expectation(id = "hold", strategy = ItStrategies.Hold.class, maxSteps = 50)
@Expectation(id = "echo", strategy = ItStrategies.Echo.class, recovery = RecoveryPolicy.RESTART)
public class OneSlotActor {
}
