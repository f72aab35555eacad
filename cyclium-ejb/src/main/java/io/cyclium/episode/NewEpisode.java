package io.cyclium.episode;

import io.cyclium.keys.EpisodeRef;

import java.util.Objects;

/**
 * An episode about to be inserted. {@code dedupeKey} null means "no dedupe" (manual starts without
 * an idempotency id, workflow steps). {@code runNode} is set when this node will run it now;
 * {@code queued} when it waits for a slot. {@code traceParent} is the W3C traceparent its runs
 * start their spans under (null when tracing is off). {@code expectationVersion} is the version of
 * the expectation it starts with ({@code @Expectation(version)}; null when unversioned): recovery
 * resumes it only where that version is deployed. {@code concurrencyKey} is its key under its
 * expectation's cluster-wide limit (null: none declared), {@code priority} its place in a queue.
 * {@code stepKey} is the workflow step's own concurrency limit it runs under (null: the step
 * declares none).
 */
public record NewEpisode(String id, String actorId, String expectationId, String specRev, TriggerInfo trigger,
        String dedupeKey, int maxAttempts, Budget budget, String runNode, boolean queued, String sourceStack,
        String sourceEnv, String workflowInstanceId, String workflowStepId, String traceParent, String expectationVersion,
        String concurrencyKey, int priority, StepKey stepKey) {

    /**
     * A workflow step's own concurrency limit: at most {@code limit} episodes of ({@code scope},
     * {@code key}) run at once, cluster-wide; {@code scope} is "workflow:&lt;workflow&gt;/&lt;step&gt;".
     */
    public record StepKey(String scope, String key, int limit) {
        public StepKey {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(key, "key");
        }
    }

    /** Not a keyed workflow step. */
    public NewEpisode(String id, String actorId, String expectationId, String specRev, TriggerInfo trigger,
            String dedupeKey, int maxAttempts, Budget budget, String runNode, boolean queued, String sourceStack,
            String sourceEnv, String workflowInstanceId, String workflowStepId, String traceParent, String expectationVersion,
            String concurrencyKey, int priority) {
        this(id, actorId, expectationId, specRev, trigger, dedupeKey, maxAttempts, budget, runNode, queued, sourceStack,
                sourceEnv, workflowInstanceId, workflowStepId, traceParent, expectationVersion, concurrencyKey, priority, null);
    }

    /** Without a concurrency key, priority 0. */
    public NewEpisode(String id, String actorId, String expectationId, String specRev, TriggerInfo trigger,
            String dedupeKey, int maxAttempts, Budget budget, String runNode, boolean queued, String sourceStack,
            String sourceEnv, String workflowInstanceId, String workflowStepId, String traceParent, String expectationVersion) {
        this(id, actorId, expectationId, specRev, trigger, dedupeKey, maxAttempts, budget, runNode, queued, sourceStack,
                sourceEnv, workflowInstanceId, workflowStepId, traceParent, expectationVersion, null, 0);
    }

    /** An unversioned expectation's episode. */
    public NewEpisode(String id, String actorId, String expectationId, String specRev, TriggerInfo trigger,
            String dedupeKey, int maxAttempts, Budget budget, String runNode, boolean queued, String sourceStack,
            String sourceEnv, String workflowInstanceId, String workflowStepId, String traceParent) {
        this(id, actorId, expectationId, specRev, trigger, dedupeKey, maxAttempts, budget, runNode, queued, sourceStack,
                sourceEnv, workflowInstanceId, workflowStepId, traceParent, null);
    }

    public NewEpisode {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(actorId, "actorId");
        Objects.requireNonNull(expectationId, "expectationId");
        Objects.requireNonNull(trigger, "trigger");
    }

    /** Without a trace parent (tracing off, tests). */
    public NewEpisode(String id, String actorId, String expectationId, String specRev, TriggerInfo trigger,
            String dedupeKey, int maxAttempts, Budget budget, String runNode, boolean queued, String sourceStack,
            String sourceEnv, String workflowInstanceId, String workflowStepId) {
        this(id, actorId, expectationId, specRev, trigger, dedupeKey, maxAttempts, budget, runNode, queued, sourceStack,
                sourceEnv, workflowInstanceId, workflowStepId, null);
    }

    public EpisodeRef ref() {
        return new EpisodeRef(id, actorId, expectationId, dedupeKey, sourceStack, sourceEnv);
    }
}
