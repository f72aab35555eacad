package io.cyclium.workflow;

import java.time.LocalDateTime;
import java.util.List;

/**
 * A step of an instance: its place in the DAG (dependencies, critical, approval gate), its state,
 * attempt and next retry time, and the episode of its current attempt. {@code concurrencyKey} and
 * {@code concurrencyLimit} are the step's own key (its input's field) and limit (null, 0: none);
 * {@code queuedBecause} says why its queued episode has not started ("step review/charge key tenant-a at
 * limit 1/1"), null when it is not held back by a limit.
 */
public record StepView(String stepId, String actor, String expectation, List<String> dependsOn, boolean critical,
        boolean approval, String state, int attempt, int maxAttempts, LocalDateTime nextAttemptAt,
        LocalDateTime approvedAt, String episodeId, LocalDateTime queuedAt, LocalDateTime startedAt,
        LocalDateTime finishedAt, long runMs, String errorClass, String concurrencyKey, int concurrencyLimit,
        String queuedBecause) {

    static StepView of(StepRow r, StepDefinition d) {
        return of(r, d, false, null);
    }

    /**
     * {@code started}: stored as queued, but its episode has started ({@link WorkflowQueries#queuedButStarted}):
     * shown running. {@code queuedBecause}: why its queued episode waits (null: it does not wait for a limit).
     */
    static StepView of(StepRow r, StepDefinition d, boolean started, String waiting) {
        String state = started && StepState.QUEUED.equals(r.state()) ? StepState.RUNNING : r.state();
        return new StepView(r.stepId(), d == null ? null : d.actor(), d == null ? null : d.expectation(),
                d == null ? List.of() : d.dependsOn(), r.critical(), d != null && d.approval(), state, r.attempt(),
                r.maxAttempts(), r.nextAttemptAt(), r.approvedAt(), r.episodeId(), r.queuedAt(), r.startedAt(),
                r.finishedAt(), r.runMs(), r.errorClass(), d == null ? null : d.concurrencyKey(),
                d == null ? 0 : d.concurrencyLimit(), started ? null : waiting);
    }
}
