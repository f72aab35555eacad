package io.cyclium.episode;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.LocalDateTime;
import java.util.Objects;

/** A saved strategy state (JSON) with the schema version it was written under. */
@Entity
@Table(name = "cyclium_episode_checkpoints")
@IdClass(CheckpointEntity.Key.class)
public class CheckpointEntity {

    @Id
    @Column(name = "episode_id", length = 36)
    public String episodeId;

    @Id
    @Column(name = "checkpoint_no")
    public int checkpointNo;

    @Column(name = "phase", nullable = false)
    public String phase;

    @Column(name = "schema_version", nullable = false)
    public int schemaVersion;

    @Column(name = "state", nullable = false)
    public String state;

    @Column(name = "created_at", nullable = false)
    public LocalDateTime createdAt;

    public static class Key implements Serializable {
        public String episodeId;
        public int checkpointNo;

        public Key() {
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.checkpointNo == checkpointNo && Objects.equals(k.episodeId, episodeId);
        }

        @Override
        public int hashCode() {
            return Objects.hash(episodeId, checkpointNo);
        }
    }
}
