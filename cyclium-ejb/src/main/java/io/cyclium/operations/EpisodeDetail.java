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
        LocalDateTime nextRetryAt, String retriedBy, WaitView waiting, List<KeptSignalView> keptSignals) {

    /** Without a sleep, a wait or kept signals (tests). */
    public EpisodeDetail(EpisodeView episode, String triggerRef, boolean cancelRequested, List<StepView> steps,
            List<CheckpointView> checkpoints, List<OutputView> outputs, List<FindingView> findings, ClaimQueries.ClaimRow claim,
            LocalDateTime nextRetryAt, String retriedBy) {
        this(episode, triggerRef, cancelRequested, steps, checkpoints, outputs, findings, claim, nextRetryAt, retriedBy, null,
                List.of());
    }

    /**
     * What a blocked episode sleeps or waits for: {@code kind} sleep or wait, the name a signal or
     * event must carry ({@code "sleep"} for a sleep), the key an event resolves it by (null: none),
     * when it is due (the sleep's end or the wait's timeout, UTC on the database clock; null: no
     * timeout), and since when.
     */
    public record WaitView(String kind, String name, String key, LocalDateTime dueAt, LocalDateTime since) {
    }

    /** A signal kept for the episode until it waits for the name (UTC). */
    public record KeptSignalView(String name, String payload, String sentBy, LocalDateTime sentAt) {
    }
}
