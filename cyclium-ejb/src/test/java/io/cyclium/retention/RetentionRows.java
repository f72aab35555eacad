package io.cyclium.retention;

import io.cyclium.operations.BulkItemResult;
import io.cyclium.operations.BulkKind;
import io.cyclium.operations.BulkStore;
import io.cyclium.store.DatabaseTime;
import java.time.Duration;
import java.util.List;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.store.NativeSql;
import io.cyclium.testing.TestJpa;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Rows in the states retention cares about, inserted through the product's own stores where one exists. */
final class RetentionRows {

    private final TestJpa db;
    private final EpisodeStore episodes;

    RetentionRows(TestJpa db) {
        this.db = db;
        this.episodes = new EpisodeStore(db.vendor());
    }

    /** Inserts an episode through EpisodeStore (the runtime's own insert); false: its key is taken. */
    boolean tryStart(String id, String dedupeKey) {
        NewEpisode e = new NewEpisode(id, "monitor", "check", null,
                new TriggerInfo(TriggerInfo.EVENT, "resource.updated", "ev-1", null, null), dedupeKey, 3, null, "node-t",
                false, null, null, null, null);
        return db.inNewTransaction(em -> episodes.insert(em, e));
    }

    /** A terminal episode that finished {@code ageSeconds} ago on the database clock. */
    String finished(String dedupeKey, EpisodeStatus status, long ageSeconds) {
        String id = UUID.randomUUID().toString();
        if (!tryStart(id, dedupeKey)) {
            throw new IllegalStateException("key taken: " + dedupeKey);
        }
        db.run(em -> episodes.finish(em, id, status, 1, "test", null, null));
        ageFinished(id, ageSeconds);
        return id;
    }

    void ageFinished(String id, long ageSeconds) {
        db.run(em -> new NativeSql().sql("UPDATE cyclium_episodes SET finished_at = ")
                .around(-ageSeconds, db.vendor()::utcNowPlusSeconds).sql(" WHERE id = ").value(id).executeUpdate(em));
    }

    /**
     * A bulk action over {@code items} made-up episode ids, stored through BulkStore, then finished
     * ({@code done}: every item recorded; {@code canceled}: canceled before any) or left
     * {@code running}; its times are then moved {@code ageSeconds} into the past.
     */
    String bulkAction(String status, int items, long ageSeconds) {
        String id = UUID.randomUUID().toString();
        BulkStore store = new BulkStore(DatabaseTime.of(db.vendor()));
        List<String> targets = java.util.stream.IntStream.range(0, items).mapToObj(i -> UUID.randomUUID().toString()).toList();
        db.run(em -> store.insert(em, id, BulkKind.CANCEL, "{}", "test", "node-t", Duration.ofMinutes(1), targets));
        switch (status) {
            case BulkStore.DONE -> db.run(em -> {
                for (int i = 1; i <= items; i++) {
                    store.take(em, id, i, 1);
                    store.record(em, id, i, 1, BulkItemResult.DONE, "canceled");
                }
                store.finish(em, id, 1);
            });
            case BulkStore.CANCELED -> db.run(em -> store.cancel(em, id));
            case BulkStore.RUNNING -> { }
            default -> throw new IllegalArgumentException(status);
        }
        db.run(em -> new NativeSql().sql("UPDATE cyclium_bulk_actions SET created_at = ")
                .around(-ageSeconds, db.vendor()::utcNowPlusSeconds).sql(", finished_at = CASE WHEN finished_at IS NULL THEN NULL ELSE ")
                .around(-ageSeconds, db.vendor()::utcNowPlusSeconds).sql(" END WHERE id = ").value(id).executeUpdate(em));
        return id;
    }

    void ageArchived(String id, long ageSeconds) {
        db.run(em -> new NativeSql().sql("UPDATE cyclium_episodes SET archived_at = ")
                .around(-ageSeconds, db.vendor()::utcNowPlusSeconds).sql(" WHERE id = ").value(id).executeUpdate(em));
    }

    void step(String episodeId, int no) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("episode_id", episodeId);
        row.put("step_no", no);
        row.put("kind", "observe");
        row.put("created_at", NativeSql.raw(db.vendor().utcNow()));
        db.run(em -> new NativeSql().insert("cyclium_episode_steps", row).executeUpdate(em));
    }

    void output(String episodeId, String status) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", UUID.randomUUID().toString());
        row.put("episode_id", episodeId);
        row.put("output_type", "log");
        row.put("dedupe_key", "out:" + UUID.randomUUID());
        row.put("status", status);
        row.put("attempts", 1);
        row.put("created_at", NativeSql.raw(db.vendor().utcNow()));
        row.put("updated_at", NativeSql.raw(db.vendor().utcNow()));
        db.run(em -> new NativeSql().insert("cyclium_outputs", row).executeUpdate(em));
    }

    void finding(String episodeId, String status) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", UUID.randomUUID().toString());
        row.put("finding_key", "f:" + UUID.randomUUID());
        row.put("status", status);
        row.put("finding_class", "limit_breach");
        row.put("severity", "warning");
        row.put("actor_id", "monitor");
        row.put("raised_by_episode_id", episodeId);
        row.put("raised_at", NativeSql.raw(db.vendor().utcNow()));
        row.put("updated_at", NativeSql.raw(db.vendor().utcNow()));
        db.run(em -> new NativeSql().insert("cyclium_findings", row).executeUpdate(em));
    }

    /** A work claim in {@code state} settled (or, for claimed, leased until) {@code ageSeconds} ago. */
    void claim(String key, String state, long ageSeconds) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("dedupe_key", key);
        row.put("state", state);
        row.put("owner_node", "node-t");
        row.put("lease_until", NativeSql.raw(db.vendor().utcNowPlusSeconds(String.valueOf(-ageSeconds))));
        row.put("claimed_at", NativeSql.raw(db.vendor().utcNowPlusSeconds(String.valueOf(-ageSeconds - 60))));
        row.put("finished_at", state.equals("claimed") ? null : NativeSql.raw(db.vendor().utcNowPlusSeconds(String.valueOf(-ageSeconds))));
        row.put("attempt", 1);
        row.put("fence", 1L);
        row.put("work_type", "episode");
        db.run(em -> new NativeSql().insert("cyclium_work_claims", row).executeUpdate(em));
    }

    String request(String episodeId, String status, long ageSeconds) {
        String id = UUID.randomUUID().toString();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("episode_id", episodeId);
        row.put("actor_id", "monitor");
        row.put("expectation_id", "check");
        row.put("source_node", "node-t");
        row.put("status", status);
        row.put("inserted_at", NativeSql.raw(db.vendor().utcNowPlusSeconds(String.valueOf(-ageSeconds))));
        row.put("updated_at", NativeSql.raw(db.vendor().utcNowPlusSeconds(String.valueOf(-ageSeconds))));
        db.run(em -> new NativeSql().insert("cyclium_trigger_requests", row).executeUpdate(em));
        return id;
    }

    long count(String table, String where) {
        return db.inNewTransaction(em -> ((Number) em.createNativeQuery("SELECT COUNT(*) FROM " + table + " WHERE " + where)
                .getSingleResult()).longValue());
    }

    Object archivedAt(String id) {
        return db.inNewTransaction(em -> new NativeSql().sql("SELECT archived_at FROM cyclium_episodes WHERE id = ").value(id)
                .query(em).getSingleResult());
    }
}
