package io.cyclium.workflow;

import java.time.LocalDateTime;
import java.util.List;

/**
 * A step of an instance: its place in the DAG (dependencies, critical, approval gate), its state,
 * attempt and next retry time, and the episode of its current attempt.
 */
public record StepView(String stepId, String actor, String expectation, List<String> dependsOn, boolean critical,
        boolean approval, String state, int attempt, int maxAttempts, LocalDateTime nextAttemptAt,
        LocalDateTime approvedAt, String episodeId, LocalDateTime queuedAt, LocalDateTime startedAt,
        LocalDateTime finishedAt, long runMs, String errorClass) {

    static StepView of(StepRow r, StepDefinition d) {
        return of(r, d, false);
    }

    /** {@code started}: stored as queued, but its episode has started ({@link WorkflowQueries#queuedButStarted}): shown running. */
    static StepView of(StepRow r, StepDefinition d, boolean started) {
        String state = started && StepState.QUEUED.equals(r.state()) ? StepState.RUNNING : r.state();
        return new StepView(r.stepId(), d == null ? null : d.actor(), d == null ? null : d.expectation(),
                d == null ? List.of() : d.dependsOn(), r.critical(), d != null && d.approval(), state, r.attempt(),
                r.maxAttempts(), r.nextAttemptAt(), r.approvedAt(), r.episodeId(), r.queuedAt(), r.startedAt(),
                r.finishedAt(), r.runMs(), r.errorClass());
    }
}
