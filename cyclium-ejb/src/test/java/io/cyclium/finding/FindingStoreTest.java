package io.cyclium.finding;

import static io.cyclium.finding.FindingFixture.await;
import static io.cyclium.finding.FindingFixture.episode;
import static io.cyclium.finding.FindingFixture.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.keys.EpisodeRef;
import io.cyclium.finding.FindingOutcome.Kind;
import io.cyclium.testing.Concurrently;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import jakarta.json.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link FindingStore} against real databases: one active row per (key, env), history kept on
 * clear, expiry on the database clock, and concurrent raisers that never see an error.
 * Every test uses keys and classes of its own, so tests share each vendor's database.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class FindingStoreTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    // ---------------------------------------------------------------- raise

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_raise_inserts_one_active_row_in_the_episodes_env(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String key = key();
        EpisodeRef episode = episode("rc");

        FindingOutcome outcome = f.apply(FindingAction.raise(key, "cpu_high").withSeverity(Severity.HIGH)
                .withSubject("host", "web-1").withSummary("CPU at 97%").withConfidence(0.9)
                .withEvidence(Json.createObjectBuilder().add("cpu", 97).build()), episode);

        assertThat(outcome.kind()).isEqualTo(Kind.RAISED);
        assertThat(outcome.env()).isEqualTo("rc");
        assertThat(outcome.findingClass()).isEqualTo("cpu_high");
        assertThat(outcome.severity()).isEqualTo(Severity.HIGH);
        List<FindingView> rows = f.rows(key);
        assertThat(rows).singleElement().satisfies(row -> {
            assertThat(row.id()).isEqualTo(outcome.findingId());
            assertThat(row.status()).isEqualTo("active");
            assertThat(row.env()).isEqualTo("rc");
            assertThat(row.severity()).isEqualTo("high");
            assertThat(row.actorId()).isEqualTo(episode.actorId());
            assertThat(row.raisedByEpisodeId()).isEqualTo(episode.id());
            assertThat(row.subjectKind()).isEqualTo("host");
            assertThat(row.subjectId()).isEqualTo("web-1");
            assertThat(row.summary()).isEqualTo("CPU at 97%");
            assertThat(row.confidence()).isEqualTo(0.9);
            assertThat(row.evidence().getInt("cpu")).isEqualTo(97);
            assertThat(row.expiresAt()).isNull();
        });
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void re_raising_an_active_finding_updates_it_instead_of_adding_a_row(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String key = key();
        FindingOutcome first = f.apply(FindingAction.raise(key, "disk_full").withSubject("volume", "/data")
                .withSummary("91% used"), episode(null));

        FindingOutcome second = f.apply(FindingAction.raise(key, "disk_full").withSeverity(Severity.CRITICAL)
                .withSummary("99% used").withTtl(Duration.ofHours(1)), episode(null));

        assertThat(second.kind()).isEqualTo(Kind.UPDATED);
        assertThat(second.findingId()).isEqualTo(first.findingId());
        assertThat(f.rows(key)).singleElement().satisfies(row -> {
            assertThat(row.severity()).isEqualTo("critical");
            assertThat(row.summary()).isEqualTo("99% used");
            assertThat(row.subjectId()).as("a field the re-raise left out keeps its value").isEqualTo("/data");
            assertThat(row.expiresAt()).as("the TTL of the re-raise applies").isNotNull();
        });
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void two_envs_keep_separate_active_rows_for_one_key(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String key = key();

        FindingOutcome prod = f.apply(FindingAction.raise(key, "latency"), episode("prod"));
        FindingOutcome staging = f.apply(FindingAction.raise(key, "latency"), episode("staging"));
        FindingOutcome explicit = f.apply(FindingAction.raise(key, "latency").inEnv("staging"), episode("prod"));

        assertThat(prod.kind()).isEqualTo(Kind.RAISED);
        assertThat(staging.kind()).isEqualTo(Kind.RAISED);
        assertThat(staging.findingId()).isNotEqualTo(prod.findingId());
        assertThat(explicit.kind()).as("the action's env wins over the episode's").isEqualTo(Kind.UPDATED);
        assertThat(explicit.findingId()).isEqualTo(staging.findingId());
        assertThat(f.rows(key)).extracting(FindingView::env).containsExactlyInAnyOrder("prod", "staging");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_unset_env_and_the_rc_env_are_separate_worlds(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String key = key();

        FindingOutcome unset = f.apply(FindingAction.raise(key, "queue_depth"), episode(null));
        FindingOutcome rc = f.apply(FindingAction.raise(key, "queue_depth"), episode("rc"));
        FindingOutcome blank = f.apply(FindingAction.raise(key, "queue_depth"), episode(" "));

        assertThat(rc.findingId()).isNotEqualTo(unset.findingId());
        assertThat(blank.findingId()).as("a blank env is the unset env").isEqualTo(unset.findingId());
        assertThat(blank.env()).isNull();
        assertThat(f.activeFor(Map.of("finding_key", key), null)).extracting(FindingView::id)
                .containsExactly(unset.findingId());
        assertThat(f.activeFor(Map.of("finding_key", key), "rc")).extracting(FindingView::id)
                .containsExactly(rc.findingId());
        assertThat(f.apply(FindingAction.clear(key, "fixed"), episode(null)).findingId()).isEqualTo(unset.findingId());
        assertThat(f.activeFor(Map.of("finding_key", key), "rc")).as("clearing the unset env leaves rc alone")
                .hasSize(1);
    }

    // ---------------------------------------------------------------- update

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_update_changes_only_the_fields_it_names(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String key = key();
        FindingOutcome raised = f.apply(FindingAction.raise(key, "error_rate").withSeverity(Severity.LOW)
                .withSummary("2% errors").withConfidence(0.5).withSubject("service", "api"), episode("rc"));

        FindingOutcome updated = f.apply(new FindingAction.Update(key, Severity.HIGH, null, null, 0.8, null),
                episode("rc"));

        assertThat(updated.kind()).isEqualTo(Kind.UPDATED);
        assertThat(updated.findingId()).isEqualTo(raised.findingId());
        assertThat(updated.severity()).isEqualTo(Severity.HIGH);
        assertThat(f.rows(key)).singleElement().satisfies(row -> {
            assertThat(row.severity()).isEqualTo("high");
            assertThat(row.confidence()).isEqualTo(0.8);
            assertThat(row.summary()).isEqualTo("2% errors");
            assertThat(row.subjectId()).isEqualTo("api");
            assertThat(row.findingClass()).isEqualTo("error_rate");
        });
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_update_with_nothing_active_is_not_found(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String key = key();
        f.apply(FindingAction.raise(key, "error_rate"), episode("prod"));

        FindingOutcome outcome = f.apply(FindingAction.update(key), episode("rc"));

        assertThat(outcome.kind()).isEqualTo(Kind.NOT_FOUND);
        assertThat(outcome.findingId()).isNull();
        assertThat(outcome.env()).isEqualTo("rc");
    }

    // ---------------------------------------------------------------- clear

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void clearing_twice_keeps_history_and_the_second_clear_supersedes_the_first(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String key = key();
        EpisodeRef clearer = episode("rc");
        FindingOutcome firstRaise = f.apply(FindingAction.raise(key, "backup_missing"), episode("rc"));
        FindingOutcome firstClear = f.apply(FindingAction.clear(key, "backup ran"), clearer);
        FindingOutcome secondRaise = f.apply(FindingAction.raise(key, "backup_missing"), episode("rc"));

        FindingOutcome secondClear = f.apply(FindingAction.clear(key, "backup ran again"), clearer);
        FindingOutcome thirdClear = f.apply(FindingAction.clear(key, "nothing to do"), clearer);

        assertThat(firstClear.kind()).isEqualTo(Kind.CLEARED);
        assertThat(firstClear.findingId()).isEqualTo(firstRaise.findingId());
        assertThat(secondRaise.kind()).isEqualTo(Kind.RAISED);
        assertThat(secondClear.kind()).isEqualTo(Kind.CLEARED);
        assertThat(secondClear.findingId()).isEqualTo(secondRaise.findingId());
        assertThat(thirdClear.kind()).isEqualTo(Kind.NOOP);
        assertThat(f.row(firstRaise.findingId())).satisfies(row -> {
            assertThat(row.status()).isEqualTo("superseded");
            assertThat(row.clearedReason()).isEqualTo("backup ran");
        });
        assertThat(f.row(secondRaise.findingId())).satisfies(row -> {
            assertThat(row.status()).isEqualTo("cleared");
            assertThat(row.clearedByEpisodeId()).isEqualTo(clearer.id());
            assertThat(row.clearedAt()).isNotNull();
            assertThat(row.clearedReason()).isEqualTo("backup ran again");
        });
        assertThat(f.count("SELECT COUNT(*) FROM cyclium_findings WHERE finding_key = ?1 AND archived_at IS NOT NULL",
                key)).isEqualTo(1);
    }

    // ---------------------------------------------------------------- expiry

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void expiry_clears_only_findings_whose_time_has_passed_on_the_database_clock(Vendor vendor) {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String due = key();
        String later = key();
        String never = key();
        String cls = "ttl_" + UUID.randomUUID();
        f.apply(FindingAction.raise(due, cls), episode(null));
        f.apply(FindingAction.clear(due, "an older clear"), episode(null));
        FindingOutcome dueRow = f.apply(FindingAction.raise(due, cls).withTtl(Duration.ofHours(1)), episode(null));
        FindingOutcome laterRow = f.apply(FindingAction.raise(later, cls).withTtl(Duration.ofHours(1)), episode(null));
        FindingOutcome neverRow = f.apply(FindingAction.raise(never, cls), episode(null));
        f.jpa.run(em -> em.createNativeQuery("UPDATE cyclium_findings SET expires_at = "
                + f.jpa.vendor().utcNowPlusSeconds("-60") + " WHERE id = ?1").setParameter(1, dueRow.findingId())
                .executeUpdate());

        assertThat(f.activeFor(Map.of("class", cls), null)).as("an expired row is not served before the sweep")
                .extracting(FindingView::id).containsExactlyInAnyOrder(laterRow.findingId(), neverRow.findingId());

        int cleared = f.jpa.inNewTransaction(em -> f.store.expireDue(em, 500));

        assertThat(cleared).isPositive();
        assertThat(f.row(dueRow.findingId())).satisfies(row -> {
            assertThat(row.status()).isEqualTo("cleared");
            assertThat(row.clearedReason()).isEqualTo(FindingStore.EXPIRED);
        });
        assertThat(f.rows(due)).extracting(FindingView::status).containsExactlyInAnyOrder("superseded", "cleared");
        assertThat(f.row(laterRow.findingId()).status()).isEqualTo("active");
        assertThat(f.row(neverRow.findingId()).status()).isEqualTo("active");
        int again = f.jpa.inNewTransaction(em -> f.store.expireDue(em, 500));
        assertThat(again).as("nothing is due twice").isZero();
    }

    // ---------------------------------------------------------------- races

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void eight_threads_raising_one_new_key_at_once_leave_exactly_one_active_row(Vendor vendor) throws Exception {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String key = key();

        List<FindingOutcome> outcomes = Concurrently.run(8, i ->
                f.apply(FindingAction.raise(key, "race").withSummary("raiser " + i), episode("rc")));

        assertThat(outcomes).extracting(FindingOutcome::kind).filteredOn(k -> k == Kind.RAISED).hasSize(1);
        assertThat(outcomes).extracting(FindingOutcome::kind).filteredOn(k -> k == Kind.UPDATED).hasSize(7);
        assertThat(outcomes).extracting(FindingOutcome::findingId).containsOnly(outcomes.get(0).findingId());
        assertThat(f.rows(key)).singleElement().extracting(FindingView::status).isEqualTo("active");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_raise_that_meets_an_uncommitted_insert_of_its_key_waits_and_then_joins_that_row(Vendor vendor)
            throws Exception {
        FindingFixture f = new FindingFixture(databases.jpa(vendor));
        String key = key();
        CountDownLatch inserted = new CountDownLatch(1);
        CountDownLatch commit = new CountDownLatch(1);
        CompletableFuture<FindingOutcome> first = CompletableFuture.supplyAsync(() -> f.jpa.inNewTransaction(em -> {
            FindingOutcome o = f.store.apply(em, FindingAction.raise(key, "race"), episode("rc"), null);
            inserted.countDown();
            await(commit);
            return o;
        }));
        assertThat(inserted.await(30, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<FindingOutcome> second = CompletableFuture.supplyAsync(() ->
                f.apply(FindingAction.raise(key, "race").withSummary("second"), episode("rc")));
        // no clock to advance here: give the second raise time to reach the key the first one holds
        Thread.sleep(300);
        assertThat(second).as("the second raise waits for the first one's transaction").isNotDone();
        commit.countDown();

        assertThat(first.get(30, TimeUnit.SECONDS).kind()).isEqualTo(Kind.RAISED);
        FindingOutcome joined = second.get(30, TimeUnit.SECONDS);
        assertThat(joined.kind()).isEqualTo(Kind.UPDATED);
        assertThat(joined.findingId()).isEqualTo(first.get().findingId());
        assertThat(f.rows(key)).singleElement().extracting(FindingView::summary).isEqualTo("second");
    }
}
