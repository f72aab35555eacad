package io.cyclium.runtime;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.episode.TriggerInfo;

/**
 * One trigger to fire. {@code bypassBreaker} is for manual starts; {@code scope} null stamps this
 * node's stack and env; the workflow fields name the step an episode runs for (null otherwise);
 * {@code traceParent} is the span the episode's runs start under when the caller has one that is
 * not current on this thread (a workflow instance's), null otherwise.
 */
public record FireRequest(ExpectationDefinition expectation, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker,
        ActorRuntime.Scope scope, String workflowInstanceId, String workflowStepId, String traceParent) {

    public static FireRequest of(ExpectationDefinition expectation, TriggerInfo trigger, String dedupeKey,
            boolean bypassBreaker) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, null, null, null, null);
    }

    public FireRequest in(ActorRuntime.Scope otherScope) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, otherScope, workflowInstanceId,
                workflowStepId, traceParent);
    }

    public FireRequest forWorkflowStep(String instanceId, String stepId) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, scope, instanceId, stepId, traceParent);
    }

    /** Under this span (a workflow instance's); null leaves it to the span current when it is fired. */
    public FireRequest tracedUnder(String parent) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, scope, workflowInstanceId, workflowStepId,
                parent);
    }
}
