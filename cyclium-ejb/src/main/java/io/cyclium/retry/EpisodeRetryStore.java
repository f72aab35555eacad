package io.cyclium.retry;

import io.cyclium.episode.EpisodeStatus;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.time.Duration;

/**
 * The guarded writes of plain-episode retries on {@code cyclium_episodes} (V8). Each is a
 * state-checked UPDATE; zero rows means another node (or an earlier call) already did it, which is
 * normal. Every due time is written and compared on the database's clock ({@link DatabaseTime}),
 * as leases are: a node whose clock runs ahead would otherwise start every node's retries early.
 */
public class EpisodeRetryStore {

    private final DatabaseTime time;

    public EpisodeRetryStore(DatabaseTime time) {
        this.time = time;
    }

    public DatabaseVendor vendor() {
        return time.vendor();
    }

    public DatabaseTime time() {
        return time;
    }

    /**
     * Marks a failed episode as waiting for its next attempt {@code retryIn} from now. Only once: a failed row
     * that already has a due time, or was already retried, or is archived, is left alone (the
     * EpisodeFinished of one failure may be heard twice, e.g. after a replay).
     */
    public int schedule(EntityManager em, String episodeId, Duration retryIn) {
        return time.plusMillis(new NativeSql().sql("UPDATE cyclium_episodes SET retry_due_at = "), retryIn.toMillis())
                .sql(" WHERE id = ").value(episodeId).sql(" AND status = ").value(EpisodeStatus.FAILED.wire())
                .sql(" AND retry_due_at IS NULL AND retried_by IS NULL AND archived_at IS NULL").executeUpdate(em);
    }

    /**
     * An operator's retry: the failed plain episode's next attempt is due now, whatever its policy
     * decided before (a later due time, or none because its attempts were used up). Only a failed,
     * not yet retried, not archived episode outside a workflow; 0 rows otherwise (or when a timer
     * claimed it meanwhile).
     */
    public int dueNow(EntityManager em, String episodeId) {
        NativeSql sql = time.now(new NativeSql().sql("UPDATE cyclium_episodes SET retry_due_at = "));
        return sql.sql(" WHERE id = ").value(episodeId).sql(" AND status = ").value(EpisodeStatus.FAILED.wire())
                .sql(" AND workflow_instance_id IS NULL AND retried_by IS NULL AND archived_at IS NULL").executeUpdate(em);
    }

    /**
     * What {@code retried_by} holds while a timer is starting the next attempt (between its claim
     * and {@link #settle}): not an episode id, so it is never shown as one. While it is there an
     * operator's restart of the failed episode is refused ({@code EpisodeStore#restart} needs
     * {@code retried_by IS NULL}), and once the restart has won, the claim matches nothing (it needs
     * the row failed): the two are one transition of the same row, so exactly one of them runs.
     */
    public static final String CLAIMED = "(claimed)";

    /**
     * Claims a due retry for this node: moves its due time {@code lease} ahead and marks it
     * {@link #CLAIMED}, only while it is still due ({@code retry_due_at <= now}). Of two timers
     * racing, the first UPDATE moves the time past {@code now} and the second matches no row. A node
     * that dies after claiming leaves a due time that comes round again when that lease ends, when
     * another node claims it again (the mark is its own) and starts it; the next attempt's
     * deterministic dedupe key makes that second start a duplicate if the first got through.
     */
    public int claim(EntityManager em, String episodeId, Duration lease) {
        // status: an operator may have restarted the failed episode meanwhile; then it is not retried.
        // archived_at: retention may have archived it since the timer read it as due; archived work
        // is history and never runs again (its dedupe key is free, so the trigger may start it anew).
        NativeSql sql = time.plusMillis(new NativeSql().sql("UPDATE cyclium_episodes SET retry_due_at = "), lease.toMillis())
                .sql(", retried_by = ").value(CLAIMED).sql(" WHERE id = ").value(episodeId).sql(" AND retry_due_at <= ");
        return time.now(sql).sql(" AND (retried_by IS NULL OR retried_by = ").value(CLAIMED).sql(") AND status = ")
                .value(EpisodeStatus.FAILED.wire()).sql(" AND archived_at IS NULL").executeUpdate(em);
    }

    /**
     * The claimer created nothing (the actor does not run on its node, the breaker is open): the
     * mark goes, so an operator may restart the episode meanwhile; the due time stays at the lease's
     * end, when any node's timer tries again.
     */
    public int release(EntityManager em, String episodeId) {
        return em.createNativeQuery("UPDATE cyclium_episodes SET retried_by = NULL WHERE id = ?1 AND retried_by = ?2")
                .setParameter(1, episodeId)
                .setParameter(2, CLAIMED)
                .executeUpdate();
    }

    /** The next attempt exists (episode {@code retriedBy}): the failed row waits no more. */
    public int settle(EntityManager em, String episodeId, String retriedBy) {
        return em.createNativeQuery("UPDATE cyclium_episodes SET retry_due_at = NULL, retried_by = ?2"
                        + " WHERE id = ?1 AND (retried_by IS NULL OR retried_by = ?3)")
                .setParameter(1, episodeId)
                .setParameter(2, retriedBy)
                .setParameter(3, CLAIMED)
                .executeUpdate();
    }
}
