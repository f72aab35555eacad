package io.cyclium.cluster.actors;

import io.cyclium.workflow.Workflow;
import io.cyclium.workflow.WorkflowStep;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The chaos suite's workflow, started by {@code chaos.flow} events, one instance per payload
 * {@code subject}: a chain of three steps — a checkpointing {@link LongWork} step on the defaults
 * (one attempt: a node that dies under it must not fail the instance, recovery restarts it), a flaky
 * step that fails its first attempt and is retried, and another step on the defaults.
 */
@ApplicationScoped
@Workflow(id = "chaos_flow", subjectKey = "subject", events = "chaos.flow", steps = {
        @WorkflowStep(id = "work", actor = "cluster_actor", expectation = "long_restart"),
        @WorkflowStep(id = "flaky", actor = "cluster_actor", expectation = "fails_first", dependsOn = "work", maxAttempts = 3,
                initialDelayMs = 500),
        @WorkflowStep(id = "finish", actor = "cluster_actor", expectation = "long_restart", dependsOn = "flaky")})
public class ChaosWorkflow {
}
