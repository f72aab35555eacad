package io.cyclium.episode;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.LocalDateTime;
import java.util.Objects;

/** One journal entry. (episode_id, step_no) is the key, so two writers cannot record the same step. */
@Entity
@Table(name = "cyclium_episode_steps")
@IdClass(EpisodeStepEntity.Key.class)
public class EpisodeStepEntity {

    @Id
    @Column(name = "episode_id", length = 36)
    public String episodeId;

    @Id
    @Column(name = "step_no")
    public int stepNo;

    @Column(name = "kind", nullable = false)
    public String kind;

    @Column(name = "node_identity")
    public String nodeIdentity;

    @Column(name = "detail")
    public String detail;

    @Column(name = "error_class")
    public String errorClass;

    @Column(name = "side_effect_key")
    public String sideEffectKey;

    @Column(name = "cost_ms")
    public Long costMs;

    @Column(name = "created_at", nullable = false)
    public LocalDateTime createdAt;

    public static class Key implements Serializable {
        public String episodeId;
        public int stepNo;

        public Key() {
        }

        public Key(String episodeId, int stepNo) {
            this.episodeId = episodeId;
            this.stepNo = stepNo;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.stepNo == stepNo && Objects.equals(k.episodeId, episodeId);
        }

        @Override
        public int hashCode() {
            return Objects.hash(episodeId, stepNo);
        }
    }
}
