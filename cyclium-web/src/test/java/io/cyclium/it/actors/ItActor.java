package io.cyclium.it.actors;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.actor.Retry;
import jakarta.enterprise.context.ApplicationScoped;

/** The actor the integration tests drive; one expectation per behaviour under test. */
@ApplicationScoped
@Actor(id = "it_actor", maxConcurrentEpisodes = 20)
@Expectation(id = "echo", strategy = ItStrategies.Echo.class, events = @OnEvent(type = "it.echo"))
@Expectation(id = "tick", strategy = ItStrategies.Tick.class, every = "PT2S", manual = false)
@Expectation(id = "resume", strategy = ItStrategies.CheckpointThenApprove.class)
@Expectation(id = "finding", strategy = ItStrategies.FindingOp.class)
@Expectation(id = "output", strategy = ItStrategies.OutputOnce.class)
@Expectation(id = "forever", strategy = ItStrategies.Forever.class, maxSteps = 5)
@Expectation(id = "slow", strategy = ItStrategies.Slow.class, maxSteps = 500)
@Expectation(id = "waiter", strategy = ItStrategies.Waiter.class)
@Expectation(id = "keyed_waiter", strategy = ItStrategies.KeyedWaiter.class)
// the bulk actions' tests only: their filters must match no other test's episodes
@Expectation(id = "bulk_waiter", strategy = ItStrategies.Waiter.class)
@Expectation(id = "restartable", strategy = ItStrategies.Echo.class, recovery = RecoveryPolicy.RESTART)
@Expectation(id = "walltime", strategy = ItStrategies.Slow.class, maxSteps = 500, maxWallMs = 600)
@Expectation(id = "flaky", strategy = ItStrategies.FlakyOnce.class)
@Expectation(id = "retried", strategy = ItStrategies.FailsFirstTime.class, events = @OnEvent(type = "it.retried"),
        retry = @Retry(maxAttempts = 3, initialDelayMs = 10_000))
public class ItActor {
}
