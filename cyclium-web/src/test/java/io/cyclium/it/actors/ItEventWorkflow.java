package io.cyclium.it.actors;

import io.cyclium.workflow.Workflow;
import io.cyclium.workflow.WorkflowStep;
import jakarta.enterprise.context.ApplicationScoped;

/** A one-step workflow an {@code it.workflow.start} event starts, one instance per payload subject. */
@ApplicationScoped
@Workflow(id = "it_on_event", subjectKey = "subject", events = "it.workflow.start", steps = {
        @WorkflowStep(id = "only", actor = "it_actor", expectation = "echo")})
public class ItEventWorkflow {
}
