package io.cyclium.cluster.actors;

import io.cyclium.workflow.Workflow;
import io.cyclium.workflow.WorkflowStep;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A workflow on every default a new user gets: one step, one attempt ({@code maxAttempts} not
 * set), running {@link DefaultsActor}'s checkpointing expectation, whose recovery policy is the
 * default {@code FAIL}. A node that dies under the step must not fail the instance: the step's
 * episode is restarted elsewhere (or on the node's next life) and the instance completes.
 */
@ApplicationScoped
@Workflow(id = "defaults_flow", subjectKey = "subject", steps = {
        @WorkflowStep(id = "work", actor = "defaults_actor", expectation = "chaos_default")})
public class DefaultsWorkflow {
}
