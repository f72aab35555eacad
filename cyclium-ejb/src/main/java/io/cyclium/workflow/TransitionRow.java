package io.cyclium.workflow;

import java.time.LocalDateTime;

/** One journal entry: an instance transition (stepId null) or a step's, with its time, node and cause. */
public record TransitionRow(String stepId, String fromState, String toState, Integer attempt, String node, String cause,
        LocalDateTime at) {
}
