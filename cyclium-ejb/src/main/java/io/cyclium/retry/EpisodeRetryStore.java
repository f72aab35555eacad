package io.cyclium.retry;

import io.cyclium.episode.EpisodeStatus;
import io.cyclium.store.DatabaseVendor;
import jakarta.persistence.EntityManager;
import java.time.LocalDateTime;

/**
 * The guarded writes of plain-episode retries on {@code cyclium_episodes} (V8). Each is a
 * state-checked UPDATE; zero rows means another node (or an earlier call) already did it, which is
 * normal. Times are UTC from the injected clock, so every node compares like with like.
 */
public class EpisodeRetryStore {

    private final DatabaseVendor vendor;

    public EpisodeRetryStore(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    public DatabaseVendor vendor() {
        return vendor;
    }

    /**
     * Marks a failed episode as waiting for its next attempt at {@code dueAt}. Only once: a failed row
     * that already has a due time, or was already retried, or is archived, is left alone (the
     * EpisodeFinished of one failure may be heard twice, e.g. after a replay).
     */
    public int schedule(EntityManager em, String episodeId, LocalDateTime dueAt) {
        return em.createNativeQuery("UPDATE cyclium_episodes SET retry_due_at = ?2 WHERE id = ?1 AND status = ?3"
                        + " AND retry_due_at IS NULL AND retried_by IS NULL AND archived_at IS NULL")
                .setParameter(1, episodeId)
                .setParameter(2, dueAt)
                .setParameter(3, EpisodeStatus.FAILED.wire())
                .executeUpdate();
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
     * Claims a due retry for this node: moves its due time to {@code leaseUntil} and marks it
     * {@link #CLAIMED}, only while it is still due ({@code retry_due_at <= now}). Of two timers
     * racing, the first UPDATE moves the time past {@code now} and the second matches no row. A node
     * that dies after claiming leaves a due time that comes round again at {@code leaseUntil}, when
     * another node claims it again (the mark is its own) and starts it; the next attempt's
     * deterministic dedupe key makes that second start a duplicate if the first got through.
     */
    public int claim(EntityManager em, String episodeId, LocalDateTime now, LocalDateTime leaseUntil) {
        // status: an operator may have restarted the failed episode meanwhile; then it is not retried.
        // archived_at: retention may have archived it since the timer read it as due; archived work
        // is history and never runs again (its dedupe key is free, so the trigger may start it anew).
        return em.createNativeQuery("UPDATE cyclium_episodes SET retry_due_at = ?3, retried_by = ?5 WHERE id = ?1"
                        + " AND retry_due_at <= ?2 AND (retried_by IS NULL OR retried_by = ?5) AND status = ?4"
                        + " AND archived_at IS NULL")
                .setParameter(1, episodeId)
                .setParameter(2, now)
                .setParameter(3, leaseUntil)
                .setParameter(4, EpisodeStatus.FAILED.wire())
                .setParameter(5, CLAIMED)
                .executeUpdate();
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
