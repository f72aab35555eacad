package io.cyclium.retention;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The purge that follows a large archive in the same run is planned by primary key on PostgreSQL:
 * the archive step's statistics refresh lets the planner see that most rows are archived now (with
 * the statistics of before the archive it walked every archived row for each chunk of ids). A
 * database of its own, so the table is this test's rows only.
 */
class RetentionPurgePlanTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    @Test
    void after_the_archive_step_the_purge_delete_finds_its_rows_by_primary_key() throws Exception {
        TestDatabase db = databases.get(Vendor.POSTGRESQL);
        TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        RetentionKillTest.load(db, 20_000, 8 * 86_400); // analyzed while nothing is archived
        RetentionStore store = new RetentionStore(jpa.vendor());
        String run = UUID.randomUUID().toString();
        jpa.run(em -> store.insertRun(em, run, "manual:" + run, "manual", "test", "test", Duration.ofDays(7),
                Optional.of(Duration.ZERO)));
        new RetentionChunks(jpa, store).runStep(run, RetentionStep.ARCHIVE_EPISODES, Duration.ofDays(7), 2_000, () -> { });

        jpa.run(store::refreshStatisticsAfterArchive);

        // the purge chunk's guard, as RetentionStore.apply writes it for PURGE_EPISODES
        String plan = explain(db, "DELETE FROM cyclium_episodes WHERE id IN ('a', 'b', 'c') AND archived_at IS NOT NULL"
                + " AND archived_at < LOCALTIMESTAMP AND NOT EXISTS (SELECT 1 FROM cyclium_outputs o WHERE o.episode_id ="
                + " cyclium_episodes.id AND o.status IN ('failed', 'retrying', 'proposed')) AND NOT EXISTS (SELECT 1 FROM"
                + " cyclium_findings f WHERE f.raised_by_episode_id = cyclium_episodes.id AND f.status = 'active')");
        assertThat(plan).as(plan).contains("cyclium_episodes_pkey").doesNotContain("ix_cyclium_episodes_archived");
    }

    private static String explain(TestDatabase db, String sql) throws Exception {
        StringBuilder out = new StringBuilder();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
            while (rs.next()) {
                out.append(rs.getString(1)).append('\n');
            }
        }
        return out.toString();
    }
}
