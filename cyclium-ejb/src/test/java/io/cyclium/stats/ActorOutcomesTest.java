package io.cyclium.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.store.NativeSql;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ActorOutcomesTest {

    private static void finished(TestJpa db, String actor, String status, long durationMs, long agoSeconds) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", UUID.randomUUID().toString());
        row.put("actor_id", actor);
        row.put("expectation_id", "x");
        row.put("trigger_type", "manual");
        row.put("status", status);
        row.put("finished_at", NativeSql.raw(db.vendor().utcNowPlusSeconds(String.valueOf(-agoSeconds))));
        row.put("started_at", NativeSql.raw(db.vendor().utcNowPlusSeconds(String.valueOf(-agoSeconds))));
        row.put("updated_at", NativeSql.raw(db.vendor().utcNow()));
        String id = (String) row.get("id");
        db.run(em -> new NativeSql().insert("cyclium_episodes", row).executeUpdate(em));
        // started_at = finished_at - durationMs, computed in Java from what the row holds
        db.run(em -> {
            java.time.LocalDateTime end = io.cyclium.node.DbClock.toLocalDateTime(new NativeSql()
                    .sql("SELECT finished_at FROM cyclium_episodes WHERE id = ").value(id).query(em).getSingleResult());
            new NativeSql().sql("UPDATE cyclium_episodes SET started_at = ").value(java.sql.Timestamp.valueOf(end.minusNanos(durationMs * 1_000_000)))
                    .sql(" WHERE id = ").value(id).executeUpdate(em);
        });
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void success_rate_and_percentiles_per_actor_cover_the_window_only(Vendor vendor) {
        try (TestDatabase fresh = TestDatabase.create(vendor); TestJpa db = new TestJpa(fresh)) {
            for (int i = 1; i <= 20; i++) {
                finished(db, "monitor", i <= 18 ? "done" : "failed", i * 100L, 60);
            }
            finished(db, "monitor", "canceled", 5, 60);
            finished(db, "monitor", "done", 999_999, 2 * 3600); // outside the hour
            finished(db, "advisor", "partially_failed", 250, 30);

            ActorOutcomes.Window w = db.inNewTransaction(em -> new ActorOutcomes(db.vendor()).lastMinutes(em, 60));

            assertThat(w.actors()).extracting(ActorOutcomes.Row::actor).containsExactly("advisor", "monitor");
            ActorOutcomes.Row monitor = w.actors().get(1);
            assertThat(monitor.finished()).isEqualTo(21);
            assertThat(monitor.done()).isEqualTo(18);
            assertThat(monitor.failed()).isEqualTo(2);
            assertThat(monitor.canceled()).isEqualTo(1);
            assertThat(monitor.successRate()).isEqualTo(0.9);
            // 21 durations: 5, 100, 200, ..., 2000 ms; nearest rank: p50 = 11th = 1000, p95 = 20th = 1900
            assertThat(monitor.p50Ms()).isEqualTo(1000);
            assertThat(monitor.p95Ms()).isEqualTo(1900);
            assertThat(monitor.sampled()).isFalse();
            ActorOutcomes.Row advisor = w.actors().get(0);
            assertThat(advisor.successRate()).isEqualTo(0.0);
            assertThat(advisor.p50Ms()).isEqualTo(250);
        }
    }

    @Test
    void nearest_rank_percentiles() {
        assertThat(ActorOutcomes.percentile(new long[0], 50)).isNull();
        assertThat(ActorOutcomes.percentile(new long[] {7}, 95)).isEqualTo(7);
        assertThat(ActorOutcomes.percentile(new long[] {1, 2, 3, 4}, 50)).isEqualTo(2);
        assertThat(ActorOutcomes.percentile(new long[] {1, 2, 3, 4}, 95)).isEqualTo(4);
    }
}
