package io.cyclium.operations;

import io.cyclium.claims.ClaimQueries;
import io.cyclium.finding.FindingView;
import io.cyclium.output.OutputView;
import java.util.List;

/**
 * An episode with its journal, checkpoints, outputs, the findings it raised or cleared, and the
 * work claim on its key (owner, fence, lease; null when no node ever claimed it — a deferred
 * episode not yet dispatched, or claims disabled).
 */
public record EpisodeDetail(EpisodeView episode, String triggerRef, boolean cancelRequested, List<StepView> steps,
        List<CheckpointView> checkpoints, List<OutputView> outputs, List<FindingView> findings, ClaimQueries.ClaimRow claim) {
}
