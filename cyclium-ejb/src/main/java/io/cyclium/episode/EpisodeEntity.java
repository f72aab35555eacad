package io.cyclium.episode;


import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.LocalDateTime;

/**
 * An episode row. The generated {@code active_dedupe_key} column (H2, MariaDB) is deliberately not
 * mapped: the database computes it and refuses writes to it. Never leaves the runtime: pages and
 * JSON bodies get view records.
 */
@Entity
@Table(name = "cyclium_episodes")
public class EpisodeEntity {

    @Id
    @Column(name = "id", length = 36)
    public String id;

    @Column(name = "actor_id", nullable = false)
    public String actorId;

    @Column(name = "expectation_id", nullable = false)
    public String expectationId;

    @Column(name = "spec_rev")
    public String specRev;

    @Column(name = "trigger_type", nullable = false)
    public String triggerType;

    @Column(name = "trigger_ref")
    public String triggerRef;

    @Column(name = "dedupe_key")
    public String dedupeKey;

    @Column(name = "status", nullable = false)
    public String status;

    @Column(name = "phase")
    public String phase;

    @Column(name = "mode", nullable = false)
    public String mode = "live";

    @Column(name = "attempts", nullable = false)
    public int attempts;

    @Column(name = "max_attempts", nullable = false)
    public int maxAttempts = 3;

    @Column(name = "turns_used", nullable = false)
    public int turnsUsed;

    @Column(name = "budget")
    public String budget;

    @Column(name = "run_node")
    public String runNode;

    @Column(name = "cancel_requested", nullable = false)
    public boolean cancelRequested;

    @Column(name = "summary")
    public String summary;

    @Column(name = "error_class")
    public String errorClass;

    @Column(name = "error_detail")
    public String errorDetail;

    @Column(name = "workflow_instance_id")
    public String workflowInstanceId;

    @Column(name = "workflow_step_id")
    public String workflowStepId;

    @Column(name = "source_stack")
    public String sourceStack;

    @Column(name = "source_env")
    public String sourceEnv;

    @Column(name = "metadata")
    public String metadata;

    /** The version of its expectation it started with (V16); null when unversioned. */
    @Column(name = "expectation_version")
    public String expectationVersion;

    /**
     * Why recovery leaves this orphaned episode waiting (V16): the version it started with is not
     * deployed on the nodes that swept it. Cleared when a node claims it for recovery.
     */
    @Column(name = "recovery_waiting")
    public String recoveryWaiting;

    /** W3C traceparent a run of this episode starts its span under (V15); null when tracing was off. */
    @Column(name = "trace_parent")
    public String traceParent;

    @Column(name = "concurrency_key")
    public String concurrencyKey;

    @Column(name = "priority")
    public Integer priority;

    /** A workflow step's own concurrency limit (V21): scope "workflow:&lt;workflow&gt;/&lt;step&gt;", key, limit; null otherwise. */
    @Column(name = "step_key_scope")
    public String stepKeyScope;

    @Column(name = "step_key")
    public String stepKey;

    @Column(name = "step_key_limit")
    public Integer stepKeyLimit;

    @Column(name = "queued_at")
    public LocalDateTime queuedAt;

    @Column(name = "started_at", nullable = false)
    public LocalDateTime startedAt;

    @Column(name = "finished_at")
    public LocalDateTime finishedAt;

    @Column(name = "archived_at")
    public LocalDateTime archivedAt;

    @Column(name = "updated_at", nullable = false)
    public LocalDateTime updatedAt;
}
