package io.cyclium.recovery;

/** A running episode nobody seems to drive: stale journal, or stamped interrupted by a drain. */
public record Orphan(String id, String actorId, String expectationId, String dedupeKey, int attempts, int maxAttempts,
        String phase, String sourceStack, String sourceEnv, String workflowInstanceId, String workflowStepId) {

    public String claimKey() {
        return io.cyclium.keys.EpisodeClaimKey.of(dedupeKey, id);
    }
}
