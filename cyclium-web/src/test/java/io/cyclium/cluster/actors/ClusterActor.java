package io.cyclium.cluster.actors;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import io.cyclium.actor.RecoveryPolicy;
import jakarta.enterprise.context.ApplicationScoped;

/** Long, checkpointing episodes with one output each, for the failover scenarios. */
@ApplicationScoped
@Actor(id = "cluster_actor", maxConcurrentEpisodes = 10)
@Expectation(id = "long_restart", strategy = LongWork.class, recovery = RecoveryPolicy.RESTART, maxAttempts = 3,
        maxSteps = 1_000, maxWallMs = 600_000)
@Expectation(id = "long_fail", strategy = LongWork.class, recovery = RecoveryPolicy.FAIL, maxSteps = 1_000,
        maxWallMs = 600_000)
@Expectation(id = "long_once", strategy = LongWork.class, recovery = RecoveryPolicy.RESTART, maxAttempts = 1,
        maxSteps = 1_000, maxWallMs = 600_000)
// the chaos suite's workload: an event per episode, restarted up to five times, one output each
@Expectation(id = "chaos", strategy = LongWork.class, events = @OnEvent(type = "chaos.work"), recovery = RecoveryPolicy.RESTART,
        maxAttempts = 5, maxSteps = 1_000, maxWallMs = 600_000)
// a debounced subject: the node that took its events may be gone when the window closes (TriggerOnlyIT)
@Expectation(id = "debounced", strategy = LongWork.class, events = @OnEvent(type = "cluster.debounced"),
        subjectKey = "subject", debounceMs = 3_000)
// durable sleeps, waits and signals across kill -9 and drains (DurableTimersClusterIT)
@Expectation(id = "sleeper", strategy = Sleeper.class, events = @OnEvent(type = "timers.sleep"),
        recovery = RecoveryPolicy.RESTART, maxAttempts = 5, maxSteps = 100, maxWallMs = 600_000)
// a workflow step whose first attempt fails (RetryRestartIT)
@Expectation(id = "fails_first", strategy = FailsFirstAttempt.class)
public class ClusterActor {
}
