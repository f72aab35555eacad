package io.cyclium.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.episode.EpisodeStatus;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The retention job's statements on H2, PostgreSQL and MariaDB. Tests share a class database and
 * look only at their own rows, except where counts must be exact (then a database of their own).
 */
class RetentionStoreTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final Duration WEEK = Duration.ofDays(7);
    private static final long DAY = 86_400;

    private static String newRun(TestJpa db, RetentionStore store) {
        String id = UUID.randomUUID().toString();
        db.run(em -> store.insertRun(em, id, "manual:" + id, "manual", "test", "node-t", WEEK, Optional.of(WEEK)));
        return id;
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void archiving_an_old_terminal_episode_frees_its_key_so_the_same_trigger_starts_a_new_episode(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RetentionRows rows = new RetentionRows(db);
        RetentionChunks chunks = new RetentionChunks(db, new RetentionStore(db.vendor()));
        String key = "event:monitor:check:" + UUID.randomUUID();
        String old = rows.finished(key, EpisodeStatus.DONE, 8 * DAY);
        assertThat(rows.tryStart(UUID.randomUUID().toString(), key)).as("the key is still held before archival").isFalse();

        chunks.runStep(newRun(db, chunks.store()), RetentionStep.ARCHIVE_EPISODES, WEEK, 50, () -> { });

        assertThat(rows.archivedAt(old)).isNotNull();
        assertThat(rows.tryStart(UUID.randomUUID().toString(), key)).as("a new episode on the archived key").isTrue();
        assertThat(rows.tryStart(UUID.randomUUID().toString(), key)).as("and only one").isFalse();
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void only_terminal_episodes_past_the_window_are_archived_and_never_twice(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RetentionRows rows = new RetentionRows(db);
        RetentionChunks chunks = new RetentionChunks(db, new RetentionStore(db.vendor()));
        String failed = rows.finished("k:" + UUID.randomUUID(), EpisodeStatus.FAILED, 8 * DAY);
        String canceled = rows.finished("k:" + UUID.randomUUID(), EpisodeStatus.CANCELED, 8 * DAY);
        String recent = rows.finished("k:" + UUID.randomUUID(), EpisodeStatus.DONE, 6 * DAY);
        String running = UUID.randomUUID().toString();
        rows.tryStart(running, "k:" + UUID.randomUUID());

        chunks.runStep(newRun(db, chunks.store()), RetentionStep.ARCHIVE_EPISODES, WEEK, 50, () -> { });
        Object first = rows.archivedAt(failed);
        chunks.runStep(newRun(db, chunks.store()), RetentionStep.ARCHIVE_EPISODES, WEEK, 50, () -> { });

        assertThat(first).isNotNull();
        assertThat(rows.archivedAt(failed)).as("archived_at never moves").isEqualTo(first);
        assertThat(rows.archivedAt(canceled)).isNotNull();
        assertThat(rows.archivedAt(recent)).isNull();
        assertThat(rows.archivedAt(running)).isNull();
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void purge_deletes_old_archived_episodes_with_their_rows_but_keeps_active_findings_and_retryable_outputs(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RetentionRows rows = new RetentionRows(db);
        RetentionChunks chunks = new RetentionChunks(db, new RetentionStore(db.vendor()));
        String plain = rows.finished("k:" + UUID.randomUUID(), EpisodeStatus.DONE, 40 * DAY);
        rows.step(plain, 1);
        rows.output(plain, "delivered");
        rows.finding(plain, "cleared");
        rows.request(plain, "completed", 40 * DAY);
        String withFailedOutput = rows.finished("k:" + UUID.randomUUID(), EpisodeStatus.PARTIALLY_FAILED, 40 * DAY);
        rows.output(withFailedOutput, "failed");
        String withActiveFinding = rows.finished("k:" + UUID.randomUUID(), EpisodeStatus.DONE, 40 * DAY);
        rows.finding(withActiveFinding, "active");
        String archivedRecently = rows.finished("k:" + UUID.randomUUID(), EpisodeStatus.DONE, 40 * DAY);
        String run = newRun(db, chunks.store());
        chunks.runStep(run, RetentionStep.ARCHIVE_EPISODES, WEEK, 50, () -> { });
        for (String id : new String[] {plain, withFailedOutput, withActiveFinding}) {
            rows.ageArchived(id, 31 * DAY);
        }

        chunks.runStep(run, RetentionStep.PURGE_EPISODES, Duration.ofDays(30), 50, () -> { });

        assertThat(rows.count("cyclium_episodes", "id = '" + plain + "'")).isZero();
        assertThat(rows.count("cyclium_episode_steps", "episode_id = '" + plain + "'")).isZero();
        assertThat(rows.count("cyclium_outputs", "episode_id = '" + plain + "'")).isZero();
        assertThat(rows.count("cyclium_trigger_requests", "episode_id = '" + plain + "'")).isZero();
        assertThat(rows.count("cyclium_episodes", "id = '" + withFailedOutput + "'")).as("a failed output can still be retried").isOne();
        assertThat(rows.count("cyclium_outputs", "episode_id = '" + withFailedOutput + "' AND status = 'failed'")).isOne();
        assertThat(rows.count("cyclium_episodes", "id = '" + withActiveFinding + "'")).as("its finding is active").isOne();
        assertThat(rows.count("cyclium_findings", "raised_by_episode_id = '" + withActiveFinding + "' AND status = 'active'")).isOne();
        assertThat(rows.count("cyclium_episodes", "id = '" + archivedRecently + "'")).as("archived a moment ago").isOne();
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void settled_claims_and_finished_trigger_requests_are_pruned_past_their_window_live_ones_never(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RetentionRows rows = new RetentionRows(db);
        RetentionChunks chunks = new RetentionChunks(db, new RetentionStore(db.vendor()));
        String p = "prune-" + UUID.randomUUID() + ":";
        rows.claim(p + "done-old", "done", 2 * DAY);
        rows.claim(p + "expired-old", "expired", 2 * DAY);
        rows.claim(p + "failed-old", "failed", 2 * DAY);
        rows.claim(p + "lapsed-live", "claimed", 2 * DAY);
        rows.claim(p + "done-recent", "done", 3_600);
        String episode = rows.finished("k:" + UUID.randomUUID(), EpisodeStatus.DONE, 0);
        String completedOld = rows.request(episode, "completed", 2 * DAY);
        String expiredOld = rows.request(episode, "expired", 2 * DAY);
        String pendingOld = rows.request(episode, "pending", 2 * DAY);
        String completedRecent = rows.request(episode, "completed", 3_600);
        String run = newRun(db, chunks.store());

        chunks.runStep(run, RetentionStep.PRUNE_CLAIMS, Duration.ofDays(1), 50, () -> { });
        chunks.runStep(run, RetentionStep.PRUNE_TRIGGER_REQUESTS, Duration.ofDays(1), 50, () -> { });

        String mine = "dedupe_key LIKE '" + p + "%'";
        assertThat(rows.count("cyclium_work_claims", mine)).isEqualTo(3);
        assertThat(rows.count("cyclium_work_claims", mine + " AND dedupe_key IN ('" + p + "failed-old', '" + p + "lapsed-live', '"
                + p + "done-recent')")).isEqualTo(3);
        assertThat(rows.count("cyclium_trigger_requests", "id IN ('" + completedOld + "', '" + expiredOld + "')")).isZero();
        assertThat(rows.count("cyclium_trigger_requests", "id IN ('" + pendingOld + "', '" + completedRecent + "')")).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void finished_bulk_actions_past_the_purge_window_are_deleted_with_their_items_running_ones_never(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RetentionRows rows = new RetentionRows(db);
        RetentionChunks chunks = new RetentionChunks(db, new RetentionStore(db.vendor()));
        String doneOld = rows.bulkAction("done", 3, 31 * DAY);
        String canceledOld = rows.bulkAction("canceled", 2, 31 * DAY);
        String runningOld = rows.bulkAction("running", 2, 31 * DAY);
        String doneRecent = rows.bulkAction("done", 1, 29 * DAY);
        String run = newRun(db, chunks.store());

        chunks.runStep(run, RetentionStep.PRUNE_BULK_ACTIONS, Duration.ofDays(30), 50, () -> { });

        for (String gone : new String[] {doneOld, canceledOld}) {
            assertThat(rows.count("cyclium_bulk_actions", "id = '" + gone + "'")).isZero();
            assertThat(rows.count("cyclium_bulk_items", "action_id = '" + gone + "'")).as("its items go with it").isZero();
        }
        assertThat(rows.count("cyclium_bulk_actions", "id = '" + runningOld + "'")).as("running, whatever its age").isOne();
        assertThat(rows.count("cyclium_bulk_items", "action_id = '" + runningOld + "'")).isEqualTo(2);
        assertThat(rows.count("cyclium_bulk_actions", "id = '" + doneRecent + "'")).as("inside the window").isOne();
        assertThat(rows.count("cyclium_bulk_items", "action_id = '" + doneRecent + "'")).isOne();
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void a_step_stopped_mid_way_resumes_after_its_checkpoint_reading_and_archiving_every_row_exactly_once(Vendor vendor) {
        try (TestDatabase fresh = TestDatabase.create(vendor); TestJpa db = new TestJpa(fresh)) {
            RetentionRows rows = new RetentionRows(db);
            RetentionStore store = new RetentionStore(db.vendor());
            int eligible = 257;
            for (int i = 0; i < eligible; i++) {
                rows.finished("k:" + i, EpisodeStatus.DONE, 8 * DAY);
            }
            rows.finished("k:recent", EpisodeStatus.DONE, DAY);
            String run = newRun(db, store);
            AtomicInteger chunksStarted = new AtomicInteger();
            RetentionChunks crashing = new RetentionChunks(db, store);
            assertThatThrownBy(() -> crashing.runStep(run, RetentionStep.ARCHIVE_EPISODES, WEEK, 20, () -> {
                if (chunksStarted.incrementAndGet() == 6) {
                    throw new IllegalStateException("simulated crash before the sixth chunk");
                }
            })).hasMessageContaining("simulated crash");
            assertThat(rows.count("cyclium_episodes", "archived_at IS NOT NULL")).isEqualTo(100);

            long resumed = new RetentionChunks(db, store).runStep(run, RetentionStep.ARCHIVE_EPISODES, WEEK, 20, () -> { });

            assertThat(resumed).isEqualTo(eligible - 100);
            assertThat(rows.count("cyclium_episodes", "archived_at IS NOT NULL")).isEqualTo(eligible);
            assertThat(rows.count("cyclium_retention_steps", "run_id = '" + run + "' AND step_name = 'archive-episodes'"
                    + " AND read_count = " + eligible + " AND written_count = " + eligible)).as("nothing read or written twice").isOne();
        }
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void a_run_key_exists_once(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RetentionStore store = new RetentionStore(db.vendor());
        String key = "2026-01-" + (10 + new java.util.Random().nextInt(18)) + "-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat((boolean) db.<Boolean>inNewTransaction(em -> store.insertRun(em, UUID.randomUUID().toString(), key, "timer", null, "a", WEEK,
                Optional.empty()))).isTrue();
        assertThat((boolean) db.<Boolean>inNewTransaction(em -> store.insertRun(em, UUID.randomUUID().toString(), key, "timer", null, "b", WEEK,
                Optional.empty()))).isFalse();
    }
}
