package io.cyclium.demo;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Demo: when a {@code limit_breach} finding is raised, proposes a new limit for the resource and
 * waits for an operator to approve the plan; once approved it delivers the advice as outputs
 * (a database record and a log line), exactly once.
 */
@ApplicationScoped
@Actor(id = "resource_advisor", maxConcurrentEpisodes = 2)
@Expectation(id = "advise_limit", strategy = AdviceStrategy.class,
        events = @OnEvent(type = "finding.raised", filter = "class=limit_breach"),
        maxSteps = 10,
        maxWallMs = 60_000)
public class ResourceAdvisor {
}
