package io.cyclium.retry;

import io.cyclium.episode.EpisodeStatus;
import io.cyclium.node.DbClock;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
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
    public List<DueRetry> due(EntityManager em, DatabaseTime time, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = time.now(new NativeSql().sql("SELECT id, actor_id, expectation_id, trigger_ref, dedupe_key,"
                        + " source_stack, source_env FROM cyclium_episodes WHERE retry_due_at <= "))
                // a claim whose lease ran out (its node died) is due again
                .sql(" AND (retried_by IS NULL OR retried_by = ").value(EpisodeRetryStore.CLAIMED).sql(") AND status = ")
                .value(EpisodeStatus.FAILED.wire()).sql(" AND archived_at IS NULL ORDER BY retry_due_at").query(em)
                .setMaxResults(limit)
                .getResultList();
        List<DueRetry> out = new ArrayList<>();
        for (Object[] r : rows) {
            out.add(new DueRetry((String) r[0], (String) r[1], (String) r[2], NativeSql.text(r[3]), (String) r[4], (String) r[5],
                    (String) r[6]));
        }
        return out;
    }

    /** The failed episode {@code episodeId} as a due retry reads it, whatever its due time. */
    public Optional<DueRetry> dueOne(EntityManager em, String episodeId) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = new NativeSql().sql("SELECT id, actor_id, expectation_id, trigger_ref, dedupe_key,"
                + " source_stack, source_env FROM cyclium_episodes WHERE id = ").value(episodeId).query(em).getResultList();
        return rows.stream().findFirst().map(r -> new DueRetry((String) r[0], (String) r[1], (String) r[2], NativeSql.text(r[3]),
                (String) r[4], (String) r[5], (String) r[6]));
    }

    /** A failed plain episode whose retry was never decided (see {@link EpisodeRetries#reconcile}). */
    public record Unheard(String episodeId, String actorId, String expectationId, String errorClass, LocalDateTime startedAt) {
    }

    /** Where a reconcile scan stopped: the last row it read, in (started_at DESC, id DESC) order. */
    public record ScanCursor(LocalDateTime startedAt, String episodeId) {
    }

    /**
     * Failed plain episodes of {@code actors} in a sweep's scope (any stack with {@code anyStack};
     * env null = unset) with no retry due, none started and not archived, finished within
     * {@code window} of the database's clock; newest first (the status index, read backwards), and
     * only those older than {@code after} when it is set (the next page of a scan).
     */
    public List<Unheard> unheardFailures(EntityManager em, DatabaseVendor vendor, Collection<String> actors, String stack,
            boolean anyStack, String env, Duration window, ScanCursor after, int limit) {
        NativeSql sql = new NativeSql().sql("SELECT id, actor_id, expectation_id, error_class, started_at FROM cyclium_episodes"
                        + " WHERE status = ")
                .value(EpisodeStatus.FAILED.wire())
                .sql(" AND workflow_instance_id IS NULL AND retry_due_at IS NULL AND retried_by IS NULL AND archived_at IS NULL AND ")
                .in("actor_id", actors).sql(" AND finished_at >= ").around((int) -window.toSeconds(), vendor::utcNowPlusSeconds);
        if (!anyStack) {
            sql.sql(" AND ").is("source_stack", stack);
        }
        sql.sql(" AND ").is("source_env", env);
        if (after != null) {
            // older than the cursor in (started_at DESC, id DESC) order, written as the episode
            // list's cursor is (EpisodeListing): a range bound on started_at the index can seek
            sql.sql(" AND started_at <= ").value(java.sql.Timestamp.valueOf(after.startedAt()))
                    .sql(" AND (started_at < ").value(java.sql.Timestamp.valueOf(after.startedAt()))
                    .sql(" OR id < ").value(after.episodeId()).sql(")");
        }
        List<?> rows = sql.sql(" ORDER BY started_at DESC, id DESC ")
                .around(limit, vendor::firstRows).query(em).getResultList();
        List<Unheard> out = new ArrayList<>();
        for (Object o : rows) {
            Object[] r = (Object[]) o;
            out.add(new Unheard((String) r[0], (String) r[1], (String) r[2], (String) r[3], time(r[4])));
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

    /**
     * When the episode's next attempt is due (empty: none waiting), and the episode that retried it
     * (empty also while a timer is starting it: {@code claimed}).
     */
    public record RetryState(Optional<LocalDateTime> dueAt, Optional<String> retriedBy, boolean claimed) {
    }

    public RetryState state(EntityManager em, String episodeId) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT retry_due_at, retried_by FROM cyclium_episodes WHERE id = ?1")
                .setParameter(1, episodeId)
                .getResultList();
        if (rows.isEmpty()) {
            return new RetryState(Optional.empty(), Optional.empty(), false);
        }
        String retriedBy = (String) rows.get(0)[1];
        return new RetryState(Optional.ofNullable(time(rows.get(0)[0])),
                Optional.ofNullable(retriedBy).filter(by -> !EpisodeRetryStore.CLAIMED.equals(by)),
                EpisodeRetryStore.CLAIMED.equals(retriedBy));
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
