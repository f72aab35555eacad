package io.cyclium.output;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.LocalDateTime;

/** An output row; its unique dedupe_key is the exactly-once gate. */
@Entity
@Table(name = "cyclium_outputs")
public class OutputEntity {

    @Id
    @Column(name = "id", length = 36)
    public String id;

    @Column(name = "episode_id", nullable = false)
    public String episodeId;

    @Column(name = "output_type", nullable = false)
    public String outputType;

    @Column(name = "dedupe_key", nullable = false)
    public String dedupeKey;

    @Column(name = "status", nullable = false)
    public String status;

    @Column(name = "payload")
    public String payload;

    @Column(name = "delivered_ref")
    public String deliveredRef;

    @Column(name = "error_class")
    public String errorClass;

    @Column(name = "error_detail")
    public String errorDetail;

    @Column(name = "attempts", nullable = false)
    public int attempts;

    @Column(name = "created_at", nullable = false)
    public LocalDateTime createdAt;

    @Column(name = "updated_at", nullable = false)
    public LocalDateTime updatedAt;

    @Column(name = "delivered_at")
    public LocalDateTime deliveredAt;
}
