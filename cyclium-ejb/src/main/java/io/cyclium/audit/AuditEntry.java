package io.cyclium.audit;

import java.util.Objects;

/**
 * One operator action about to be recorded: its row id (minted before the action runs, so a
 * failure can ask whether the row committed), who, on which node, what and on what.
 * {@code episodeId} names the episode an action on another subject concerns (an output's).
 */
public record AuditEntry(String id, Operator operator, String node, AuditAction action, String subjectId, String episodeId,
        String detail) {

    public AuditEntry {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(action, "action");
    }

    public static AuditEntry of(Operator operator, String node, AuditAction action, String subjectId) {
        return new AuditEntry(java.util.UUID.randomUUID().toString(), operator, node, action, subjectId,
                action.subject() == SubjectKind.EPISODE ? subjectId : null, null);
    }

    public AuditEntry withSubject(String id) {
        return new AuditEntry(this.id, operator, node, action, id, action.subject() == SubjectKind.EPISODE ? id : episodeId, detail);
    }

    public AuditEntry withEpisode(String episode) {
        return new AuditEntry(id, operator, node, action, subjectId, episode, detail);
    }

    public AuditEntry withDetail(String text) {
        return new AuditEntry(id, operator, node, action, subjectId, episodeId, text);
    }
}
