package io.cyclium.operations;

import io.cyclium.episode.EpisodeStepEntity;

import java.time.LocalDateTime;

/** One journal entry as pages and JSON bodies see it. {@code detail} is JSON text. */
public record StepView(int stepNo, String kind, String nodeIdentity, String detail, String errorClass,
        String sideEffectKey, Long costMs, LocalDateTime createdAt) {

    static StepView of(EpisodeStepEntity s) {
        return new StepView(s.stepNo, s.kind, s.nodeIdentity, s.detail, s.errorClass, s.sideEffectKey, s.costMs, s.createdAt);
    }
}
