package io.cyclium.cluster.actors;

import io.cyclium.workflow.Workflow;
import io.cyclium.workflow.WorkflowStep;
import jakarta.enterprise.context.ApplicationScoped;

/** One step that fails its first attempt and is retried 20 s later (WorkflowRetryRestartIT). */
@ApplicationScoped
@Workflow(id = "cluster_retry", subjectKey = "subject", steps = {
        @WorkflowStep(id = "flaky", actor = "cluster_actor", expectation = "fails_first", maxAttempts = 3,
                initialDelayMs = 20_000)})
public class ClusterRetryWorkflow {
}
