package io.cyclium.cluster.actors;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * An actor on every default a new user gets: recovery {@code FAIL}, the default slots per node
 * (3), overflow to a queue, max attempts 3. The chaos suite floods it so that work waits in queues
 * when nodes die and the database goes away: episodes that never ran a step must be restarted,
 * never failed.
 */
@ApplicationScoped
@Actor(id = "defaults_actor")
@Expectation(id = "chaos_default", strategy = LongWork.class, events = @OnEvent(type = "chaos.default"), maxSteps = 1_000,
        maxWallMs = 600_000)
public class DefaultsActor {
}
