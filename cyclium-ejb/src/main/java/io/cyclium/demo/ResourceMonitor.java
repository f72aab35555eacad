package io.cyclium.demo;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import io.cyclium.actor.RecoveryPolicy;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Demo: checks resources' usage against their limits on a schedule and whenever one is updated,
 * and raises or clears a {@code limit_breach} finding per resource. Checkpoints after observing, so
 * a restart resumes from what it saw.
 */
@ApplicationScoped
@Actor(id = "resource_monitor", maxConcurrentEpisodes = 3)
@Expectation(id = "check_limits", strategy = LimitCheck.class,
        events = @OnEvent(type = "resource.updated"),
        every = "PT5M",
        subjectKey = "resource",
        debounceMs = 1_000,
        recovery = RecoveryPolicy.RESTART,
        maxSteps = 10,
        maxWallMs = 60_000)
public class ResourceMonitor {
}
