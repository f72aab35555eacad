package io.cyclium.recovery;

import io.cyclium.store.Jsons;
import io.cyclium.episode.EpisodeStore;

import io.cyclium.episode.StepKind;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.List;

/**
 * Owns the recovery and drain SQL on episodes: finding orphans, the recovery claim on the episode
 * row (a compare-and-set on {@code attempts}), failing orphans, and the drain's set-based stamps.
 */
public class RecoveryStore {

    public static final String INTERRUPTED = EpisodeStore.INTERRUPTED_PHASE;
    public static final String RECOVERING = "recovering";
    public static final String RESUME_DUE = EpisodeStore.RESUME_DUE_PHASE;

    private final DatabaseVendor vendor;

    public RecoveryStore(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    /**
     * Running episodes whose newest sign of life — journal entry, start, or last update — is older
     * than {@code staleAfterSeconds} on the database clock and that no live node holds in its queue,
     * or that a drain stamped interrupted.
     */
    public List<Orphan> listOrphans(EntityManager em, long staleAfterSeconds, SweepScope scope, int limit) {
        return listOrphans(em, staleAfterSeconds, scope, limit, null);
    }

    /**
     * {@link #listOrphans(EntityManager, long, SweepScope, int)} after {@code after} in the order
     * (started_at, id): a sweep goes on where the previous full batch ended, so orphans it has to
     * skip (their actor runs nowhere yet, a lease still live) do not hide every newer one.
     */
    @SuppressWarnings("unchecked")
    public List<Orphan> listOrphans(EntityManager em, long staleAfterSeconds, SweepScope scope, int limit, Orphan after) {
        NativeSql sql = new NativeSql().sql("SELECT e.id, e.actor_id, e.expectation_id, e.dedupe_key, e.attempts,"
                + " e.max_attempts, e.phase, e.source_stack, e.source_env, e.workflow_instance_id, e.workflow_step_id,"
                + " e.updated_at, e.started_at, CASE WHEN EXISTS (SELECT 1 FROM cyclium_episode_steps r WHERE"
                + " r.episode_id = e.id AND r.kind NOT IN ('" + StepKind.INTERRUPTED + "', '" + StepKind.RESUMED + "', '"
                + StepKind.RESTARTED + "')) THEN 1 ELSE 0 END, e.expectation_version"
                + " FROM cyclium_episodes e WHERE e.status = 'running' AND e.archived_at IS NULL AND (e.phase = '"
                + INTERRUPTED + "' OR (e.phase = '" + RESUME_DUE + "' AND e.run_node IS NULL) OR GREATEST(COALESCE((SELECT MAX(s.created_at) FROM cyclium_episode_steps s"
                + " WHERE s.episode_id = e.id), e.started_at), e.updated_at) < ")
                .around(-staleAfterSeconds, vendor::utcNowPlusSeconds).sql(")")
                // A queued episode waits in a live node's memory: vouched for by that node's row
                // (last_seen, written every heartbeat) as long as the node was queued into by this
                // life of it — queued_at not before the node row's started_at, which every boot
                // rewrites. A restarted node never vouches for its predecessor's queue, which died
                // with the old process. (Both times are the database's.)
                // A drain's stamp (interrupted) overrides it: the node is going away.
                .sql(" AND NOT (e.queued_at IS NOT NULL AND COALESCE(e.phase, '') <> '" + INTERRUPTED + "'"
                        + " AND EXISTS (SELECT 1 FROM cyclium_nodes n"
                        + " WHERE n.node_identity = e.run_node AND n.started_at <= e.queued_at AND n.last_seen >= ")
                .around(-staleAfterSeconds, vendor::utcNowPlusSeconds).sql("))")
                // A deferred episode whose trigger request is still pending is waiting for a full
                // node, not orphaned: the poller runs it (or the request expires, and then it is).
                .sql(" AND NOT EXISTS (SELECT 1 FROM cyclium_trigger_requests r WHERE r.episode_id = e.id"
                        + " AND r.status = 'pending')");
        if (!scope.anyStack()) {
            sql.sql(" AND (e.source_stack IS NULL OR ").is("e.source_stack", scope.stack()).sql(")");
        }
        sql.sql(" AND ").is("e.source_env", scope.env());
        if (after != null && after.startedAt() != null) {
            sql.sql(" AND (e.started_at > ").value(after.startedAt()).sql(" OR (e.started_at = ").value(after.startedAt())
                    .sql(" AND e.id > ").value(after.id()).sql("))");
        }
        sql.sql(" ORDER BY e.started_at, e.id");
        List<Object[]> rows = sql.query(em).setMaxResults(limit).getResultList();
        List<Orphan> out = new ArrayList<>();
        for (Object[] r : rows) {
            out.add(new Orphan((String) r[0], (String) r[1], (String) r[2], (String) r[3], ((Number) r[4]).intValue(),
                    ((Number) r[5]).intValue(), (String) r[6], (String) r[7], (String) r[8], (String) r[9], (String) r[10], r[11],
                    r[12], ((Number) r[13]).intValue() == 1, (String) r[14]));
        }
        return out;
    }

    /**
     * The recovery claim on the episode row: one UPDATE that re-states the attempts and the
     * {@code updated_at} it read (every claim moves {@code updated_at} on), so of two nodes sweeping
     * at once exactly one gets 1 row. 0 rows: another node claimed it first, or it moved on.
     *
     * <p>It does not count an attempt: the phase {@code recovering} does, when a task actually
     * starts the episode ({@link io.cyclium.episode.EpisodeStore#claimRun}). A node that dies with
     * the recovered episode still in its queue has not spent one of the episode's attempts.
     */
    public int claimForRecovery(EntityManager em, Orphan o) {
        return new NativeSql().sql("UPDATE cyclium_episodes SET phase = '" + RECOVERING + "', run_node = NULL,"
                        + " recovery_waiting = NULL, updated_at = "
                        + vendor.utcNow() + " WHERE id = ").value(o.id())
                .sql(" AND status = 'running' AND archived_at IS NULL AND attempts = ").value(o.attempts())
                .sql(" AND updated_at = ").value(o.updatedAt())
                .executeUpdate(em);
    }

    /**
     * Says on a running orphan why recovery leaves it waiting ({@code recovery_waiting}), unless it
     * says so already. Leaves {@code updated_at} alone: the row's staleness and the recovery claim's
     * compare-and-set read it, and a waiting episode must stay an orphan for the node that can
     * resume it. 0 rows: it says so already, or it moved on.
     */
    public int markWaiting(EntityManager em, String episodeId, String reason) {
        return new NativeSql().sql("UPDATE cyclium_episodes SET recovery_waiting = ").value(reason)
                .sql(" WHERE id = ").value(episodeId).sql(" AND status = 'running' AND (recovery_waiting IS NULL"
                        + " OR recovery_waiting <> ").value(reason).sql(")").executeUpdate(em);
    }

    /** Fails a claimed orphan and closes its journal like the runner does. 0 rows: it moved on. */
    public int failOrphan(EntityManager em, String episodeId, String node, String reason) {
        int n = new NativeSql().sql("UPDATE cyclium_episodes SET status = 'failed', error_class = 'orphaned', error_detail = ")
                .value(reason).sql(", phase = NULL, finished_at = " + vendor.utcNow() + ", updated_at = " + vendor.utcNow()
                        + " WHERE id = ").value(episodeId).sql(" AND status = 'running' AND phase = '" + RECOVERING + "'")
                .executeUpdate(em);
        if (n == 1) {
            journalNext(em, episodeId, StepKind.EPISODE_FAILED, node,
                    Jsons.object().add("errorClass", "orphaned").add("reason", reason).build().toString(), "orphaned");
        }
        return n;
    }

    /**
     * Gives a claimed orphan back (its actor left this node meanwhile): phase back to interrupted,
     * or to resume due when it was that; no attempt was spent.
     */
    public int unclaim(EntityManager em, String episodeId, String phaseBefore) {
        String back = RESUME_DUE.equals(phaseBefore) ? RESUME_DUE : INTERRUPTED;
        return new NativeSql().sql("UPDATE cyclium_episodes SET phase = '" + back + "', updated_at = "
                + vendor.utcNow() + " WHERE id = ").value(episodeId).sql(" AND status = 'running' AND phase = '" + RECOVERING + "'")
                .executeUpdate(em);
    }

    private void journalNext(EntityManager em, String episodeId, String kind, String node, String detail, String errorClass) {
        new NativeSql().sql("INSERT INTO cyclium_episode_steps (episode_id, step_no, kind, node_identity, detail, error_class,"
                        + " created_at) SELECT ").value(episodeId).sql(", COALESCE(MAX(step_no), 0) + 1, ").value(kind)
                .sql(", ").value(node).sql(", ").value(detail).sql(", ").value(errorClass)
                .sql(", " + vendor.utcNow() + " FROM cyclium_episode_steps WHERE episode_id = ").value(episodeId)
                .executeUpdate(em);
    }

    /**
     * Rows marked queued on {@code node} for longer than {@code graceSeconds} on the database clock,
     * oldest first (the heartbeat's {@link QueueAudit}).
     */
    @SuppressWarnings("unchecked")
    public List<String> queuedOn(EntityManager em, String node, long graceSeconds, int limit) {
        return new NativeSql().sql("SELECT id FROM cyclium_episodes WHERE run_node = ").value(node)
                .sql(" AND status = 'running' AND queued_at IS NOT NULL AND queued_at < ")
                .around(-graceSeconds, vendor::utcNowPlusSeconds)
                .sql(" ORDER BY queued_at").query(em).setMaxResults(limit).getResultList();
    }

    // ---- drain -------------------------------------------------------------------------------

    /**
     * Stamps this node's running episodes interrupted. Two statements: the ids (a plain read, no
     * locks), then an UPDATE by primary key. A tasks's own transition locks its episode row by
     * primary key and then changes secondary index entries (status); an UPDATE that found the rows
     * through a secondary index (run_node) would hold those entries while waiting for the row — on
     * InnoDB that is a deadlock with every task finishing under the drain. By primary key, the
     * drain only ever waits for rows, as the tasks do.
     */
    public int stampInterrupted(EntityManager em, String node) {
        @SuppressWarnings("unchecked")
        // PostgreSQL: the rows locked here first, in the order of their lease keys (EpisodeClaimKey), the
        // order in which a group commit's batch of finishes takes the same rows (DeferredUpdates.inLockOrder):
        // a batch still settling while the node drains then waits for the drain or the other way round,
        // never both. (MariaDB breaks such a cycle at once; the drain runs again, see NodeDrain.)
        List<String> ids = new NativeSql().sql("SELECT id FROM cyclium_episodes WHERE run_node = ").value(node)
                .sql(" AND status = 'running'" + (vendor == DatabaseVendor.POSTGRESQL
                        ? " ORDER BY COALESCE(dedupe_key, 'episode:' || id) COLLATE \"C\" FOR UPDATE" : " ORDER BY id"))
                .query(em).getResultList();
        if (ids.isEmpty()) {
            return 0;
        }
        // an episode an operator ordered to resume keeps saying so (recovery resumes it whatever its policy)
        return new NativeSql().sql("UPDATE cyclium_episodes SET phase = CASE WHEN phase = '" + RESUME_DUE + "' THEN phase ELSE '"
                + INTERRUPTED + "' END, updated_at = " + vendor.utcNow() + " WHERE ").in("id", ids).sql(" AND run_node = ").value(node).sql(" AND status = 'running'").executeUpdate(em);
    }

    /**
     * Journals one {@code interrupted} marker per stamped episode (one statement). A task still
     * writing its own step at this instant can take the same step number; the caller then falls
     * back to {@link #markInterruptedOneByOne}.
     */
    public int markInterrupted(EntityManager em, String node) {
        return new NativeSql().sql("INSERT INTO cyclium_episode_steps (episode_id, step_no, kind, node_identity, detail, created_at)"
                        + " SELECT e.id, COALESCE((SELECT MAX(s.step_no) FROM cyclium_episode_steps s WHERE s.episode_id = e.id), 0) + 1, '"
                        + StepKind.INTERRUPTED + "', ").value(node)
                .sql(", '{\"event\":\"interrupted\",\"reason\":\"drain\"}', " + vendor.utcNow()
                        + " FROM cyclium_episodes e WHERE e.run_node = ").value(node)
                .sql(" AND e.status = 'running' AND e.phase = '" + INTERRUPTED + "'")
                .executeUpdate(em);
    }

    @SuppressWarnings("unchecked")
    public List<String> interruptedOn(EntityManager em, String node) {
        return new NativeSql().sql("SELECT id FROM cyclium_episodes WHERE run_node = ").value(node)
                .sql(" AND status = 'running' AND phase = '" + INTERRUPTED + "'").query(em).getResultList();
    }

    public void markInterruptedOne(EntityManager em, String episodeId, String node) {
        journalNext(em, episodeId, StepKind.INTERRUPTED, node, "{\"event\":\"interrupted\",\"reason\":\"drain\"}", null);
    }

    /** Records that this node stopped (console). */
    public void nodeStopped(EntityManager em, String node) {
        new NativeSql().sql("UPDATE cyclium_nodes SET stopped_at = " + vendor.utcNow() + ", last_seen = " + vendor.utcNow()
                + " WHERE node_identity = ").value(node).executeUpdate(em);
    }
}
