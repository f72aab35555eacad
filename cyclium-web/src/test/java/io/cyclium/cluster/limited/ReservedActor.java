package io.cyclium.cluster.limited;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import io.cyclium.cluster.actors.LongWork;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Work under a large cluster-wide limit (ConcurrencyLimitClusterIT): 64 per tenant across every node,
 * where each node could run 40 at once, so three nodes would run 120 without it. A limit of 64 or
 * more is the kind a node lends from a reserve of the key's slots.
 */
@ApplicationScoped
@Actor(id = "reserved_actor", maxConcurrentEpisodes = 40)
@Expectation(id = "wide", strategy = LongWork.class, events = @OnEvent(type = "reserved.work"),
        concurrencyKey = "$.tenant", concurrencyLimit = 64, maxSteps = 1_000, maxWallMs = 600_000)
public class ReservedActor {
}
