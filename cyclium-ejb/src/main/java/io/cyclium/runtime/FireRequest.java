package io.cyclium.runtime;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;

/**
 * One trigger to fire. {@code bypassBreaker} is for manual starts; {@code scope} null stamps this
 * node's stack and env; the workflow fields name the step an episode runs for (null otherwise);
 * {@code traceParent} is the span the episode's runs start under when the caller has one that is
 * not current on this thread (a workflow instance's), null otherwise. {@code priority} is the
 * caller's own priority for the episode (an operator's manual start), null to take the
 * expectation's ({@code @Expectation(priority, priorityField)}). {@code stepKey} is a workflow
 * step's own concurrency limit (null: none), taken besides the expectation's.
 */
public record FireRequest(ExpectationDefinition expectation, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker,
        ActorRuntime.Scope scope, String workflowInstanceId, String workflowStepId, String traceParent, Integer priority,
        NewEpisode.StepKey stepKey) {

    public FireRequest(ExpectationDefinition expectation, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker,
            ActorRuntime.Scope scope, String workflowInstanceId, String workflowStepId, String traceParent) {
        this(expectation, trigger, dedupeKey, bypassBreaker, scope, workflowInstanceId, workflowStepId, traceParent, null, null);
    }

    public static FireRequest of(ExpectationDefinition expectation, TriggerInfo trigger, String dedupeKey,
            boolean bypassBreaker) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, null, null, null, null);
    }

    /** At this priority whatever the expectation says (null: the expectation's). */
    public FireRequest atPriority(Integer p) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, scope, workflowInstanceId, workflowStepId,
                traceParent, p, stepKey);
    }

    public FireRequest in(ActorRuntime.Scope otherScope) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, otherScope, workflowInstanceId,
                workflowStepId, traceParent, priority, stepKey);
    }

    public FireRequest forWorkflowStep(String instanceId, String stepId) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, scope, instanceId, stepId, traceParent, priority,
                stepKey);
    }

    /** Under this span (a workflow instance's); null leaves it to the span current when it is fired. */
    public FireRequest tracedUnder(String parent) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, scope, workflowInstanceId, workflowStepId,
                parent, priority, stepKey);
    }

    /** Under a workflow step's own concurrency limit as well (null: none). */
    public FireRequest underStepKey(NewEpisode.StepKey key) {
        return new FireRequest(expectation, trigger, dedupeKey, bypassBreaker, scope, workflowInstanceId, workflowStepId,
                traceParent, priority, key);
    }
}
