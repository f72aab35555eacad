package io.cyclium.finding;

import io.cyclium.store.JsonText;
import jakarta.json.JsonObject;
import java.time.LocalDateTime;

/** What pages and JSON bodies see of a finding. Times are UTC. */
public record FindingView(
        String id,
        String findingKey,
        String env,
        String status,
        String findingClass,
        String severity,
        String actorId,
        String subjectKind,
        String subjectId,
        String summary,
        String raisedByEpisodeId,
        String clearedByEpisodeId,
        LocalDateTime raisedAt,
        LocalDateTime updatedAt,
        LocalDateTime clearedAt,
        LocalDateTime expiresAt,
        JsonObject evidence,
        Double confidence,
        String causedByKey,
        String clearedReason) {

    public static FindingView of(FindingEntity f) {
        return new FindingView(f.id, f.findingKey, f.env, f.status, f.findingClass, f.severity, f.actorId,
                f.subjectKind, f.subjectId, f.summary, f.raisedByEpisodeId, f.clearedByEpisodeId, f.raisedAt,
                f.updatedAt, f.clearedAt, f.expiresAt, f.evidence == null ? null : JsonText.parseObject(f.evidence),
                f.confidence, f.causedByKey, f.clearedReason);
    }
}
