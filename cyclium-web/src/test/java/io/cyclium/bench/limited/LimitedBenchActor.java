package io.cyclium.bench.limited;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.bench.actors.TrivialStrategy;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The benchmark's actor with cluster-wide limits declared that never bind: what flow control
 * costs on its own ({@code -Dbench.compare-limits=true}). Same id, expectation and event as
 * {@code BenchActor}, which it replaces in the "limits declared" WAR; the events carry no tenant,
 * so every episode runs under the key "(none)", whose limit (10,000) is far above the node's 20 slots.
 */
@ApplicationScoped
@Actor(id = "bench_actor", maxConcurrentEpisodes = 20, clusterMaxConcurrentEpisodes = 10_000)
@Expectation(id = "trivial", strategy = TrivialStrategy.class, events = @OnEvent(type = "bench.tick"),
        recovery = RecoveryPolicy.RESTART, maxAttempts = 3, concurrencyKey = "$.tenant", concurrencyLimit = 10_000)
public class LimitedBenchActor {
}
