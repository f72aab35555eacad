package io.cyclium.cluster.actors;

import io.cyclium.workflow.Workflow;
import io.cyclium.workflow.WorkflowStep;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The cluster tests' fan-out/fan-in DAG of six steps (start → a, b, c → join → end), each a
 * checkpointing {@link LongWork} episode that recovery restarts, so a node killed mid-workflow
 * leaves steps another node resumes. One instance in flight per payload {@code subject}.
 */
@ApplicationScoped
@Workflow(id = "cluster_fanout", subjectKey = "subject", steps = {
        @WorkflowStep(id = "start", actor = "cluster_actor", expectation = "long_restart", maxAttempts = 3, initialDelayMs = 500),
        @WorkflowStep(id = "a", actor = "cluster_actor", expectation = "long_restart", dependsOn = "start", maxAttempts = 3,
                initialDelayMs = 500),
        @WorkflowStep(id = "b", actor = "cluster_actor", expectation = "long_restart", dependsOn = "start", maxAttempts = 3,
                initialDelayMs = 500),
        @WorkflowStep(id = "c", actor = "cluster_actor", expectation = "long_restart", dependsOn = "start", maxAttempts = 3,
                initialDelayMs = 500),
        @WorkflowStep(id = "join", actor = "cluster_actor", expectation = "long_restart", dependsOn = {"a", "b", "c"},
                maxAttempts = 3, initialDelayMs = 500),
        @WorkflowStep(id = "end", actor = "cluster_actor", expectation = "long_restart", dependsOn = "join", maxAttempts = 3,
                initialDelayMs = 500)})
public class ClusterWorkflow {
}
