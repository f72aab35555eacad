package io.cyclium.workflow;

import jakarta.json.JsonObject;
import java.time.LocalDateTime;

/**
 * One stored instance as the engine reads it (times UTC); {@code traceParent} is its span, the parent
 * of its steps' episodes (null when tracing was off); {@code definitionVersion} the version of its
 * workflow's definition it started with and runs to the end (0: whichever is current, for an
 * instance of a definition that was never stored, as in engine tests).
 */
public record InstanceRow(String id, String workflowId, String status, String subject, JsonObject payload,
        String targetStep, String sourceStack, String sourceEnv, long version, LocalDateTime startedAt,
        LocalDateTime finishedAt, String blockedReason, String errorDetail, Long durationMs, Integer stepsRun,
        Integer attemptsTotal, Integer retriesTotal, String criticalPath, String stats, String traceParent,
        long definitionVersion) {

    /** This row as a guarded move to {@code to} left it (the version raised by one), for an engine holding the row. */
    InstanceRow movedTo(String to) {
        return new InstanceRow(id, workflowId, to, subject, payload, targetStep, sourceStack, sourceEnv, version + 1, startedAt,
                finishedAt, blockedReason, errorDetail, durationMs, stepsRun, attemptsTotal, retriesTotal, criticalPath, stats,
                traceParent, definitionVersion);
    }

    public boolean inFlight() {
        return InstanceStatus.IN_FLIGHT.contains(status);
    }
}
