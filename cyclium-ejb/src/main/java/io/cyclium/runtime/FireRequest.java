package io.cyclium.runtime;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.episode.TriggerInfo;

/**
 * One trigger to fire. {@code bypassBreaker} is for manual starts; {@code scope} null stamps this
 * node's stack and env; the workflow fields name the step an episode runs for (null otherwise).
 */
public record FireRequest(ExpectationDefinition expectation, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker,
        ActorRuntime.Scope scope, String workflowInstanceId, String workflowStepId) {

    public static FireRequest of(ExpectationDefinition expectation, TriggerInfo trigger, String dedupeKey,
            boolean bypassBreaker) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, null, null, null);
    }

    public FireRequest in(ActorRuntime.Scope otherScope) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, otherScope, workflowInstanceId,
                workflowStepId);
    }

    public FireRequest forWorkflowStep(String instanceId, String stepId) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, scope, instanceId, stepId);
    }
}
