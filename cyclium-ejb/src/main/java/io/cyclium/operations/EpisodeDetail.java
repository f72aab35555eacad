package io.cyclium.operations;

import io.cyclium.claims.ClaimQueries;
import io.cyclium.finding.FindingView;
import io.cyclium.output.OutputView;
import java.time.LocalDateTime;
import java.util.List;

/**
 * An episode with its journal, checkpoints, outputs, the findings it raised or cleared, and the
 * work claim on its key (owner, fence, lease; null when no node ever claimed it — a deferred
 * episode not yet dispatched, or claims disabled). A failed episode of an expectation with a retry
 * policy has {@code nextRetryAt} (UTC) while its next attempt waits, and {@code retriedBy} (the next
 * attempt's episode id) once it started; both null otherwise.
 */
public record EpisodeDetail(EpisodeView episode, String triggerRef, boolean cancelRequested, List<StepView> steps,
        List<CheckpointView> checkpoints, List<OutputView> outputs, List<FindingView> findings, ClaimQueries.ClaimRow claim,
        LocalDateTime nextRetryAt, String retriedBy) {
}
