package io.cyclium.retry;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.store.DatabaseTime;
import io.cyclium.episode.StepKind;
import io.cyclium.store.JsonText;
import io.cyclium.testing.Concurrently;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestJpa;
import io.cyclium.timing.RetryPolicy;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Persisted retries of plain episodes against a real database (H2, PostgreSQL and MariaDB). Nodes
 * and restarts are separate {@link EpisodeRetries} objects over the same rows; each test has a
 * database of its own, as a timer starts every due retry it finds.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class EpisodeRetriesTest {

    /** Timers scan every due row, so each test gets a database of its own, closed after it. */
    @org.junit.jupiter.api.extension.RegisterExtension
    final io.cyclium.testing.OwnDatabases own = new io.cyclium.testing.OwnDatabases();

    TestJpa ownDatabase(Vendor vendor) {
        return own.open(vendor);
    }

    static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

    /** 3 episodes in all; waits 10 s, then 30 s; "denied_by_policy" never retries. */
    static final RetryPolicy POLICY = new RetryPolicy(3, Duration.ofSeconds(10), 3.0, Duration.ofMinutes(5), 0.0,
            Set.of("invalid_input"));

    final MutableClock clock = new MutableClock(T0);
    final RecordingTelemetry telemetry = new RecordingTelemetry();

    EpisodeRetries node(TestJpa db, RetryLauncher launcher, String name, RetryPolicy policy) {
        return new EpisodeRetries(db, new EpisodeRetryStore(DatabaseTime.following(db.vendor(), clock)), new EpisodeRetryQueries(),
                new EpisodeStore(db.vendor()), (actor, exp) -> RetryEpisodes.ACTOR.equals(actor)
                        && RetryEpisodes.EXPECTATION.equals(exp) ? Optional.of(policy) : Optional.empty(),
                launcher, clock, () -> 0.5, name, telemetry);
    }

    EpisodeRetries node(TestJpa db, RetryLauncher launcher, String name) {
        return node(db, launcher, name, POLICY);
    }

    static String key() {
        return "event:retrying:flaky:" + UUID.randomUUID();
    }

    static JsonObject payload() {
        return Json.createObjectBuilder().add("resource", "r-" + UUID.randomUUID()).build();
    }

    static EpisodeRetryQueries.RetryState state(TestJpa db, String episodeId) {
        return db.inNewTransaction(em -> new EpisodeRetryQueries().state(em, episodeId));
    }

    static Optional<LocalDateTime> due(TestJpa db, String episodeId) {
        return state(db, episodeId).dueAt();
    }

    static LocalDateTime at(Instant t) {
        return LocalDateTime.ofInstant(t, ZoneOffset.UTC);
    }

    /** The journal kinds and details of an episode, in order. */
    static List<Object[]> journal(TestJpa db, String episodeId) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = db.inNewTransaction(em -> em.createNativeQuery("SELECT kind, detail, error_class FROM"
                + " cyclium_episode_steps WHERE episode_id = ?1 ORDER BY step_no").setParameter(1, episodeId).getResultList());
        return rows;
    }

    static long episodesWithKey(TestJpa db, String dedupeKey) {
        return db.inNewTransaction(em -> ((Number) em.createNativeQuery("SELECT COUNT(*) FROM cyclium_episodes WHERE"
                + " dedupe_key = ?1").setParameter(1, dedupeKey).getSingleResult()).longValue());
    }

    /** A node whose own clock is {@code skew} off, writing and comparing due times on the database's clock. */
    EpisodeRetries skewedNode(TestJpa db, RetryLauncher launcher, String name, Duration skew) {
        return new EpisodeRetries(db, new EpisodeRetryStore(DatabaseTime.of(db.vendor())), new EpisodeRetryQueries(),
                new EpisodeStore(db.vendor()), (actor, exp) -> Optional.of(POLICY), launcher,
                java.time.Clock.offset(java.time.Clock.systemUTC(), skew), () -> 0.5, name, telemetry);
    }

    static LocalDateTime databaseNow(TestJpa db) {
        return db.inNewTransaction(em -> DatabaseTime.of(db.vendor()).read(em));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_retry_is_due_by_the_database_clock_even_when_the_failing_node_s_clock_is_an_hour_ahead(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String first = episodes.started(key(), payload(), null);

        LocalDateTime before = databaseNow(db);
        skewedNode(db, episodes, "ahead", Duration.ofHours(1)).onFinished(episodes.fail(first, "strategy_crash"));
        LocalDateTime after = databaseNow(db);

        assertThat(due(db, first).orElseThrow()).as("the database's now + 10 s, not the node's")
                .isBetween(before.plusSeconds(10).minusNanos(1_000_000), after.plusSeconds(10).plusNanos(1_000_000));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_whose_clock_runs_ahead_starts_no_retry_before_the_database_says_it_is_due(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String first = episodes.started(key(), payload(), null);
        skewedNode(db, episodes, "right", Duration.ZERO).onFinished(episodes.fail(first, "strategy_crash"));

        assertThat(skewedNode(db, episodes, "ahead", Duration.ofHours(1)).runDue(10)).as("due in 10 s by the database").isZero();
        assertThat(episodes.launched).isEmpty();
        assertThat(state(db, first).claimed()).isFalse();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_failed_episode_is_retried_on_the_backoff_schedule_until_its_attempts_run_out(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        EpisodeRetries retries = node(db, episodes, "n1");
        JsonObject payload = payload();
        String first = episodes.started(key(), payload, null);

        assertThat(retries.onFinished(episodes.fail(first, "strategy_crash"))).contains(T0.plusSeconds(10));
        assertThat(due(db, first)).contains(at(T0.plusSeconds(10)));
        Object[] scheduled = journal(db, first).get(journal(db, first).size() - 1);
        assertThat(scheduled[0]).isEqualTo(StepKind.RETRY_SCHEDULED);
        JsonObject detail = JsonText.parseObject(io.cyclium.store.NativeSql.text(scheduled[1]));
        assertThat(detail.getInt("attempt")).isEqualTo(1);
        assertThat(detail.getString("errorClass")).isEqualTo("strategy_crash");
        assertThat(detail.getJsonNumber("dueInMs").longValue()).isEqualTo(10_000);

        clock.advance(Duration.ofSeconds(9));
        assertThat(retries.runDue(10)).as("not due yet").isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(retries.runDue(10)).isEqualTo(1);
        RetryEpisodes.Launched second = episodes.only();
        assertThat(second.dedupeKey()).isEqualTo("retry:" + first + ":2");
        assertThat(second.payload()).as("the next attempt sees the same trigger payload").isEqualTo(payload);
        assertThat(state(db, first).dueAt()).isEmpty();
        assertThat(state(db, first).retriedBy()).contains(second.episodeId());
        assertThat(journal(db, first).get(journal(db, first).size() - 1)[0]).isEqualTo(StepKind.RETRY_STARTED);
        assertThat(retries.runDue(10)).as("started once").isZero();

        assertThat(retries.onFinished(episodes.fail(second.episodeId(), "converge_failed")))
                .as("the second wait is 10 s x 3").contains(T0.plusSeconds(10 + 30));
        clock.advance(Duration.ofSeconds(30));
        assertThat(retries.runDue(10)).isEqualTo(1);
        RetryEpisodes.Launched third = episodes.last();
        assertThat(third.dedupeKey()).isEqualTo("retry:" + first + ":3");

        assertThat(retries.onFinished(episodes.fail(third.episodeId(), "converge_failed")))
                .as("3 of 3 attempts used").isEmpty();
        assertThat(due(db, third.episodeId())).isEmpty();
        clock.advance(Duration.ofHours(1));
        assertThat(retries.runDue(10)).isZero();
        assertThat(episodes.launched).hasSize(2);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_operator_s_retry_now_starts_the_next_attempt_of_the_chain_once_even_with_no_attempt_left(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        EpisodeRetries retries = node(db, episodes, "n1", new RetryPolicy(1, Duration.ofSeconds(10), 1.0, Duration.ofMinutes(1),
                0.0, Set.of()));
        String first = episodes.started(key(), payload(), null);
        assertThat(retries.onFinished(episodes.fail(first, "strategy_crash"))).as("1 of 1 attempts used").isEmpty();

        EpisodeRetries.Started started = retries.retryNow(first).orElseThrow();

        RetryEpisodes.Launched second = episodes.only();
        assertThat(started.episodeId()).isEqualTo(second.episodeId());
        assertThat(started.kind()).isEqualTo(RetryLauncher.Kind.CREATED);
        assertThat(second.dedupeKey()).isEqualTo("retry:" + first + ":2");
        assertThat(state(db, first).retriedBy()).contains(second.episodeId());
        assertThat(state(db, first).dueAt()).isEmpty();
        assertThat(journal(db, first).get(journal(db, first).size() - 1)[0]).isEqualTo(StepKind.RETRY_STARTED);

        assertThatProblem(() -> retries.retryNow(first), "episode " + first + " was already retried as episode " + second.episodeId());
        assertThatProblem(() -> retries.retryNow(second.episodeId()), "episode " + second.episodeId() + " is running, not failed");
        clock.advance(Duration.ofHours(1));
        assertThat(retries.runDue(10)).as("the timer starts nothing more").isZero();
        assertThat(episodes.launched).hasSize(1);
        assertThat(episodesWithKey(db, "retry:" + first + ":2")).isEqualTo(1);
    }

    private static void assertThatProblem(Runnable call, String message) {
        org.assertj.core.api.Assertions.assertThatThrownBy(call::run).isInstanceOfSatisfying(io.cyclium.problem.Problem.class, p -> {
            assertThat(p.status()).isEqualTo(409);
            assertThat(p.getMessage()).startsWith(message);
        });
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_non_retryable_error_class_a_cancel_a_denial_and_success_end_for_good(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        EpisodeRetries retries = node(db, episodes, "n1");
        String invalid = episodes.started(key(), payload(), null);
        String canceled = episodes.started(key(), payload(), null);
        String denied = episodes.started(key(), payload(), null);
        String done = episodes.started(key(), payload(), null);

        assertThat(retries.onFinished(episodes.fail(invalid, "invalid_input"))).isEmpty();
        assertThat(retries.onFinished(episodes.end(canceled, EpisodeStatus.CANCELED, "canceled"))).isEmpty();
        assertThat(retries.onFinished(episodes.end(denied, EpisodeStatus.CANCELED, "denied"))).isEmpty();
        assertThat(retries.onFinished(episodes.end(done, EpisodeStatus.DONE, null))).isEmpty();

        clock.advance(Duration.ofHours(1));
        assertThat(retries.runDue(10)).isZero();
        assertThat(episodes.launched).isEmpty();
        for (String id : List.of(invalid, canceled, denied, done)) {
            assertThat(due(db, id)).as(id).isEmpty();
            assertThat(journal(db, id)).extracting(r -> r[0]).doesNotContain(StepKind.RETRY_SCHEDULED);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void workflow_steps_and_expectations_without_a_policy_are_not_retried_here(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String step = episodes.started(key(), payload(), UUID.randomUUID().toString());
        String plain = episodes.started(key(), payload(), null);

        assertThat(node(db, episodes, "n1").onFinished(episodes.fail(step, "strategy_crash")))
                .as("the workflow engine retries steps by the step's policy").isEmpty();
        assertThat(node(db, episodes, "n1", RetryPolicy.NONE).onFinished(episodes.fail(plain, "strategy_crash")))
                .isEmpty();
        assertThat(due(db, step)).isEmpty();
        assertThat(due(db, plain)).isEmpty();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void hearing_the_same_failure_twice_schedules_one_retry(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String first = episodes.started(key(), payload(), null);
        var failed = episodes.fail(first, "strategy_crash");

        assertThat(node(db, episodes, "n1").onFinished(failed)).isPresent();
        clock.advance(Duration.ofSeconds(3));
        assertThat(node(db, episodes, "n2").onFinished(failed)).isEmpty();
        assertThat(due(db, first)).as("the first decision stands").contains(at(T0.plusSeconds(10)));
        assertThat(journal(db, first)).extracting(r -> r[0]).containsOnlyOnce(StepKind.RETRY_SCHEDULED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void two_timers_racing_start_a_due_retry_once(Vendor vendor) throws InterruptedException {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        List<String> failed = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String id = episodes.started(key(), payload(), null);
            node(db, episodes, "n0").onFinished(episodes.fail(id, "strategy_crash"));
            failed.add(id);
        }
        clock.advance(Duration.ofSeconds(10));
        EpisodeRetries n1 = node(db, episodes, "n1");
        EpisodeRetries n2 = node(db, episodes, "n2");

        List<Integer> started = Concurrently.run(2, i -> (i == 0 ? n1 : n2).runDue(50));

        assertThat(started.get(0) + started.get(1)).isEqualTo(10);
        for (String id : failed) {
            assertThat(episodesWithKey(db, "retry:" + id + ":2")).as("attempt 2 of " + id).isEqualTo(1);
            assertThat(state(db, id).retriedBy()).isPresent();
        }
        assertThat(episodes.launched).hasSize(10);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_retry_survives_a_restart_between_the_failure_and_its_due_time(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        String first;
        {
            RetryEpisodes before = new RetryEpisodes(db);
            first = before.started(key(), payload(), null);
            node(db, before, "n1").onFinished(before.fail(first, "strategy_crash"));
        }
        // the node stops: nothing of it is left but the rows
        clock.advance(Duration.ofMinutes(5));
        RetryEpisodes after = new RetryEpisodes(db);

        assertThat(node(db, after, "n1").runDue(10)).isEqualTo(1);
        assertThat(after.only().dedupeKey()).isEqualTo("retry:" + first + ":2");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_that_dies_holding_a_claim_leaves_the_retry_to_another_node_after_the_lease(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String beforeLaunch = episodes.started(key(), payload(), null);
        String afterLaunch = episodes.started(key(), payload(), null);
        node(db, episodes, "n0").onFinished(episodes.fail(beforeLaunch, "strategy_crash"));
        node(db, episodes, "n0").onFinished(episodes.fail(afterLaunch, "strategy_crash"));
        clock.advance(Duration.ofSeconds(10));
        // n1 claims both and dies: once before creating the episode, once after (before settling)
        int deaths = 0;
        RetryLauncher dying = (failed, key) -> {
            if (failed.episodeId().equals(afterLaunch)) {
                episodes.launch(failed, key);
            }
            throw new IllegalStateException("kill -9");
        };
        for (int i = 0; i < 2; i++) {
            try {
                node(db, dying, "n1").runDue(1);
            } catch (IllegalStateException expected) {
                deaths++;
            }
        }
        assertThat(deaths).as("n1 claimed each of the two and died").isEqualTo(2);
        assertThat(episodes.launched).hasSize(1);

        EpisodeRetries n2 = node(db, episodes, "n2");
        assertThat(n2.runDue(10)).as("claimed by n1 until the lease ends").isZero();
        clock.advance(EpisodeRetries.CLAIM_LEASE);
        n2.runDue(10);

        assertThat(episodesWithKey(db, "retry:" + beforeLaunch + ":2")).isEqualTo(1);
        assertThat(episodesWithKey(db, "retry:" + afterLaunch + ":2")).as("never twice").isEqualTo(1);
        assertThat(state(db, beforeLaunch).retriedBy()).isPresent();
        assertThat(state(db, afterLaunch).retriedBy()).as("settled on the episode n1 created")
                .contains(episodes.launched.get(0).episodeId());
        assertThat(n2.runDue(10)).isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_failed_episode_keeps_its_dedupe_key_while_the_retry_waits(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String key = key();
        String first = episodes.started(key, payload(), null);
        node(db, episodes, "n1").onFinished(episodes.fail(first, "strategy_crash"));

        Optional<String> holder = db.inNewTransaction(em -> new EpisodeRetryQueries().holderOf(em, key));
        assertThat(holder).contains(first);
        String twin = UUID.randomUUID().toString();
        boolean inserted = db.inNewTransaction(em -> new EpisodeStore(db.vendor()).insert(em,
                new io.cyclium.episode.NewEpisode(twin, RetryEpisodes.ACTOR, RetryEpisodes.EXPECTATION, "1",
                        new io.cyclium.episode.TriggerInfo("event", null, null, null, null), key, 3,
                        new io.cyclium.episode.Budget(10, Duration.ofMinutes(1)), "n", false, null, null, null, null)));
        assertThat(inserted).as("the same trigger again is a duplicate while the retry waits").isFalse();
    }

    /** The actors with a retry policy here, as the service passes them to reconcile. */
    static final List<String> RETRYING = List.of(RetryEpisodes.ACTOR);

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_failure_committed_by_a_node_killed_before_its_retry_was_decided_is_scheduled_by_the_reconcile_after_a_sweep(
            Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String first = episodes.started(key(), payload(), null);
        // n1 commits the failure and is killed before its retry hook runs: the event is lost with it
        var unheard = episodes.fail(first, "strategy_crash");

        assertThat(due(db, first)).as("the failure and its retry row are separate transactions: nothing is due yet")
                .isEmpty();
        EpisodeRetries n2 = node(db, episodes, "n2");
        clock.advance(Duration.ofSeconds(40));
        assertThat(n2.runDue(10)).as("the timer alone cannot see it").isZero();

        assertThat(n2.reconcile(RETRYING, "stack", false, "env", 100)).isEqualTo(1);
        assertThat(due(db, first)).as("waits its backoff from when reconcile heard it")
                .contains(at(T0.plusSeconds(40 + 10)));
        Object[] scheduled = journal(db, first).get(journal(db, first).size() - 1);
        assertThat(scheduled[0]).isEqualTo(StepKind.RETRY_SCHEDULED);
        assertThat(JsonText.parseObject(io.cyclium.store.NativeSql.text(scheduled[1])).getBoolean("reconciled")).isTrue();
        assertThat(n2.reconcile(RETRYING, "stack", false, "env", 100)).as("decided once").isZero();
        assertThat(node(db, episodes, "n1").onFinished(unheard)).as("a late live hook lands on the same decision").isEmpty();
        assertThat(journal(db, first)).extracting(r -> r[0]).containsOnlyOnce(StepKind.RETRY_SCHEDULED);

        clock.advance(Duration.ofSeconds(10));
        assertThat(n2.runDue(10)).isEqualTo(1);
        assertThat(episodes.only().dedupeKey()).isEqualTo("retry:" + first + ":2");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void reconcile_leaves_alone_what_would_not_have_retried_and_what_is_outside_the_sweep_or_its_window(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String exhausted = episodes.started("retry:" + UUID.randomUUID() + ":3", payload(), null);
        String invalid = episodes.started(key(), payload(), null);
        String step = episodes.started(key(), payload(), UUID.randomUUID().toString());
        String archived = episodes.started(key(), payload(), null);
        String old = episodes.started(key(), payload(), null);
        String done = episodes.started(key(), payload(), null);
        episodes.fail(exhausted, "strategy_crash");
        episodes.fail(invalid, "invalid_input");
        episodes.fail(step, "strategy_crash");
        episodes.fail(archived, "strategy_crash");
        episodes.fail(old, "strategy_crash");
        episodes.end(done, EpisodeStatus.DONE, null);
        archive(db, archived);
        db.run(em -> em.createNativeQuery("UPDATE cyclium_episodes SET finished_at = ?2 WHERE id = ?1").setParameter(1, old)
                .setParameter(2, java.sql.Timestamp.valueOf(LocalDateTime.now(ZoneOffset.UTC).minus(EpisodeRetries.RECONCILE_WINDOW)
                        .minusDays(1))).executeUpdate());
        String inScope = episodes.started(key(), payload(), null);
        episodes.fail(inScope, "strategy_crash");

        EpisodeRetries n2 = node(db, episodes, "n2");
        assertThat(n2.reconcile(RETRYING, "other-stack", false, "env", 100)).as("another stack's sweep").isZero();
        assertThat(n2.reconcile(List.of("another_actor"), "stack", false, "env", 100)).as("no policy for this actor").isZero();
        assertThat(n2.reconcile(RETRYING, null, true, "env", 100)).as("only the one that would have retried").isEqualTo(1);
        assertThat(due(db, inScope)).isPresent();
        for (String id : List.of(exhausted, invalid, step, archived, old, done)) {
            assertThat(due(db, id)).as(id).isEmpty();
        }
    }

    static void archive(TestJpa db, String episodeId) {
        // retention's own archive step, with no retention window: anything finished before now
        sleepAMillisecond();
        int n = db.inNewTransaction(em -> new io.cyclium.retention.RetentionStore(db.vendor()).apply(em,
                io.cyclium.retention.RetentionStep.ARCHIVE_EPISODES, Duration.ZERO, List.of(episodeId)));
        assertThat(n).as("archived " + episodeId).isEqualTo(1);
    }

    static void sleepAMillisecond() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_episode_archived_while_its_retry_waits_is_not_retried(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String waiting = episodes.started(key(), payload(), null);
        String raced = episodes.started(key(), payload(), null);
        EpisodeRetries n1 = node(db, episodes, "n1");
        n1.onFinished(episodes.fail(waiting, "strategy_crash"));
        n1.onFinished(episodes.fail(raced, "strategy_crash"));
        archive(db, waiting);
        clock.advance(Duration.ofSeconds(10));

        // raced: read as due by a timer, archived before that timer's claim
        List<EpisodeRetryQueries.DueRetry> read = db.inNewTransaction(em -> new EpisodeRetryQueries().due(em,
                DatabaseTime.following(db.vendor(), clock), 10));
        assertThat(read).extracting(EpisodeRetryQueries.DueRetry::episodeId).containsExactly(raced);
        archive(db, raced);
        assertThat(db.<Integer>inNewTransaction(em -> new EpisodeRetryStore(DatabaseTime.following(db.vendor(), clock)).claim(em, raced,
                EpisodeRetries.CLAIM_LEASE))).as("the claim refuses archived work").isZero();

        assertThat(n1.runDue(10)).isZero();
        assertThat(episodes.launched).isEmpty();
        assertThat(n1.reconcile(RETRYING, null, true, null, 100)).isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_episode_restarted_while_its_retry_waits_is_run_by_the_restart_alone_and_a_new_failure_decides_afresh(
            Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        EpisodeStore store = new EpisodeStore(db.vendor());
        String first = episodes.started(key(), payload(), null);
        EpisodeRetries n1 = node(db, episodes, "n1");
        n1.onFinished(episodes.fail(first, "strategy_crash"));

        assertThat(db.<Integer>inNewTransaction(em -> store.restart(em, first, EpisodeStatus.FAILED))).isEqualTo(1);
        assertThat(due(db, first)).as("the restart replaces the waiting retry").isEmpty();
        clock.advance(Duration.ofSeconds(10));
        assertThat(n1.runDue(10)).as("nothing starts beside the restarted run").isZero();
        assertThat(n1.reconcile(RETRYING, null, true, null, 100)).as("a running episode is not a failure").isZero();

        clock.advance(Duration.ofSeconds(5));
        n1.onFinished(episodes.fail(first, "strategy_crash"));
        assertThat(due(db, first)).as("its failure waits the backoff again").contains(at(T0.plusSeconds(25)));
        clock.advance(Duration.ofSeconds(10));
        assertThat(n1.runDue(10)).isEqualTo(1);
        assertThat(episodes.only().dedupeKey()).isEqualTo("retry:" + first + ":2");
        assertThat(episodesWithKey(db, "retry:" + first + ":2")).isEqualTo(1);
    }

    /** A plain episode that failed with attempts left, its next attempt due now. */
    String dueFailure(TestJpa db, RetryEpisodes episodes) {
        String id = episodes.started(key(), payload(), null);
        node(db, episodes, "n0").onFinished(episodes.fail(id, "strategy_crash"));
        clock.advance(Duration.ofSeconds(10));
        return id;
    }

    /** An operator's restart of a failed episode (the guarded UPDATE); 1 when it won. */
    static int restart(TestJpa db, String episodeId) {
        return db.inNewTransaction(em -> new EpisodeStore(db.vendor()).restart(em, episodeId, EpisodeStatus.FAILED));
    }

    static String status(TestJpa db, String episodeId) {
        return db.inNewTransaction(em -> (String) em.createNativeQuery("SELECT status FROM cyclium_episodes WHERE id = ?1")
                .setParameter(1, episodeId).getSingleResult());
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_operators_restart_racing_the_timer_that_starts_the_same_retry_lets_exactly_one_of_them_run(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String first = dueFailure(db, episodes);

        // the restart lands after the timer's claim, while it creates the next attempt's episode
        java.util.concurrent.atomic.AtomicInteger restarted = new java.util.concurrent.atomic.AtomicInteger(-1);
        RetryLauncher racing = (failed, key) -> {
            restarted.set(restart(db, first));
            return episodes.launch(failed, key);
        };
        assertThat(node(db, racing, "n1").runDue(10)).isEqualTo(1);
        assertThat(restarted.get()).as("the restart lost to the claim").isZero();
        assertThat(status(db, first)).as("the failed episode does not run beside its retry").isEqualTo("failed");
        assertThat(state(db, first).retriedBy()).contains(episodes.only().episodeId());
        assertThat(restart(db, first)).as("nor once the retry runs").isZero();

        // the other order: the restart lands between the timer's read of due rows and its claim
        String second = dueFailure(db, episodes);
        List<EpisodeRetryQueries.DueRetry> read = db.inNewTransaction(em -> new EpisodeRetryQueries().due(em,
                DatabaseTime.following(db.vendor(), clock), 10));
        assertThat(read).extracting(EpisodeRetryQueries.DueRetry::episodeId).containsExactly(second);
        assertThat(restart(db, second)).isEqualTo(1);
        assertThat(db.<Integer>inNewTransaction(em -> new EpisodeRetryStore(DatabaseTime.following(db.vendor(), clock)).claim(em, second,
                EpisodeRetries.CLAIM_LEASE))).as("the claim lost to the restart").isZero();
        assertThat(node(db, episodes, "n1").runDue(10)).isZero();
        assertThat(episodesWithKey(db, "retry:" + second + ":2")).isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_claim_that_started_nothing_lets_an_operator_restart_the_episode(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String first = dueFailure(db, episodes);
        RetryLauncher elsewhere = (failed, key) -> new RetryLauncher.Launch(RetryLauncher.Kind.NOT_NOW, Optional.empty(),
                "actor not here");

        assertThat(node(db, elsewhere, "n1").runDue(10)).isZero();
        assertThat(state(db, first).claimed()).isFalse();
        assertThat(restart(db, first)).isEqualTo(1);
        clock.advance(EpisodeRetries.CLAIM_LEASE);
        assertThat(node(db, episodes, "n2").runDue(10)).as("the restart replaced the retry").isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void reconcile_reaches_an_old_failure_behind_more_undecidable_newer_ones_than_one_sweep_reads(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        RetryEpisodes episodes = new RetryEpisodes(db);
        String old = episodes.started(key(), payload(), null);
        episodes.fail(old, "strategy_crash");
        db.run(em -> em.createNativeQuery("UPDATE cyclium_episodes SET started_at = ?2 WHERE id = ?1").setParameter(1, old)
                .setParameter(2, java.sql.Timestamp.valueOf(LocalDateTime.now(ZoneOffset.UTC).minusHours(1))).executeUpdate());
        // 120 newer failures with no attempt left: each reconcile decides them again, to "no retry"
        for (int i = 0; i < 120; i++) {
            episodes.fail(episodes.started("retry:" + UUID.randomUUID() + ":3", payload(), null), "strategy_crash");
        }
        EpisodeRetries n2 = node(db, episodes, "n2");

        int scheduled = 0;
        for (int sweep = 0; sweep < 3 && scheduled == 0; sweep++) {
            scheduled += n2.reconcile(RETRYING, "stack", false, "env", 100);
        }
        assertThat(scheduled).as("the second sweep goes on where the first stopped").isEqualTo(1);
        assertThat(due(db, old)).isPresent();
        assertThat(n2.reconcile(RETRYING, "stack", false, "env", 100)).as("then starts over from the newest").isZero();
    }
}
