package io.cyclium.bench.actors;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import io.cyclium.actor.RecoveryPolicy;
import jakarta.enterprise.context.ApplicationScoped;

/** The benchmark's actor: one trivial expectation per {@code bench.tick} event, 20 slots per node. */
@ApplicationScoped
@Actor(id = "bench_actor", maxConcurrentEpisodes = 20)
@Expectation(id = "trivial", strategy = TrivialStrategy.class, events = @OnEvent(type = "bench.tick"),
        recovery = RecoveryPolicy.RESTART, maxAttempts = 3)
public class BenchActor {
}
