package io.cyclium.episode;

import io.cyclium.keys.EpisodeRef;

import jakarta.json.JsonObject;
import java.util.Optional;

/**
 * What a task needs to (re)start an episode: the row's facts, the next journal step number, the
 * latest checkpoint, a resolution that arrived while it was blocked, and the trace parent its run
 * span starts under (null when tracing was off when it was stored).
 */
public record RunSnapshot(EpisodeRef ref, String status, TriggerInfo trigger, int attempts, int maxAttempts,
        Budget budget, boolean cancelRequested, int nextStepNo, Optional<SavedCheckpoint> checkpoint,
        Optional<Resolution> resolution, String workflowInstanceId, String workflowStepId, String traceParent) {

    /** Without a trace parent (tests). */
    public RunSnapshot(EpisodeRef ref, String status, TriggerInfo trigger, int attempts, int maxAttempts,
            Budget budget, boolean cancelRequested, int nextStepNo, Optional<SavedCheckpoint> checkpoint,
            Optional<Resolution> resolution, String workflowInstanceId, String workflowStepId) {
        this(ref, status, trigger, attempts, maxAttempts, budget, cancelRequested, nextStepNo, checkpoint, resolution,
                workflowInstanceId, workflowStepId, null);
    }

    /** A saved strategy state. */
    public record SavedCheckpoint(int number, String phase, int schemaVersion, String state) {
    }

    /** An approval or wait resolved after the episode blocked, with the journal rows to check it against. */
    public record Resolution(String kind, JsonObject requested, JsonObject resolved) {
    }
}
