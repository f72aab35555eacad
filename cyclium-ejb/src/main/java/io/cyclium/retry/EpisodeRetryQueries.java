package io.cyclium.retry;

import io.cyclium.episode.EpisodeStatus;
import io.cyclium.node.DbClock;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Read views of plain-episode retries (V8 columns of {@code cyclium_episodes}). */
public class EpisodeRetryQueries {

    /** A failed episode whose next attempt is due: what the next attempt is started from. */
    public record DueRetry(String episodeId, String actorId, String expectationId, String triggerRef, String dedupeKey,
            String sourceStack, String sourceEnv) {
    }

    /** What the failure hook needs of a finished episode. */
    public record Finished(String status, String dedupeKey, String workflowInstanceId) {
    }

    /** Failed, not yet retried, due at or before {@code now}, oldest due first. */
    public List<DueRetry> due(EntityManager em, LocalDateTime now, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT id, actor_id, expectation_id, trigger_ref, dedupe_key,"
                        + " source_stack, source_env FROM cyclium_episodes WHERE retry_due_at <= ?1"
                        + " AND retried_by IS NULL AND status = ?2 AND archived_at IS NULL ORDER BY retry_due_at")
                .setParameter(1, now)
                .setParameter(2, EpisodeStatus.FAILED.wire())
                .setMaxResults(limit)
                .getResultList();
        List<DueRetry> out = new ArrayList<>();
        for (Object[] r : rows) {
            out.add(new DueRetry((String) r[0], (String) r[1], (String) r[2], NativeSql.text(r[3]), (String) r[4], (String) r[5],
                    (String) r[6]));
        }
        return out;
    }

    public Optional<Finished> finished(EntityManager em, String episodeId) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT status, dedupe_key, workflow_instance_id FROM cyclium_episodes"
                        + " WHERE id = ?1")
                .setParameter(1, episodeId)
                .getResultList();
        return rows.stream().findFirst().map(r -> new Finished((String) r[0], (String) r[1], (String) r[2]));
    }

    /** When the episode's next attempt is due (empty: none waiting), and the episode that retried it. */
    public record RetryState(Optional<LocalDateTime> dueAt, Optional<String> retriedBy) {
    }

    public RetryState state(EntityManager em, String episodeId) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT retry_due_at, retried_by FROM cyclium_episodes WHERE id = ?1")
                .setParameter(1, episodeId)
                .getResultList();
        if (rows.isEmpty()) {
            return new RetryState(Optional.empty(), Optional.empty());
        }
        return new RetryState(Optional.ofNullable(time(rows.get(0)[0])), Optional.ofNullable((String) rows.get(0)[1]));
    }

    /** The live (not archived) episode holding {@code dedupeKey}, if any. */
    public Optional<String> holderOf(EntityManager em, String dedupeKey) {
        @SuppressWarnings("unchecked")
        List<Object> rows = em.createNativeQuery("SELECT id FROM cyclium_episodes WHERE dedupe_key = ?1"
                        + " AND archived_at IS NULL")
                .setParameter(1, dedupeKey)
                .getResultList();
        return rows.stream().findFirst().map(String.class::cast);
    }

    static LocalDateTime time(Object raw) {
        return raw == null ? null : DbClock.toLocalDateTime(raw);
    }
}
