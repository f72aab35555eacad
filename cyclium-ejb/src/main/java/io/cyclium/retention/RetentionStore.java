package io.cyclium.retention;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Owns every write of the retention job. Each step reads candidate keys in key order after its
 * checkpoint ({@link #candidates}) and then changes them with one statement that re-states the
 * whole condition ({@link #apply}): a row that changed between the read and the write (an episode
 * restarted by an operator, a claim re-acquired, an output retried) is simply not touched, and a
 * chunk applied twice (a run resumed after a kill -9 from an older checkpoint) changes nothing the
 * second time. Ages are measured on the database clock, never a node's.
 */
public class RetentionStore {

    static final String TERMINAL = "('done', 'partially_failed', 'failed', 'canceled')";

    private final DatabaseVendor vendor;

    public RetentionStore(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    public DatabaseVendor vendor() {
        return vendor;
    }

    /** Up to {@code limit} keys the step would change, in key order, strictly after {@code after} (null: from the start). */
    @SuppressWarnings("unchecked")
    public List<String> candidates(EntityManager em, RetentionStep step, Duration window, String after, int limit) {
        NativeSql sql = new NativeSql().sql("SELECT " + keyColumn(step) + " FROM " + table(step) + " WHERE ");
        condition(sql, step, window);
        sql.sql(" AND " + keyColumn(step) + " > ").value(after == null ? "" : after);
        sql.sql(" ORDER BY " + keyColumn(step) + " ").around(limit, vendor::firstRows);
        return sql.query(em).getResultList();
    }

    /**
     * Archives, purges or prunes {@code keys} where the step's condition still holds.
     *
     * @return how many rows changed (fewer than {@code keys}: some no longer qualified)
     */
    public int apply(EntityManager em, RetentionStep step, Duration window, List<String> keys) {
        if (keys.isEmpty()) {
            return 0;
        }
        NativeSql sql = new NativeSql();
        if (step == RetentionStep.PRUNE_BULK_ACTIONS) {
            // the items first (no foreign key cascades to them), of those actions that still qualify:
            // a finished action never runs again, so the action delete below removes exactly these actions
            NativeSql items = new NativeSql().sql("DELETE FROM cyclium_bulk_items WHERE ").in("action_id", keys)
                    .sql(" AND action_id IN (SELECT id FROM cyclium_bulk_actions WHERE ");
            condition(items, step, window);
            items.sql(")").executeUpdate(em);
        }
        if (step == RetentionStep.ARCHIVE_EPISODES) {
            // archived_at IS NULL in the guard: an episode is archived once, its archived_at never moves
            sql.sql("UPDATE cyclium_episodes SET archived_at = " + vendor.utcNow() + ", updated_at = " + vendor.utcNow() + " WHERE ");
        } else {
            sql.sql("DELETE FROM " + table(step) + " WHERE ");
        }
        sql.in(keyColumn(step), keys).sql(" AND ");
        condition(sql, step, window);
        return sql.executeUpdate(em);
    }

    /**
     * After an archive step that wrote rows: fresh planner statistics for cyclium_episodes on
     * PostgreSQL. The purge step that follows re-states {@code archived_at IS NOT NULL AND
     * archived_at < …}; with statistics still saying no row is archived, PostgreSQL plans each
     * chunk's DELETE on (archived_at, id) expecting one row and walks every archived row to find the
     * chunk's ids (measured: 50 rows/s over 90,000 archived rows, 4,300 rows/s once analyzed).
     * ANALYZE samples the table (about a second at a million rows) and may run in a transaction.
     * Other databases: nothing (not observed there).
     */
    public void refreshStatisticsAfterArchive(EntityManager em) {
        if (vendor == DatabaseVendor.POSTGRESQL) {
            em.createNativeQuery("ANALYZE cyclium_episodes").executeUpdate();
        }
    }

    private void condition(NativeSql sql, RetentionStep step, Duration window) {
        long seconds = Math.max(0, window.toSeconds());
        switch (step) {
            case ARCHIVE_EPISODES -> sql.sql("archived_at IS NULL AND status IN " + TERMINAL + " AND finished_at < ")
                    .around(-seconds, vendor::utcNowPlusSeconds);
            // Steps, checkpoints, outputs and trigger requests go with the episode (ON DELETE CASCADE).
            // Kept: an episode with an output an operator may still retry (failed), or one being
            // delivered, and an episode whose finding is still active (its evidence links here).
            case PURGE_EPISODES -> sql.sql("archived_at IS NOT NULL AND archived_at < ").around(-seconds, vendor::utcNowPlusSeconds)
                    .sql(" AND NOT EXISTS (SELECT 1 FROM cyclium_outputs o WHERE o.episode_id = cyclium_episodes.id"
                            + " AND o.status IN ('failed', 'retrying', 'proposed'))"
                            + " AND NOT EXISTS (SELECT 1 FROM cyclium_findings f WHERE f.raised_by_episode_id = cyclium_episodes.id"
                            + " AND f.status = 'active')");
            // A live claim is never touched, whatever its age: only settled (done) and released (expired) ones.
            case PRUNE_CLAIMS -> sql.sql("state IN ('done', 'expired') AND COALESCE(finished_at, lease_until) < ")
                    .around(-seconds, vendor::utcNowPlusSeconds);
            case PRUNE_TRIGGER_REQUESTS -> sql.sql("status IN ('completed', 'expired') AND updated_at < ")
                    .around(-seconds, vendor::utcNowPlusSeconds);
            case PRUNE_AUDIT -> sql.sql("occurred_at < ").around(-seconds, vendor::utcNowPlusSeconds);
            // a running action is never touched, whatever its age (its node may be about to continue it)
            case PRUNE_BULK_ACTIONS -> sql.sql("status IN ('done', 'canceled') AND finished_at < ")
                    .around(-seconds, vendor::utcNowPlusSeconds);
            default -> throw new IllegalArgumentException(String.valueOf(step));
        }
    }

    static String table(RetentionStep step) {
        return switch (step) {
            case ARCHIVE_EPISODES, PURGE_EPISODES -> "cyclium_episodes";
            case PRUNE_CLAIMS -> "cyclium_work_claims";
            case PRUNE_TRIGGER_REQUESTS -> "cyclium_trigger_requests";
            case PRUNE_AUDIT -> "cyclium_audit";
            case PRUNE_BULK_ACTIONS -> "cyclium_bulk_actions";
        };
    }

    static String keyColumn(RetentionStep step) {
        return step == RetentionStep.PRUNE_CLAIMS ? "dedupe_key" : "id";
    }

    // --- runs and steps ---------------------------------------------------------------------

    /**
     * Inserts the run row for {@code runKey}; false when it exists already (the unique run_key
     * decides, not a read before the insert).
     */
    public boolean insertRun(EntityManager em, String id, String runKey, String triggerKind, String requestedBy, String node,
            Duration archiveAfter, Optional<Duration> purgeAfter) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("run_key", runKey);
        row.put("trigger_kind", triggerKind);
        row.put("requested_by", requestedBy);
        row.put("node_identity", node);
        row.put("status", RunStatus.RUNNING.wire());
        row.put("archive_after", archiveAfter.toString());
        row.put("purge_after", purgeAfter.map(Duration::toString).orElse(null));
        row.put("attempts", 1);
        row.put("started_at", NativeSql.raw(vendor.utcNow()));
        row.put("updated_at", NativeSql.raw(vendor.utcNow()));
        boolean inserted = io.cyclium.store.UniqueInsert.insert(em, vendor, "cyclium_retention_runs", id,
                new NativeSql().insert("cyclium_retention_runs", row));
        if (inserted) {
            for (RetentionStep step : RetentionStep.values()) {
                Map<String, Object> s = new LinkedHashMap<>();
                s.put("run_id", id);
                s.put("step_name", step.wire());
                s.put("status", RunStatus.PENDING.wire());
                s.put("read_count", 0L);
                s.put("written_count", 0L);
                s.put("chunks", 0L);
                new NativeSql().insert("cyclium_retention_steps", s).executeUpdate(em);
            }
        }
        return inserted;
    }

    /**
     * A node takes over an unfinished run (its previous runner died or failed): running again on
     * {@code node}, one more attempt. Guarded on the status it leaves, so a completed run is never
     * reopened. 0 rows: completed meanwhile.
     */
    public int resumeRun(EntityManager em, String runId, String node) {
        return new NativeSql().sql("UPDATE cyclium_retention_runs SET status = 'running', node_identity = ").value(node)
                .sql(", attempts = attempts + 1, ended_at = NULL, error_detail = NULL, updated_at = " + vendor.utcNow()
                        + " WHERE id = ").value(runId).sql(" AND status <> 'completed'").executeUpdate(em);
    }

    public int recordExecution(EntityManager em, String runId, long executionId) {
        return new NativeSql().sql("UPDATE cyclium_retention_runs SET batch_execution_id = ").value(executionId)
                .sql(", updated_at = " + vendor.utcNow() + " WHERE id = ").value(runId).executeUpdate(em);
    }

    /** running → completed or failed, only by the node running it. */
    public int finishRun(EntityManager em, String runId, String node, RunStatus status, String error) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_retention_runs SET status = ").value(status.wire())
                .sql(", ended_at = " + vendor.utcNow() + ", updated_at = " + vendor.utcNow());
        if (error != null) {
            sql.sql(", error_detail = ").value(error);
        }
        return sql.sql(" WHERE id = ").value(runId).sql(" AND status = 'running' AND node_identity = ").value(node)
                .executeUpdate(em);
    }

    public int startStep(EntityManager em, String runId, RetentionStep step, String node) {
        return new NativeSql().sql("UPDATE cyclium_retention_steps SET status = 'running', node_identity = ").value(node)
                .sql(", started_at = COALESCE(started_at, " + vendor.utcNow() + "), ended_at = NULL WHERE run_id = ").value(runId)
                .sql(" AND step_name = ").value(step.wire()).executeUpdate(em);
    }

    public int finishStep(EntityManager em, String runId, RetentionStep step, RunStatus status) {
        return new NativeSql().sql("UPDATE cyclium_retention_steps SET status = ").value(status.wire())
                .sql(", ended_at = " + vendor.utcNow() + " WHERE run_id = ").value(runId)
                .sql(" AND step_name = ").value(step.wire()).executeUpdate(em);
    }

    /**
     * Adds one chunk's counts and moves the step's checkpoint to {@code lastKey}. Called in the
     * transaction of the chunk's {@link #apply}, so the checkpoint never runs ahead of or behind the
     * rows actually changed.
     */
    public int recordChunk(EntityManager em, String runId, RetentionStep step, long read, long written, String lastKey) {
        return new NativeSql().sql("UPDATE cyclium_retention_steps SET read_count = read_count + ").value(read)
                .sql(", written_count = written_count + ").value(written)
                .sql(", chunks = chunks + 1, checkpoint_key = ").value(lastKey)
                .sql(" WHERE run_id = ").value(runId).sql(" AND step_name = ").value(step.wire()).executeUpdate(em);
    }

    /** The step's checkpoint: the last key a committed chunk handled (empty: none yet). */
    @SuppressWarnings("unchecked")
    public Optional<String> checkpoint(EntityManager em, String runId, RetentionStep step) {
        List<Object> rows = new NativeSql().sql("SELECT checkpoint_key FROM cyclium_retention_steps WHERE run_id = ").value(runId)
                .sql(" AND step_name = ").value(step.wire()).query(em).getResultList();
        return rows.isEmpty() || rows.get(0) == null ? Optional.empty() : Optional.of(rows.get(0).toString());
    }
}
