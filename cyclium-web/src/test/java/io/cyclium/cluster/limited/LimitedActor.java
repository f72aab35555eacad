package io.cyclium.cluster.limited;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import io.cyclium.cluster.actors.LongWork;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Work under a cluster-wide limit (ConcurrencyLimitClusterIT): at most two episodes per tenant at
 * once across every node, the queue ordered by the event's own priority. Plenty of local slots, so
 * only the cluster-wide limits hold anything back.
 */
@ApplicationScoped
@Actor(id = "limited_actor", maxConcurrentEpisodes = 20)
@Expectation(id = "per_tenant", strategy = LongWork.class, events = @OnEvent(type = "limited.work"),
        concurrencyKey = "$.tenant", concurrencyLimit = 2, priorityField = "priority", maxSteps = 1_000,
        maxWallMs = 600_000)
// at most 5 starts a second, cluster-wide (a bucket of 5: a burst of 5, then one every 200 ms)
@Expectation(id = "rated", strategy = LongWork.class, events = @OnEvent(type = "rated.work"), rateLimit = 5,
        ratePeriodMs = 1_000, maxSteps = 1_000, maxWallMs = 600_000)
// at most 4 starts a second per tenant, cluster-wide: a bucket of its own per key value
@Expectation(id = "rated_per_key", strategy = LongWork.class, events = @OnEvent(type = "rated.per-key"),
        concurrencyKey = "$.tenant", rateLimit = 4, ratePeriodMs = 1_000, rateLimitPerKey = true, maxSteps = 1_000,
        maxWallMs = 600_000)
public class LimitedActor {
}
