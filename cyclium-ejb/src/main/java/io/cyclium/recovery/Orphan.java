package io.cyclium.recovery;

/**
 * A running episode nobody seems to drive: stale journal, or stamped interrupted by a drain.
 * {@code updatedAt} is the row's value as read (the driver's own type), re-stated by the recovery claim;
 * {@code startedAt} likewise, the sweep's cursor. {@code ranSteps}: its journal has a step of the
 * strategy's (not only the runtime's own markers: interrupted, resumed, restarted) — an episode that
 * ran none has no side effect to protect and is restarted whatever its policy.
 * {@code expectationVersion}: the version of its expectation it started with (null: unversioned).
 */
public record Orphan(String id, String actorId, String expectationId, String dedupeKey, int attempts, int maxAttempts,
        String phase, String sourceStack, String sourceEnv, String workflowInstanceId, String workflowStepId,
        Object updatedAt, Object startedAt, boolean ranSteps, String expectationVersion) {

    /** An orphan as the tests write it: one that ran steps, without a cursor position. */
    public Orphan(String id, String actorId, String expectationId, String dedupeKey, int attempts, int maxAttempts,
            String phase, String sourceStack, String sourceEnv, String workflowInstanceId, String workflowStepId,
            Object updatedAt) {
        this(id, actorId, expectationId, dedupeKey, attempts, maxAttempts, phase, sourceStack, sourceEnv,
                workflowInstanceId, workflowStepId, updatedAt, null, true, null);
    }

    public String claimKey() {
        return io.cyclium.keys.EpisodeClaimKey.of(dedupeKey, id);
    }
}
