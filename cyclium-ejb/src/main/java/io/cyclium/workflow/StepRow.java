package io.cyclium.workflow;

import java.time.LocalDateTime;

/**
 * One stored step of an instance. A failed step with {@code nextAttemptAt} waits for a retry; a
 * failed step without it failed for good.
 */
public record StepRow(String instanceId, String stepId, String state, int attempt, int maxAttempts, boolean critical,
        LocalDateTime nextAttemptAt, LocalDateTime approvedAt, String episodeId, LocalDateTime queuedAt,
        LocalDateTime startedAt, LocalDateTime finishedAt, long runMs, String errorClass, String errorDetail, long version) {

    public boolean finishedForGood() {
        return StepState.COMPLETED.equals(state) || (StepState.FAILED.equals(state) && nextAttemptAt == null);
    }

    public boolean active() {
        return StepState.QUEUED.equals(state) || StepState.RUNNING.equals(state);
    }

    public boolean failedForGood() {
        return StepState.FAILED.equals(state) && nextAttemptAt == null;
    }
}
