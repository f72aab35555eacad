package io.cyclium.demo;

import io.cyclium.workflow.FailurePolicy;
import io.cyclium.workflow.Workflow;
import io.cyclium.workflow.WorkflowStep;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Demo workflow: collect the resources, analyse each of the four seeded ones in parallel, then
 * advise — after an operator approves (the gate blocks the instance until then). The analysis of
 * batch-worker fails its first attempt on purpose, so the console shows a retry with its backoff
 * (3 s, then 6 s, ±20 %). Start it from the console or with
 * {@code cyclium workflow start resource_review}; {@code --outcome analyse-cache} runs only
 * collect and that one analysis.
 */
@ApplicationScoped
@Workflow(id = "resource_review", steps = {
        @WorkflowStep(id = "collect", actor = "resource_reviewer", expectation = "collect"),
        @WorkflowStep(id = "analyse-db-primary", actor = "resource_reviewer", expectation = "analyse", dependsOn = "collect",
                maxAttempts = 3, initialDelayMs = 3_000, jitter = 0.2),
        @WorkflowStep(id = "analyse-api-gateway", actor = "resource_reviewer", expectation = "analyse", dependsOn = "collect",
                maxAttempts = 3, initialDelayMs = 3_000, jitter = 0.2),
        @WorkflowStep(id = "analyse-batch-worker", actor = "resource_reviewer", expectation = "analyse",
                dependsOn = "collect", maxAttempts = 3, initialDelayMs = 3_000, jitter = 0.2),
        @WorkflowStep(id = "analyse-cache", actor = "resource_reviewer", expectation = "analyse", dependsOn = "collect",
                critical = false, maxAttempts = 2, initialDelayMs = 3_000),
        @WorkflowStep(id = "advise", actor = "resource_reviewer", expectation = "advise", approval = true,
                onFailure = FailurePolicy.PAUSE,
                dependsOn = {"analyse-db-primary", "analyse-api-gateway", "analyse-batch-worker", "analyse-cache"})})
public class ResourceReview {
}
