package io.cyclium.finding;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.LocalDateTime;

/** A finding row; the generated unique_key column (H2, MariaDB) is computed by the database and not mapped. */
@Entity
@Table(name = "cyclium_findings")
public class FindingEntity {

    @Id
    @Column(name = "id", length = 36)
    public String id;

    @Column(name = "finding_key", nullable = false)
    public String findingKey;

    @Column(name = "env")
    public String env;

    @Column(name = "status", nullable = false)
    public String status;

    @Column(name = "finding_class", nullable = false)
    public String findingClass;

    @Column(name = "severity", nullable = false)
    public String severity;

    @Column(name = "actor_id", nullable = false)
    public String actorId;

    @Column(name = "expectation_id")
    public String expectationId;

    @Column(name = "subject_kind")
    public String subjectKind;

    @Column(name = "subject_id")
    public String subjectId;

    @Column(name = "summary")
    public String summary;

    @Column(name = "evidence")
    public String evidence;

    @Column(name = "confidence")
    public Double confidence;

    @Column(name = "caused_by_key")
    public String causedByKey;

    @Column(name = "raised_by_episode_id", nullable = false)
    public String raisedByEpisodeId;

    @Column(name = "cleared_by_episode_id")
    public String clearedByEpisodeId;

    @Column(name = "raised_at", nullable = false)
    public LocalDateTime raisedAt;

    @Column(name = "updated_at", nullable = false)
    public LocalDateTime updatedAt;

    @Column(name = "cleared_at")
    public LocalDateTime clearedAt;

    @Column(name = "expires_at")
    public LocalDateTime expiresAt;

    @Column(name = "archived_at")
    public LocalDateTime archivedAt;

    @Column(name = "cleared_reason")
    public String clearedReason;
}
