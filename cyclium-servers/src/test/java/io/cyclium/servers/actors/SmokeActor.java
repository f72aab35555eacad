package io.cyclium.servers.actors;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.RecoveryPolicy;
import jakarta.enterprise.context.ApplicationScoped;

/** The test actor the smoke tests add to the EAR's lib/: slow, checkpointing, restartable episodes. */
@ApplicationScoped
@Actor(id = "server_smoke", maxConcurrentEpisodes = 10)
@Expectation(id = "slow", strategy = SlowSteps.class, recovery = RecoveryPolicy.RESTART, maxAttempts = 3,
        maxSteps = 1_000, maxWallMs = 600_000)
public class SmokeActor {
}
