package io.cyclium.recovery;

/**
 * A running episode nobody seems to drive: stale journal, or stamped interrupted by a drain.
 * {@code updatedAt} is the row's value as read (the driver's own type), re-stated by the recovery claim.
 */
public record Orphan(String id, String actorId, String expectationId, String dedupeKey, int attempts, int maxAttempts,
        String phase, String sourceStack, String sourceEnv, String workflowInstanceId, String workflowStepId,
        Object updatedAt) {

    public String claimKey() {
        return io.cyclium.keys.EpisodeClaimKey.of(dedupeKey, id);
    }
}
