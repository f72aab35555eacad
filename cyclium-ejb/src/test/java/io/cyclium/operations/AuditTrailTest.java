package io.cyclium.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.audit.AuditAction;
import io.cyclium.audit.Operator;
import io.cyclium.audit.PendingAudit;
import io.cyclium.problem.Problem;
import io.cyclium.retention.RetentionChunks;
import io.cyclium.retention.RetentionStep;
import io.cyclium.retention.RetentionStore;
import io.cyclium.store.NativeSql;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestEpisodes;
import io.cyclium.testing.TestJpa;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The audit trail on H2, PostgreSQL and MariaDB: an action's row commits with its change and only
 * then, a refusal or failure has a row of its own, the list filters and pages, retention prunes
 * old rows. Each test acts as a user of its own and reads only that user's rows.
 */
class AuditTrailTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static AuditTrail trail(TestJpa db) {
        AuditTrail trail = new AuditTrail() {
            @Override
            String node() {
                return "node-t";
            }
        };
        trail.tx = db;
        trail.vendor = db.vendor();
        trail.init();
        return trail;
    }

    private static Operator someone() {
        return new Operator("user-" + UUID.randomUUID().toString().substring(0, 8), "127.0.0.1");
    }

    private static List<AuditRecord> rowsOf(AuditTrail trail, Operator who) {
        return trail.page(new AuditFilter(who.user(), null, null, null, null, null, null), null, 50).records();
    }

    /** A change the action makes in its own transaction: an episode row canceled, with the audit row. */
    private static int cancelIn(TestJpa db, String episodeId, boolean thenFail) {
        return db.inNewTransaction(em -> {
            int changed = new NativeSql().sql("UPDATE cyclium_episodes SET status = 'canceled' WHERE id = ").value(episodeId)
                    .executeUpdate(em);
            PendingAudit.recordIn(em);
            if (thenFail) {
                throw Problem.conflict("episode " + episodeId + " changed while canceling; read it again");
            }
            return changed;
        });
    }

    private static String status(TestJpa db, String episodeId) {
        return db.inNewTransaction(em -> (String) new NativeSql().sql("SELECT status FROM cyclium_episodes WHERE id = ")
                .value(episodeId).query(em).getSingleResult());
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void an_action_that_changes_a_row_writes_its_audit_row_in_that_transaction(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        AuditTrail trail = trail(db);
        Operator who = someone();
        String episode = TestEpisodes.running(db, null).id();

        long seenInsideTheChange = trail.perform(who, AuditAction.EPISODE_CANCEL, episode, () -> db.inNewTransaction(em -> {
            new NativeSql().sql("UPDATE cyclium_episodes SET status = 'canceled' WHERE id = ").value(episode).executeUpdate(em);
            PendingAudit.recordIn(em);
            return ((Number) new NativeSql().sql("SELECT COUNT(*) FROM cyclium_audit WHERE user_name = ").value(who.user())
                    .query(em).getSingleResult()).longValue();
        }));

        assertThat(seenInsideTheChange).as("the row is written by the changing transaction, before it commits").isEqualTo(1);
        List<AuditRecord> rows = rowsOf(trail, who);
        assertThat(rows).hasSize(1);
        AuditRecord row = rows.get(0);
        assertThat(row.action()).isEqualTo("episode.cancel");
        assertThat(row.subjectKind()).isEqualTo("episode");
        assertThat(row.subjectId()).isEqualTo(episode);
        assertThat(row.episodeId()).isEqualTo(episode);
        assertThat(row.outcome()).isEqualTo("ok");
        assertThat(row.node()).isEqualTo("node-t");
        assertThat(row.address()).isEqualTo("127.0.0.1");
        assertThat(row.at()).as("stamped on the database clock").isNotNull();
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void a_change_that_rolls_back_takes_its_ok_row_with_it_and_leaves_a_refused_row(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        AuditTrail trail = trail(db);
        Operator who = someone();
        String episode = TestEpisodes.running(db, null).id();

        assertThatThrownBy(() -> trail.perform(who, AuditAction.EPISODE_CANCEL, episode, () -> cancelIn(db, episode, true)))
                .isInstanceOf(Problem.class);

        assertThat(status(db, episode)).as("the change rolled back").isEqualTo("running");
        List<AuditRecord> rows = rowsOf(trail, who);
        assertThat(rows).extracting(AuditRecord::outcome).containsExactly("refused");
        assertThat(rows.get(0).reason()).contains("changed while canceling");
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void an_action_recorded_in_two_transactions_has_one_row(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        AuditTrail trail = trail(db);
        Operator who = someone();
        String episode = TestEpisodes.running(db, null).id();

        trail.perform(who, AuditAction.EPISODE_CANCEL, episode, () -> {
            cancelIn(db, episode, false);
            return cancelIn(db, episode, false);
        });

        assertThat(rowsOf(trail, who)).extracting(AuditRecord::outcome).containsExactly("ok");
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void an_unexpected_error_is_a_failed_row_naming_a_log_id(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        AuditTrail trail = trail(db);
        Operator who = someone();

        assertThatThrownBy(() -> trail.perform(who, AuditAction.RETENTION_RUN, null, () -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class);

        List<AuditRecord> rows = rowsOf(trail, who);
        assertThat(rows).extracting(AuditRecord::outcome).containsExactly("failed");
        assertThat(rows.get(0).reason()).startsWith("IllegalStateException (server log: audit error ").doesNotContain("boom");
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void an_action_without_a_transaction_of_its_own_and_a_refusal_before_it_ran_each_get_a_row(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        AuditTrail trail = trail(db);
        Operator who = someone();

        trail.perform(who, AuditAction.ACTOR_MODE, "monitor", () -> {
            PendingAudit.detail("disabled on node-t");
            return null;
        });
        trail.refuse(who, AuditAction.EPISODE_APPROVE, UUID.randomUUID().toString(), "needs the role cyclium-admin");

        List<AuditRecord> rows = rowsOf(trail, who);
        assertThat(rows).extracting(AuditRecord::action).containsExactlyInAnyOrder("actor.mode", "episode.approve");
        assertThat(rows).filteredOn(r -> r.action().equals("actor.mode")).singleElement()
                .satisfies(r -> assertThat(r.detail()).isEqualTo("disabled on node-t"))
                .satisfies(r -> assertThat(r.outcome()).isEqualTo("ok"));
        assertThat(rows).filteredOn(r -> r.action().equals("episode.approve")).singleElement()
                .satisfies(r -> assertThat(r.outcome()).isEqualTo("refused"))
                .satisfies(r -> assertThat(r.reason()).isEqualTo("needs the role cyclium-admin"));
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void nothing_is_recorded_for_work_no_operator_asked_for(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        AuditTrail trail = trail(db);
        String episode = TestEpisodes.running(db, null).id();

        cancelIn(db, episode, false);

        assertThat(trail.page(new AuditFilter(null, null, null, episode, null, null, null), null, 50).records()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void the_list_is_newest_first_filtered_and_paged_by_cursor(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        AuditTrail trail = trail(db);
        Operator who = someone();
        for (int i = 0; i < 5; i++) {
            trail.refuse(who, i % 2 == 0 ? AuditAction.EPISODE_CANCEL : AuditAction.WORKFLOW_DISABLE, "s" + i, "no");
        }
        trail.refuse(someone(), AuditAction.EPISODE_CANCEL, "s0", "no");

        AuditQueries.Page first = trail.page(new AuditFilter(who.user(), null, null, null, null, null, null), null, 2);
        AuditQueries.Page second = trail.page(new AuditFilter(who.user(), null, null, null, null, null, null), first.nextCursor(), 2);
        AuditQueries.Page third = trail.page(new AuditFilter(who.user(), null, null, null, null, null, null), second.nextCursor(), 2);

        assertThat(first.records()).extracting(AuditRecord::subjectId).containsExactly("s4", "s3");
        assertThat(second.records()).extracting(AuditRecord::subjectId).containsExactly("s2", "s1");
        assertThat(third.records()).extracting(AuditRecord::subjectId).containsExactly("s0");
        assertThat(third.nextCursor()).isNull();
        assertThat(trail.page(new AuditFilter(who.user(), "workflow.disable", null, null, null, null, null), null, 50).records())
                .extracting(AuditRecord::subjectId).containsExactly("s3", "s1");
        assertThat(trail.page(new AuditFilter(null, null, "episode", "s0", "refused", null, null), null, 50).records())
                .hasSize(2);
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void retention_deletes_audit_rows_older_than_the_window_and_keeps_the_rest(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        AuditTrail trail = trail(db);
        Operator who = someone();
        trail.refuse(who, AuditAction.EPISODE_CANCEL, "old", "no");
        trail.refuse(who, AuditAction.EPISODE_CANCEL, "recent", "no");
        db.run(em -> new NativeSql().sql("UPDATE cyclium_audit SET occurred_at = ")
                .around(-400L * 86_400, db.vendor()::utcNowPlusSeconds).sql(" WHERE subject_id = 'old' AND user_name = ")
                .value(who.user()).executeUpdate(em));
        RetentionChunks chunks = new RetentionChunks(db, new RetentionStore(db.vendor()));
        String run = UUID.randomUUID().toString();
        db.run(em -> chunks.store().insertRun(em, run, "manual:" + run, "manual", "test", "node-t", Duration.ofDays(7),
                java.util.Optional.empty()));

        chunks.runStep(run, RetentionStep.PRUNE_AUDIT, Duration.ofDays(365), 50, () -> { });

        assertThat(rowsOf(trail, who)).extracting(AuditRecord::subjectId).containsExactly("recent");
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void an_unknown_action_filter_is_a_400_naming_the_allowed_values(Vendor vendor) {
        assertThatThrownBy(() -> AuditFilter.parse(null, "episode.delete", null, null, null, null, null))
                .isInstanceOf(Problem.class).hasMessageContaining("episode.cancel")
                .satisfies(e -> assertThat(((Problem) e).field()).isEqualTo("action"));
    }
}
