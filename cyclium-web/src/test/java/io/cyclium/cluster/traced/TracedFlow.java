package io.cyclium.cluster.traced;

import io.cyclium.workflow.Workflow;
import io.cyclium.workflow.WorkflowStep;
import jakarta.enterprise.context.ApplicationScoped;

/** Two steps, one after the other, started by a {@code traced.flow} event. */
@ApplicationScoped
@Workflow(id = "traced_flow", events = "traced.flow", subjectKey = "subject", steps = {
        @WorkflowStep(id = "first", actor = "traced_actor", expectation = "step"),
        @WorkflowStep(id = "second", actor = "traced_actor", expectation = "step", dependsOn = "first")})
public class TracedFlow {
}
