package io.cyclium.testing;

import io.cyclium.keys.EpisodeRef;
import io.cyclium.store.NativeSql;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Inserts a running episode row (what outputs reference) and hands back its {@link EpisodeRef}. */
public final class TestEpisodes {

    private TestEpisodes() {
    }

    /** A running episode with a random id and dedupe key in {@code env} (null: the unset env). */
    public static EpisodeRef running(TestJpa db, String env) {
        return insert(db, "episode:" + UUID.randomUUID(), env);
    }

    /** A running episode with the given dedupe key (null: none). */
    public static EpisodeRef insert(TestJpa db, String dedupeKey, String env) {
        EpisodeRef ref = new EpisodeRef(UUID.randomUUID().toString(), "monitor", "check", dedupeKey, null, env);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", ref.id());
        row.put("actor_id", ref.actorId());
        row.put("expectation_id", ref.expectationId());
        row.put("trigger_type", "manual");
        row.put("dedupe_key", dedupeKey);
        row.put("status", "running");
        row.put("source_env", env);
        row.put("started_at", NativeSql.raw(db.vendor().utcNow()));
        row.put("updated_at", NativeSql.raw(db.vendor().utcNow()));
        db.run(em -> new NativeSql().insert("cyclium_episodes", row).executeUpdate(em));
        return ref;
    }
}
