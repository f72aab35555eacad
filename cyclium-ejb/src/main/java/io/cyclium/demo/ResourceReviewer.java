package io.cyclium.demo;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Demo: the actor behind the {@link ResourceReview} workflow. Each expectation is one kind of step
 * (collect the resources, analyse one, advise on all); {@link ReviewStep} does the work.
 */
@ApplicationScoped
@Actor(id = "resource_reviewer", maxConcurrentEpisodes = 4)
@Expectation(id = "collect", strategy = ReviewStep.class, maxSteps = 5, maxWallMs = 30_000)
@Expectation(id = "analyse", strategy = ReviewStep.class, maxSteps = 5, maxWallMs = 30_000)
@Expectation(id = "advise", strategy = ReviewStep.class, maxSteps = 5, maxWallMs = 30_000)
public class ResourceReviewer {
}
