package io.cyclium.workflow;

import java.time.LocalDateTime;
import java.util.List;

/** An instance in a list: where it stands, the definition version it runs and, once finished, its statistics. */
public record InstanceView(String id, String workflowId, String status, String subject, String outcome,
        String sourceStack, String sourceEnv, LocalDateTime startedAt, LocalDateTime finishedAt, String blockedReason,
        String errorDetail, Long durationMs, Integer stepsRun, Integer attempts, Integer retries,
        List<String> criticalPath, long definitionVersion) {

    static InstanceView of(InstanceRow r) {
        return new InstanceView(r.id(), r.workflowId(), r.status(), r.subject(), r.targetStep(), r.sourceStack(),
                r.sourceEnv(), r.startedAt(), r.finishedAt(), r.blockedReason(), r.errorDetail(), r.durationMs(), r.stepsRun(),
                r.attemptsTotal(), r.retriesTotal(),
                r.criticalPath() == null || r.criticalPath().isBlank() ? List.of() : List.of(r.criticalPath().split(",")),
                r.definitionVersion());
    }
}
