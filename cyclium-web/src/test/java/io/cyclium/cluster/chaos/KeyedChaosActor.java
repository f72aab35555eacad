package io.cyclium.cluster.chaos;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.cluster.actors.LongWork;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Work under cluster-wide limits through the chaos suite's faults (ChaosIT): at most two episodes
 * per tenant and four of the actor at once across every node. Its slots are taken as episodes are
 * stored or dequeued and given back with their terminal writes, while nodes are killed and the
 * database goes away: each event still runs once, and no slot outlives its episode. Restarted like the
 * chaos suite's unkeyed work (a node killed mid-step leaves an orphan that ran steps; the default
 * policy would fail it as orphaned, which the suite counts as work lost).
 */
@ApplicationScoped
@Actor(id = "keyed_chaos_actor", maxConcurrentEpisodes = 10, clusterMaxConcurrentEpisodes = 4)
@Expectation(id = "chaos_keyed", strategy = LongWork.class, events = @OnEvent(type = "chaos.keyed"),
        concurrencyKey = "$.tenant", concurrencyLimit = 2, recovery = RecoveryPolicy.RESTART, maxAttempts = 5,
        maxSteps = 1_000, maxWallMs = 600_000)
public class KeyedChaosActor {
}
