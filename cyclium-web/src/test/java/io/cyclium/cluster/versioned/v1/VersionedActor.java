package io.cyclium.cluster.versioned.v1;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.cluster.actors.LongWork;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Version 1 of the versioned test actor (VersionedRecoveryIT): the same actor and expectation as
 * io.cyclium.cluster.versioned.v2, another version. A WAR holds exactly one of the two.
 */
@ApplicationScoped
@Actor(id = "versioned_actor", maxConcurrentEpisodes = 4)
@Expectation(id = "work", strategy = LongWork.class, recovery = RecoveryPolicy.RESTART, maxAttempts = 3,
        maxSteps = 1_000, maxWallMs = 600_000, version = "1")
public class VersionedActor {
}
