package io.cyclium.it.actors;

import io.cyclium.workflow.Workflow;
import io.cyclium.workflow.WorkflowStep;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A fan-out/fan-in DAG of six steps declared in code: start → (left, middle, flaky) → join → end;
 * flaky fails its first attempt and is retried after about a second.
 */
@ApplicationScoped
@Workflow(id = "it_fanout", subjectKey = "subject", steps = {
        @WorkflowStep(id = "start", actor = "it_actor", expectation = "echo"),
        @WorkflowStep(id = "left", actor = "it_actor", expectation = "echo", dependsOn = "start"),
        @WorkflowStep(id = "middle", actor = "it_actor", expectation = "echo", dependsOn = "start"),
        @WorkflowStep(id = "flaky", actor = "it_actor", expectation = "flaky", dependsOn = "start", maxAttempts = 3,
                initialDelayMs = 1_000, multiplier = 2.0),
        @WorkflowStep(id = "join", actor = "it_actor", expectation = "echo", dependsOn = {"left", "middle", "flaky"}),
        @WorkflowStep(id = "end", actor = "it_actor", expectation = "echo", dependsOn = "join")})
public class ItWorkflow {
}
