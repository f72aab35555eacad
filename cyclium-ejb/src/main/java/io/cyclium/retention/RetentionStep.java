package io.cyclium.retention;

import java.util.Arrays;
import java.util.Optional;

/**
 * The chunk steps of the retention job, in the order the job runs them. The wire name is the
 * step id in {@code META-INF/batch-jobs/cyclium-retention.xml} and the {@code step_name} in
 * {@code cyclium_retention_steps}.
 */
public enum RetentionStep {
    /** Terminal episodes finished longer ago than archive-after get archived_at: their keys leave the unique index. */
    ARCHIVE_EPISODES("archive-episodes"),
    /** Archived episodes older than purge-after are deleted with steps, checkpoints, outputs, requests. */
    PURGE_EPISODES("purge-episodes"),
    /** done/expired work claims settled longer ago than claims-after are deleted. */
    PRUNE_CLAIMS("prune-claims"),
    /** completed/expired trigger requests last changed longer ago than requests-after are deleted. */
    PRUNE_TRIGGER_REQUESTS("prune-trigger-requests"),
    /** audit rows (operator actions) older than audit-after are deleted. */
    PRUNE_AUDIT("prune-audit"),
    /** finished (done or canceled) bulk actions older than purge-after are deleted with their items. */
    PRUNE_BULK_ACTIONS("prune-bulk-actions");

    private final String wire;

    RetentionStep(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<RetentionStep> parse(String wire) {
        return Arrays.stream(values()).filter(s -> s.wire.equals(wire)).findFirst();
    }
}
