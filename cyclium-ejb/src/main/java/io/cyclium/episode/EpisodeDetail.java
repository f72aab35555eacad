package io.cyclium.episode;

import io.cyclium.finding.FindingView;
import io.cyclium.output.OutputView;
import java.util.List;

/** An episode with its journal, checkpoints, outputs and the findings it raised or cleared. */
public record EpisodeDetail(EpisodeView episode, String triggerRef, boolean cancelRequested, List<StepView> steps,
        List<CheckpointView> checkpoints, List<OutputView> outputs, List<FindingView> findings) {
}
