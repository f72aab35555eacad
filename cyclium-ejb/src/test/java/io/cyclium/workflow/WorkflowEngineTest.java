package io.cyclium.workflow;

import io.cyclium.timing.RetryPolicy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.problem.Problem;
import io.cyclium.testing.Concurrently;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.json.Json;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The engine against a real database (H2, PostgreSQL and MariaDB): every transition is a guarded UPDATE,
 * so these tests run engines as separate objects — two nodes, or one node before and after a
 * restart — over the same rows. Each test uses a workflow id of its own.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WorkflowEngineTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

    final MutableClock clock = new MutableClock(T0);
    final RecordingTelemetry telemetry = new RecordingTelemetry();

    static StepDefinition step(String id, String... deps) {
        return new StepDefinition(id, "worker", "work", List.of(deps), true, false, FailurePolicy.ABORT, RetryPolicy.NONE);
    }

    static WorkflowDefinition workflow(StepDefinition... steps) {
        return new WorkflowDefinition("wf-" + UUID.randomUUID().toString().substring(0, 8), "", List.of(), List.of(steps));
    }

    /** a → (b, c) → d: the diamond most tests use. */
    static WorkflowDefinition diamond() {
        return workflow(step("a"), step("b", "a"), step("c", "a"), step("d", "b", "c"));
    }


    static WorkflowEngine.Start whole() {
        return new WorkflowEngine.Start(Json.createObjectBuilder().add("resource", "r1").build(), null, null, null, null, "test");
    }

    InstanceRow instance(TestJpa db, String id) {
        return db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).instance(em, id)).orElseThrow();
    }

    Map<String, StepRow> steps(TestJpa db, String id) {
        Map<String, StepRow> out = new java.util.TreeMap<>();
        db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).steps(em, id)).forEach(s -> out.put(s.stepId(), s));
        return out;
    }

    void done(WorkflowEngine engine, StepEpisodes episodes, String stepId, int attempt) {
        engine.onFinished(episodes.finish(episodes.only(stepId, attempt).episodeId(), EpisodeStatus.DONE, null));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_instances_gauge_counts_what_is_in_flight_per_status_and_drops_to_zero_when_it_finishes(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(step("a"));
        WorkflowDefinition idle = workflow(step("a"));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine engine = engine(db, def, episodes, "n1");
        InstanceGauges gauges = new InstanceGauges(telemetry);
        WorkflowQueries queries = new WorkflowQueries(db.vendor());

        String id = engine.start(def, whole());
        gauges.counted(db.inNewTransaction(queries::inFlightCounts), List.of(def.id(), idle.id()));
        assertThat(telemetry.gauge("workflow_instances", "workflow", def.id(), "status", "running")).isEqualTo(1);
        assertThat(telemetry.gauge("workflow_instances", "workflow", def.id(), "status", "pending")).isZero();
        assertThat(telemetry.gauge("workflow_instances", "workflow", def.id(), "status", "blocked")).isZero();
        assertThat(telemetry.gauge("workflow_instances", "workflow", idle.id(), "status", "running"))
                .as("a deployed workflow with nothing in flight reads 0").isZero();

        done(engine, episodes, "a", 1);
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.COMPLETED);
        gauges.counted(db.inNewTransaction(queries::inFlightCounts), List.of(def.id(), idle.id()));
        assertThat(telemetry.gauge("workflow_instances", "workflow", def.id(), "status", "running")).isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void an_instance_is_a_span_under_the_request_that_started_it_and_the_parent_of_its_steps_on_every_node(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = diamond();
        io.cyclium.testing.CollectedSpans spans = new io.cyclium.testing.CollectedSpans();
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine one = engine(db, def, episodes, "n1").tracedBy(spans.tracing());
        // the second node has no span of the instance in memory: it reads it from the instance row
        WorkflowEngine two = engine(db, def, episodes, "n2").tracedBy(spans.tracing());

        String id;
        try (io.cyclium.telemetry.TraceSpan request = spans.tracing().enter("POST /cyclium/api/events", null)) {
            id = one.start(def, whole());
        }
        done(two, episodes, "a", 1);

        io.opentelemetry.sdk.trace.data.SpanData post = spans.named("POST /cyclium/api/events");
        io.opentelemetry.sdk.trace.data.SpanData instance = spans.named("cyclium workflow " + def.id());
        assertThat(instance.getParentSpanId()).isEqualTo(post.getSpanId());
        assertThat(io.cyclium.testing.CollectedSpans.attribute(instance, "cyclium.workflow.instance.id")).isEqualTo(id);
        String instanceSpan = "00-" + instance.getTraceId() + "-" + instance.getSpanId() + "-"
                + instance.getSpanContext().getTraceFlags().asHex();
        assertThat(instance(db, id).traceParent()).isEqualTo(instanceSpan);
        assertThat(episodes.stepsLaunched()).containsExactlyInAnyOrder("a", "b", "c");
        for (String step : List.of("a", "b", "c")) {
            String episodeId = episodes.only(step, 1).episodeId();
            assertThat(db.inNewTransaction(em -> em.find(io.cyclium.episode.EpisodeEntity.class, episodeId)).traceParent)
                    .as("step %s's episode runs under the instance's span", step).isEqualTo(instanceSpan);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_dag_runs_each_step_after_its_dependencies_and_completes_with_its_statistics(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = diamond();
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine engine = engine(db, def, episodes, "n1");

        String id = engine.start(def, whole());
        assertThat(episodes.stepsLaunched()).containsExactly("a");
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.RUNNING);
        assertThat(episodes.only("a", 1).input().getString("resource")).isEqualTo("r1");

        clock.advance(Duration.ofSeconds(2));
        done(engine, episodes, "a", 1);
        assertThat(episodes.stepsLaunched()).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(episodes.only("b", 1).input().getJsonObject("upstream").getJsonObject("a").getString("summary"))
                .isEqualTo("summary of a");
        clock.advance(Duration.ofSeconds(1));
        done(engine, episodes, "c", 1);
        assertThat(episodes.stepsLaunched()).as("d waits for b").hasSize(3);
        clock.advance(Duration.ofSeconds(5));
        done(engine, episodes, "b", 1);
        clock.advance(Duration.ofSeconds(1));
        done(engine, episodes, "d", 1);

        InstanceRow done = instance(db, id);
        assertThat(done.status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThat(done.durationMs()).isEqualTo(9_000);
        assertThat(done.stepsRun()).isEqualTo(4);
        assertThat(done.attemptsTotal()).isEqualTo(4);
        assertThat(done.retriesTotal()).isZero();
        assertThat(done.criticalPath()).as("b ran 6 s, c 1 s").isEqualTo("a,b,d");
        assertThat(done.stats()).contains("\"criticalPathMs\":9000");
        assertThat(steps(db, id).values()).allMatch(s -> s.state().equals(StepState.COMPLETED));
        List<TransitionRow> journal = db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).transitions(em, id));
        assertThat(journal).filteredOn(t -> "b".equals(t.stepId())).extracting(TransitionRow::toState)
                .containsExactly(StepState.QUEUED, StepState.RUNNING, StepState.COMPLETED);
        assertThat(journal).filteredOn(t -> t.stepId() == null).extracting(TransitionRow::toState)
                .containsExactly(InstanceStatus.PENDING, InstanceStatus.RUNNING, InstanceStatus.COMPLETED);
        assertThat(journal).allMatch(t -> "n1".equals(t.node()));
        assertThat(telemetry.count("workflow_instance_completed")).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_outcome_schedules_and_runs_exactly_its_target_and_the_target_s_dependencies(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(step("a"), step("b", "a"), step("c", "a"), step("d", "b", "c"), step("e"),
                step("f", "b"));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine engine = engine(db, def, episodes, "n1");

        String id = engine.start(def, new WorkflowEngine.Start(null, null, "b", null, null, "test"));
        assertThat(steps(db, id).keySet()).containsExactly("a", "b");
        done(engine, episodes, "a", 1);
        done(engine, episodes, "b", 1);

        assertThat(episodes.stepsLaunched()).containsExactly("a", "b");
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThat(instance(db, id).targetStep()).isEqualTo("b");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void two_engines_handling_the_same_finished_event_start_each_successor_exactly_once(Vendor vendor) throws Exception {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = diamond();
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine one = engine(db, def, episodes, "n1");
        WorkflowEngine two = engine(db, def, episodes, "n2");
        String id = one.start(def, whole());

        EpisodeFinished aDone = episodes.finish(episodes.only("a", 1).episodeId(), EpisodeStatus.DONE, null);
        Concurrently.run(8, i -> {
            (i % 2 == 0 ? one : two).onFinished(aDone);
            return null;
        });

        assertThat(episodes.stepsLaunched()).containsExactlyInAnyOrder("a", "b", "c");
        List<TransitionRow> journal = db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).transitions(em, id));
        assertThat(journal).filteredOn(t -> "a".equals(t.stepId()) && StepState.COMPLETED.equals(t.toState())).hasSize(1);
        assertThat(journal).filteredOn(t -> "b".equals(t.stepId()) && StepState.QUEUED.equals(t.toState())).hasSize(1);

        // b and c finish at once on two different nodes: d is started once
        EpisodeFinished bDone = episodes.finish(episodes.only("b", 1).episodeId(), EpisodeStatus.DONE, null);
        EpisodeFinished cDone = episodes.finish(episodes.only("c", 1).episodeId(), EpisodeStatus.DONE, null);
        Concurrently.run(2, i -> {
            if (i == 0) {
                one.onFinished(bDone);
            } else {
                two.onFinished(cDone);
            }
            return null;
        });
        assertThat(episodes.stepsLaunched()).filteredOn("d"::equals).hasSize(1);
        two.onFinished(episodes.finish(episodes.only("d", 1).episodeId(), EpisodeStatus.DONE, null));
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.COMPLETED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_terminal_event_nobody_heard_is_replayed_by_reconcile_on_another_node(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = diamond();
        StepEpisodes episodes = new StepEpisodes(db);
        String id = engine(db, def, episodes, "n1").start(def, whole());

        episodes.finish(episodes.only("a", 1).episodeId(), EpisodeStatus.DONE, null); // n1 died: the event is lost
        assertThat(steps(db, id).get("a").state()).isEqualTo(StepState.RUNNING);

        WorkflowEngine other = engine(db, def, episodes, "n2");
        other.reconcile(null, true, null, 100);
        assertThat(steps(db, id).get("a").state()).isEqualTo(StepState.COMPLETED);
        assertThat(episodes.stepsLaunched()).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(telemetry.count("workflow_event_replayed")).isEqualTo(1);

        other.reconcile(null, true, null, 100);
        assertThat(episodes.stepsLaunched()).as("a second reconcile changes nothing").hasSize(3);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_queued_by_a_node_that_died_before_launching_it_is_launched_by_reconcile(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(step("a"));
        String id = engine(db, def, new NothingStarts(db), "n1").start(def, whole());
        assertThat(steps(db, id).get("a").state()).isEqualTo(StepState.QUEUED);

        StepEpisodes episodes = new StepEpisodes(db);
        engine(db, def, episodes, "n2").reconcile(null, true, null, 100);
        assertThat(steps(db, id).get("a").episodeId()).isEqualTo(episodes.only("a", 1).episodeId());
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_paused_workflow_keeps_its_instances_in_flight_launches_no_step_and_its_steps_start_after_the_resume(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(step("a"), step("b", "a"));
        StepEpisodes episodes = new StepEpisodes(db);
        java.util.concurrent.atomic.AtomicBoolean paused = new java.util.concurrent.atomic.AtomicBoolean();
        WorkflowEngine one = engine(db, def, episodes, "n1").pausedBy(w -> w.equals(def.id()) && paused.get());
        WorkflowEngine two = engine(db, def, episodes, "n2").pausedBy(w -> w.equals(def.id()) && paused.get());

        String running = one.start(def, new WorkflowEngine.Start(null, "s1", null, null, null, "test"));
        assertThat(episodes.stepsLaunched()).containsExactly("a");
        paused.set(true);

        String started = one.start(def, new WorkflowEngine.Start(null, "s2", null, null, null, "test"));
        assertThat(instance(db, started).inFlight()).as("an instance of a paused workflow is stored").isTrue();
        assertThat(steps(db, started).get("a").state()).isEqualTo(StepState.QUEUED);
        assertThat(steps(db, started).get("a").episodeId()).as("no episode while paused").isNull();

        // the running step's episode finishes its step; the next one is queued without an episode
        done(one, episodes, "a", 1);
        assertThat(steps(db, running).get("a").state()).isEqualTo(StepState.COMPLETED);
        assertThat(steps(db, running).get("b").state()).isEqualTo(StepState.QUEUED);
        assertThat(steps(db, running).get("b").episodeId()).isNull();
        two.reconcile(null, true, null, 100);
        assertThat(episodes.stepsLaunched()).as("not even by a reconcile on another node").containsExactly("a");
        assertThat(instance(db, running).inFlight()).isTrue();

        paused.set(false);
        two.reconcile(null, true, null, 100);
        assertThat(steps(db, running).get("b").episodeId()).isNotNull();
        assertThat(steps(db, started).get("a").episodeId()).isNotNull();
        assertThat(episodes.stepsLaunched()).containsExactlyInAnyOrder("a", "a", "b");
    }

    /** A node that queues steps but launches none (its actor is not there, say). */
    static final class NothingStarts extends StepEpisodes {
        NothingStarts(TestJpa db) {
            super(db);
        }

        @Override
        public Launch launch(jakarta.persistence.EntityManager em, StepDefinition step, String instanceId, int attempt,
                String dedupeKey, jakarta.json.JsonObject input, String stack, String env) {
            return new Launch(Kind.UNAVAILABLE, null, "actor not on this node");
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void reconcile_reaches_every_in_flight_instance_when_more_are_in_flight_than_one_pass_looks_at(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(step("a"));
        WorkflowEngine dead = engine(db, def, new NothingStarts(db), "n1");
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(dead.start(def, subject("r" + i)));
            clock.advance(Duration.ofSeconds(1)); // the oldest first would have looked at the first two only
        }
        // other tests' instances in flight in this database count too: the passes go round all of them
        long inFlight = db.inNewTransaction(em -> ((Number) em.createNativeQuery("SELECT COUNT(*) FROM"
                + " cyclium_workflow_instances WHERE status IN ('pending', 'running', 'blocked')").getSingleResult()).longValue());

        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine repairer = engine(db, def, episodes, "n2");
        for (long pass = 0; pass < (inFlight + 1) / 2; pass++) {
            repairer.reconcile(null, true, null, 2);
        }
        for (String id : ids) {
            assertThat(steps(db, id).get("a").episodeId()).as("instance " + id + " after ⌈%d / 2⌉ passes of 2", inFlight)
                    .isNotNull();
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_retry_follows_the_backoff_schedule_and_survives_a_restart_before_it_is_due(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RetryPolicy retry = new RetryPolicy(3, Duration.ofSeconds(10), 3.0, Duration.ofMinutes(5), 0.0, Set.of("denied"));
        WorkflowDefinition def = workflow(new StepDefinition("flaky", "worker", "work", List.of(), true, false,
                FailurePolicy.ABORT, retry));
        StepEpisodes before = new StepEpisodes(db);
        WorkflowEngine engine = engine(db, def, before, "n1");
        String id = engine.start(def, whole());

        engine.onFinished(before.finish(before.only("flaky", 1).episodeId(), EpisodeStatus.FAILED, "timeout"));
        StepRow failed = steps(db, id).get("flaky");
        assertThat(failed.state()).isEqualTo(StepState.FAILED);
        assertThat(failed.nextAttemptAt()).isEqualTo(LocalDateTime.ofInstant(T0.plusSeconds(10), ZoneOffset.UTC));
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.RUNNING);

        // the node restarts: a new engine, a new launcher, nothing in memory
        StepEpisodes after = new StepEpisodes(db);
        WorkflowEngine restarted = engine(db, def, after, "n1");
        clock.advance(Duration.ofSeconds(9));
        assertThat(restarted.runDueRetries(10)).as("not due yet").isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(restarted.runDueRetries(10)).isEqualTo(1);
        assertThat(engine(db, def, after, "n2").runDueRetries(10)).as("claimed once").isZero();
        assertThat(after.only("flaky", 2).input().getJsonObject("workflow").getInt("attempt")).isEqualTo(2);

        restarted.onFinished(after.finish(after.only("flaky", 2).episodeId(), EpisodeStatus.FAILED, "timeout"));
        assertThat(steps(db, id).get("flaky").nextAttemptAt()).as("10 s * 3")
                .isEqualTo(LocalDateTime.ofInstant(T0.plusSeconds(10 + 30), ZoneOffset.UTC));
        clock.advance(Duration.ofSeconds(30));
        restarted.runDueRetries(10);
        done(restarted, after, "flaky", 3);

        InstanceRow done = instance(db, id);
        assertThat(done.status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThat(done.attemptsTotal()).isEqualTo(3);
        assertThat(done.retriesTotal()).isEqualTo(2);
    }

    /** An engine of a node whose own clock is {@code skew} off; its store writes the database's clock, as in production. */
    WorkflowEngine skewedEngine(TestJpa db, WorkflowDefinition def, StepLauncher launcher, Duration skew) {
        return new WorkflowEngine(db, new WorkflowStore(io.cyclium.store.DatabaseTime.of(db.vendor()), "skewed"),
                new WorkflowQueries(db.vendor()), id -> id.equals(def.id()) ? Optional.of(def) : Optional.empty(), launcher,
                java.time.Clock.offset(java.time.Clock.systemUTC(), skew), telemetry, () -> 0.5);
    }

    static LocalDateTime databaseNow(TestJpa db) {
        return db.inNewTransaction(em -> io.cyclium.store.DatabaseTime.of(db.vendor()).read(em));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_s_times_and_its_retry_due_time_are_the_database_s_whatever_the_node_s_clock_says(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RetryPolicy retry = new RetryPolicy(3, Duration.ofSeconds(10), 3.0, Duration.ofMinutes(5), 0.0, Set.of());
        WorkflowDefinition def = workflow(new StepDefinition("flaky", "worker", "work", List.of(), true, false,
                FailurePolicy.ABORT, retry));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine ahead = skewedEngine(db, def, episodes, Duration.ofHours(1));

        LocalDateTime before = databaseNow(db);
        String id = ahead.start(def, whole());
        ahead.onFinished(episodes.finish(episodes.only("flaky", 1).episodeId(), EpisodeStatus.FAILED, "timeout"));
        LocalDateTime after = databaseNow(db).plusNanos(1_000_000);

        StepRow failed = steps(db, id).get("flaky");
        assertThat(failed.nextAttemptAt()).as("the database's now + 10 s").isBetween(before.plusSeconds(10),
                after.plusSeconds(10));
        assertThat(List.of(failed.queuedAt(), failed.finishedAt(), instance(db, id).startedAt())).allSatisfy(t ->
                assertThat(t).isBetween(before.minusNanos(1_000_000), after));
        List<TransitionRow> journal = db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).transitions(em, id));
        assertThat(journal).extracting(TransitionRow::at).allSatisfy(t -> assertThat(t).isBetween(before.minusNanos(1_000_000), after));
        assertThat(failed.runMs()).as("queued to failed, on one clock").isBetween(0L, Duration.between(before, after).toMillis());

        ahead.runDueRetries(10);
        assertThat(steps(db, id).get("flaky").state()).as("due in 10 s by the database, though the node's clock says an"
                + " hour later").isEqualTo(StepState.FAILED);
        assertThat(episodes.launched).hasSize(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_non_retryable_error_fails_the_step_at_once_and_abort_fails_the_instance_and_cancels_running_steps(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RetryPolicy retry = new RetryPolicy(5, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1), 0.0, Set.of("denied"));
        WorkflowDefinition def = workflow(new StepDefinition("a", "worker", "work", List.of(), true, false,
                FailurePolicy.ABORT, retry), step("b"), step("c", "a", "b"));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine engine = engine(db, def, episodes, "n1");
        String id = engine.start(def, whole());

        engine.onFinished(episodes.finish(episodes.only("a", 1).episodeId(), EpisodeStatus.FAILED, "denied"));

        assertThat(steps(db, id).get("a").failedForGood()).isTrue();
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.FAILED);
        assertThat(instance(db, id).errorDetail()).contains("critical step a failed (abort)");
        assertThat(episodes.canceled).containsOnlyKeys(episodes.only("b", 1).episodeId());
        assertThat(episodes.stepsLaunched()).doesNotContain("c");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_paused_failure_blocks_the_instance_until_an_operator_resumes_it(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(new StepDefinition("a", "worker", "work", List.of(), true, false,
                FailurePolicy.PAUSE, RetryPolicy.NONE), step("b", "a"));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine engine = engine(db, def, episodes, "n1");
        String id = engine.start(def, whole());

        engine.onFinished(episodes.finish(episodes.only("a", 1).episodeId(), EpisodeStatus.FAILED, "boom"));
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.BLOCKED);
        assertThat(instance(db, id).blockedReason()).contains("step a failed");
        engine.reconcile(null, true, null, 100);
        assertThat(episodes.stepsLaunched()).as("nothing runs while blocked").containsExactly("a");

        engine.resume(id, "ops");
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.RUNNING);
        done(engine, episodes, "a", 2);
        done(engine, episodes, "b", 1);
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThatThrownBy(() -> engine.resume(id, "ops")).isInstanceOf(Problem.class).hasMessageContaining("completed");
    }

    /**
     * The race a node lost on 2026-12-02: the engine starting an instance queues {@code a} and
     * {@code side}; {@code a}'s episode fails at once and the pause blocks the instance before
     * {@code side}'s launch holds it, so that launch finds the instance not running and creates
     * nothing ({@link StepLauncher.Kind#UNAVAILABLE}). Unblocking the instance launches it.
     */
    static final class StrandingSide extends StepEpisodes {
        private final java.util.concurrent.atomic.AtomicBoolean strand = new java.util.concurrent.atomic.AtomicBoolean(true);

        StrandingSide(TestJpa db) {
            super(db);
        }

        @Override
        public Launch launch(jakarta.persistence.EntityManager em, StepDefinition step, String instanceId, int attempt,
                String dedupeKey, jakarta.json.JsonObject input, String stack, String env) {
            if (step.id().equals("side") && strand.getAndSet(false)) {
                return new Launch(Kind.UNAVAILABLE, null, "the instance is no longer running");
            }
            return super.launch(em, step, instanceId, attempt, dedupeKey, input, stack, env);
        }
    }

    /** An instance of {@link #pausingWithASide} blocked by a's failure, side stranded, and what runs it. */
    record Stranded(TestJpa db, StepEpisodes episodes, WorkflowEngine engine, String id) {
    }

    Stranded blockedWithAStrandedStep(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = pausingWithASide();
        StepEpisodes episodes = new StrandingSide(db);
        WorkflowEngine engine = engine(db, def, episodes, "n1");
        String id = engine.start(def, whole());
        engine.onFinished(episodes.finish(episodes.only("a", 1).episodeId(), EpisodeStatus.FAILED, "boom"));
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.BLOCKED);
        assertThat(steps(db, id).get("side").state()).isEqualTo(StepState.QUEUED);
        assertThat(steps(db, id).get("side").episodeId()).as("side's launch created nothing").isNull();
        return new Stranded(db, episodes, engine, id);
    }

    static WorkflowDefinition pausingWithASide() {
        return workflow(new StepDefinition("a", "worker", "work", List.of(), true, false, FailurePolicy.PAUSE,
                RetryPolicy.NONE), step("side"));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_queued_while_its_instance_was_being_blocked_is_launched_when_an_operator_resumes_it(Vendor vendor) {
        Stranded s = blockedWithAStrandedStep(vendor);

        s.engine().resume(s.id(), "ops");
        assertThat(steps(s.db(), s.id()).get("side").episodeId()).as("launched at once, not at the next reconcile")
                .isEqualTo(s.episodes().only("side", 1).episodeId());
        done(s.engine(), s.episodes(), "a", 2);
        done(s.engine(), s.episodes(), "side", 1);
        assertThat(instance(s.db(), s.id()).status()).isEqualTo(InstanceStatus.COMPLETED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_queued_while_its_instance_was_being_blocked_is_launched_when_an_operator_retries_the_failed_step(Vendor vendor) {
        Stranded s = blockedWithAStrandedStep(vendor);

        s.engine().retryStep(s.id(), "a", "ops");
        assertThat(s.episodes().only("side", 1).episodeId()).isEqualTo(steps(s.db(), s.id()).get("side").episodeId());
        done(s.engine(), s.episodes(), "side", 1);
        done(s.engine(), s.episodes(), "a", 2);
        assertThat(instance(s.db(), s.id()).status()).isEqualTo(InstanceStatus.COMPLETED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_failed_non_critical_step_lets_its_dependents_run_and_the_instance_complete(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(new StepDefinition("optional", "worker", "work", List.of(), false, false,
                FailurePolicy.ABORT, RetryPolicy.NONE), step("after", "optional"));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine engine = engine(db, def, episodes, "n1");
        String id = engine.start(def, whole());

        engine.onFinished(episodes.finish(episodes.only("optional", 1).episodeId(), EpisodeStatus.FAILED, "boom"));
        done(engine, episodes, "after", 1);

        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThat(steps(db, id).get("optional").state()).isEqualTo(StepState.FAILED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_approval_gate_blocks_the_instance_until_the_step_is_approved(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(step("collect"), new StepDefinition("advise", "worker", "work", List.of("collect"),
                true, true, FailurePolicy.ABORT, RetryPolicy.NONE));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine engine = engine(db, def, episodes, "n1");
        String id = engine.start(def, whole());

        done(engine, episodes, "collect", 1);
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.BLOCKED);
        assertThat(instance(db, id).blockedReason()).contains("[advise] await approval");

        engine.approve(id, "advise", "ops");
        done(engine, episodes, "advise", 1);
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.COMPLETED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_signal_gate_blocks_the_instance_until_its_signal_arrives_and_a_second_signal_is_refused(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(step("collect"), new StepDefinition("advise", "worker", "work", List.of("collect"),
                true, false, FailurePolicy.ABORT, RetryPolicy.NONE, "go"));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine engine = engine(db, def, episodes, "n1");
        String id = engine.start(def, whole());

        done(engine, episodes, "collect", 1);
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.BLOCKED);
        assertThat(instance(db, id).blockedReason()).contains("advise (signal go)");
        assertThatThrownBy(() -> engine.signal(id, "other", jakarta.json.JsonValue.NULL, "ops"))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status()).isEqualTo(409));

        assertThat(engine.signal(id, "go", jakarta.json.Json.createValue("yes"), "ops")).containsExactly("advise");
        done(engine, episodes, "advise", 1);
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThatThrownBy(() -> engine.signal(id, "go", jakarta.json.JsonValue.NULL, "ops"))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status()).isEqualTo(409));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_signal_sent_before_the_gate_s_dependencies_are_done_opens_it_in_advance(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(step("collect"), new StepDefinition("advise", "worker", "work", List.of("collect"),
                true, false, FailurePolicy.ABORT, RetryPolicy.NONE, "go"));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine engine = engine(db, def, episodes, "n1");
        String id = engine.start(def, whole());

        assertThat(engine.signal(id, "go", jakarta.json.Json.createValue(1), "ops")).containsExactly("advise");
        assertThat(episodes.launched).as("not before its dependency").noneMatch(l -> l.stepId().equals("advise"));
        done(engine, episodes, "collect", 1);
        assertThat(instance(db, id).status()).as("never blocked: the gate was open").isEqualTo(InstanceStatus.RUNNING);
        done(engine, episodes, "advise", 1);
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.COMPLETED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_second_instance_for_a_subject_in_flight_is_refused_until_the_first_ends(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = new WorkflowDefinition("wf-" + UUID.randomUUID().toString().substring(0, 8), "resource",
                List.of(), List.of(step("a")));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine one = engine(db, def, episodes, "n1");
        WorkflowEngine two = engine(db, def, episodes, "n2");
        String first = one.start(def, whole());

        assertThatThrownBy(() -> two.start(def, whole())).isInstanceOfSatisfying(Problem.class, p -> {
            assertThat(p.status()).isEqualTo(409);
            assertThat(p.getMessage()).contains("subject \"r1\"").contains(first);
        });
        String other = two.start(def, new WorkflowEngine.Start(Json.createObjectBuilder().add("resource", "r2").build(),
                null, null, null, null, "test"));
        assertThat(other).isNotEqualTo(first);

        one.cancel(first, "ops");
        assertThat(instance(db, first).status()).isEqualTo(InstanceStatus.CANCELED);
        assertThat(two.start(def, whole())).isNotEqualTo(first);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_schedule_bucket_starts_one_instance_across_engines_even_after_it_finished(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = workflow(step("a"));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine one = engine(db, def, episodes, "n1");
        WorkflowEngine two = engine(db, def, episodes, "n2");

        Optional<String> first = one.startForBucket(def, "2026-11-30T12:00:00Z", whole());
        assertThat(first).isPresent();
        assertThat(two.startForBucket(def, "2026-11-30T12:00:00Z", whole())).as("in flight").isEmpty();
        done(one, episodes, "a", 1);
        assertThat(instance(db, first.get()).status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThat(two.startForBucket(def, "2026-11-30T12:00:00Z", whole())).as("finished, same bucket").isEmpty();
        assertThat(two.startForBucket(def, "2026-11-30T13:00:00Z", whole())).as("the next bucket").isPresent();
        assertThat(instance(db, first.get()).subject()).isEqualTo("schedule:2026-11-30T12:00:00Z");
    }

    /** An engine whose caller may hold a transaction of its own ({@link HostTransaction}). */
    WorkflowEngine engineIn(HostTransaction host, TestJpa db, WorkflowDefinition def, StepEpisodes episodes) {
        return new WorkflowEngine(host, new WorkflowStore(io.cyclium.store.DatabaseTime.following(db.vendor(), clock), "n1"), new WorkflowQueries(db.vendor()),
                id -> id.equals(def.id()) ? Optional.of(def) : Optional.empty(), episodes, clock, telemetry, () -> 0.5);
    }

    long instancesOf(TestJpa db, String workflowId) {
        return db.inNewTransaction(em -> ((Number) em.createNativeQuery("SELECT COUNT(*) FROM cyclium_workflow_instances"
                + " WHERE workflow_id = ?1").setParameter(1, workflowId).getSingleResult()).longValue());
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_event_started_instance_rolls_back_with_the_publishers_transaction(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = diamond();
        StepEpisodes episodes = new StepEpisodes(db);
        HostTransaction host = new HostTransaction(db);
        WorkflowEngine engine = engineIn(host, db, def, episodes);
        List<String> committed = new java.util.ArrayList<>();

        host.begin();
        String id = engine.startInCallerTransaction(def, whole(), committed::add);
        assertThat(instancesOf(db, def.id())).as("not visible before the publisher commits").isZero();
        host.rollBack();

        assertThat(instancesOf(db, def.id())).isZero();
        List<StepRow> steps = db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).steps(em, id));
        assertThat(steps).isEmpty();
        assertThat(committed).isEmpty();
        assertThat(episodes.launched).as("nothing ran for the event that never happened").isEmpty();
        assertThat(telemetry.count("workflow_instance_started")).isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_event_started_instance_commits_with_the_publishers_transaction_and_then_runs(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = diamond();
        StepEpisodes episodes = new StepEpisodes(db);
        HostTransaction host = new HostTransaction(db);
        WorkflowEngine engine = engineIn(host, db, def, episodes);
        List<String> committed = new java.util.ArrayList<>();

        host.begin();
        String id = engine.startInCallerTransaction(def, whole(), committed::add);
        assertThat(committed).as("told only after the commit").isEmpty();
        host.commit();

        assertThat(committed).containsExactly(id);
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.PENDING);
        assertThat(episodes.launched).isEmpty();
        engine.advance(id);
        assertThat(episodes.stepsLaunched()).containsExactly("a");
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.RUNNING);
    }

    static WorkflowEngine.Start subject(String subject) {
        return new WorkflowEngine.Start(Json.createObjectBuilder().build(), subject, null, null, null, "test");
    }

    /** One critical step retried after 10 s. */
    static WorkflowDefinition retriedOnce() {
        return workflow(new StepDefinition("flaky", "worker", "work", List.of(), true, false, FailurePolicy.ABORT,
                new RetryPolicy(3, Duration.ofSeconds(10), 2.0, Duration.ofMinutes(1), 0.0, Set.of())));
    }

    /**
     * A launcher that lets an operator act while an engine is inside a launch: just before the
     * episode's insert, inside the launch's transaction, on a thread of its own (as another node
     * would). The launch waits for the action up to 300 ms and then goes on; an action that needs
     * the instance's row, which the launch holds, waits for the launch's commit instead.
     * {@link #settled} waits for the actions still running.
     */
    static final class Interrupting implements StepLauncher {
        private final StepEpisodes episodes;
        private final java.util.function.Consumer<String> duringLaunchOf;
        private final List<java.util.concurrent.CompletableFuture<Void>> actions = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final long patienceMillis;

        /**
         * {@code patienceMillis}: how long the launch waits for the action before it goes on; an
         * action that needs the row this launch holds can only finish after the launch commits.
         */
        Interrupting(StepEpisodes episodes, java.util.function.Consumer<String> duringLaunchOf, long patienceMillis) {
            this.episodes = episodes;
            this.duringLaunchOf = duringLaunchOf;
            this.patienceMillis = patienceMillis;
        }

        @Override
        public Launch launch(jakarta.persistence.EntityManager em, StepDefinition step, String instanceId, int attempt,
                String dedupeKey, jakarta.json.JsonObject input, String stack, String env) {
            java.util.concurrent.CompletableFuture<Void> action = java.util.concurrent.CompletableFuture.runAsync(
                    () -> duringLaunchOf.accept(instanceId));
            actions.add(action);
            try {
                action.get(patienceMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException waitsForThisLaunch) {
                // it needs the row this launch holds: it goes on after the commit
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return episodes.launch(em, step, instanceId, attempt, dedupeKey, input, stack, env);
        }

        @Override
        public void cancel(String episodeId) {
            episodes.cancel(episodeId);
        }

        void settled() {
            actions.forEach(java.util.concurrent.CompletableFuture::join);
        }
    }

    /** The action needs the launching instance's row: the launch waits 300 ms for it, then goes on and commits. */
    static Interrupting interrupted(StepEpisodes episodes, java.util.function.Consumer<String> duringLaunchOf) {
        return new Interrupting(episodes, duringLaunchOf, 300);
    }

    /** The action needs nothing this launch holds: the launch waits until it is done, however loaded the machine. */
    static Interrupting interruptedUntilDone(StepEpisodes episodes, java.util.function.Consumer<String> duringLaunchOf) {
        return new Interrupting(episodes, duringLaunchOf, 60_000);
    }

    WorkflowEngine engine(TestJpa db, WorkflowDefinition def, StepLauncher launcher, String node) {
        return engine(db, db, def, launcher, node);
    }

    WorkflowEngine engine(io.cyclium.store.Tx tx, TestJpa db, WorkflowDefinition def, StepLauncher launcher, String node) {
        return new WorkflowEngine(tx, new WorkflowStore(io.cyclium.store.DatabaseTime.following(db.vendor(), clock), node), new WorkflowQueries(db.vendor()),
                id -> id.equals(def.id()) ? Optional.of(def) : Optional.empty(), launcher, clock, telemetry, () -> 0.5);
    }

    /** Transactions on {@code db}; {@code before} runs once, just ahead of the {@code n}-th (1-based). */
    static io.cyclium.store.Tx beforeTransaction(TestJpa db, int n, Runnable before) {
        java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
        return new io.cyclium.store.Tx() {
            @Override
            public <T> T inNewTransaction(java.util.function.Function<jakarta.persistence.EntityManager, T> work) {
                if (count.incrementAndGet() == n) {
                    before.run();
                }
                return db.inNewTransaction(work);
            }
        };
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_instance_canceled_while_its_retry_is_due_starts_no_retry_even_when_the_cancel_lands_between_the_timers_read_and_its_claim(
            Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = retriedOnce();
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine operator = engine(db, def, episodes, "n1");
        String early = operator.start(def, subject("early"));
        String x = operator.start(def, subject("x"));
        String y = operator.start(def, subject("y"));
        for (String id : List.of(early, x, y)) {
            operator.onFinished(episodes.finish(episodes.only(id, "flaky", 1).episodeId(), EpisodeStatus.FAILED, "timeout"));
        }
        operator.cancel(early, "op");
        clock.advance(Duration.ofSeconds(10));

        // the timer reads x and y as due; launching the first of them, the operator cancels the other
        List<String> canceledDuringLaunch = new java.util.concurrent.CopyOnWriteArrayList<>();
        // the other instance's row is not held by this launch: the launch waits for the cancel
        Interrupting launcher = interruptedUntilDone(episodes, launching -> {
            if (canceledDuringLaunch.isEmpty()) {
                String other = launching.equals(x) ? y : x;
                canceledDuringLaunch.add(other);
                operator.cancel(other, "op");
            }
        });
        WorkflowEngine timer = engine(db, def, launcher, "n2");
        assertThat(timer.runDueRetries(10)).as("only the instance still running").isEqualTo(1);
        launcher.settled();

        String canceled = canceledDuringLaunch.get(0);
        String ran = canceled.equals(x) ? y : x;
        assertThat(episodes.launches(ran, 2)).isEqualTo(1);
        for (String id : List.of(early, canceled)) {
            assertThat(episodes.launches(id, 2)).as(id + ": no retry of a canceled instance").isZero();
            assertThat(steps(db, id).get("flaky").attempt()).isEqualTo(1);
            assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.CANCELED);
        }
        clock.advance(Duration.ofMinutes(5));
        assertThat(timer.runDueRetries(10)).isZero();
        done(operator, episodes, "flaky", 2);
        assertThat(instance(db, ran).status()).isEqualTo(InstanceStatus.COMPLETED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_instance_canceled_after_its_retry_was_claimed_has_the_retry_s_episode_asked_to_stop(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = retriedOnce();
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine operator = engine(db, def, episodes, "n1");
        String id = operator.start(def, subject("z"));
        operator.onFinished(episodes.finish(episodes.only(id, "flaky", 1).episodeId(), EpisodeStatus.FAILED, "timeout"));
        clock.advance(Duration.ofSeconds(10));

        // claimed and being launched when the operator cancels: the cancel waits for the launch's
        // hold on the instance, then finds the new episode by its instance and asks it to stop
        Interrupting launcher = interrupted(episodes, launching -> operator.cancel(launching, "op"));
        WorkflowEngine timer = engine(db, def, launcher, "n2");
        assertThat(timer.runDueRetries(10)).isEqualTo(1);
        launcher.settled();

        String retry = episodes.only(id, "flaky", 2).episodeId();
        assertThat(episodes.canceled).containsKey(retry);
        assertThat(db.<Object>inNewTransaction(em -> em.createNativeQuery("SELECT cancel_requested FROM cyclium_episodes WHERE id = ?1")
                .setParameter(1, retry).getSingleResult())).isIn(Boolean.TRUE, 1, (short) 1, (byte) 1, 1L);
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.CANCELED);
        // the canceled episode's end changes nothing: the instance stays canceled, no further retry
        operator.onFinished(episodes.finish(retry, EpisodeStatus.CANCELED, "canceled"));
        clock.advance(Duration.ofMinutes(5));
        assertThat(timer.runDueRetries(10)).isZero();
        assertThat(episodes.launches(id, 3)).isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_failure_nobody_heard_gets_its_retry_scheduled_by_the_reconcile_after_a_sweep(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = retriedOnce();
        StepEpisodes episodes = new StepEpisodes(db);
        String id = engine(db, def, episodes, "n1").start(def, subject("unheard"));

        // n1 commits the step episode's failure and dies before its engine hears it
        episodes.finish(episodes.only(id, "flaky", 1).episodeId(), EpisodeStatus.FAILED, "timeout");
        StepRow before = steps(db, id).get("flaky");
        assertThat(before.state()).as("the failure and the step's retry are separate transactions").isEqualTo(StepState.RUNNING);
        assertThat(before.nextAttemptAt()).isNull();

        WorkflowEngine n2 = engine(db, def, episodes, "n2");
        clock.advance(Duration.ofSeconds(3));
        n2.reconcile(null, true, null, 100);
        StepRow waiting = steps(db, id).get("flaky");
        assertThat(waiting.state()).isEqualTo(StepState.FAILED);
        assertThat(waiting.nextAttemptAt()).as("the backoff from when reconcile heard it")
                .isEqualTo(LocalDateTime.ofInstant(T0.plusSeconds(3 + 10), ZoneOffset.UTC));
        n2.reconcile(null, true, null, 100);
        assertThat(episodes.launches(id, 2)).as("not before it is due").isZero();

        clock.advance(Duration.ofSeconds(10));
        assertThat(n2.runDueRetries(10)).isEqualTo(1);
        done(n2, episodes, "flaky", 2);
        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.COMPLETED);
    }

    /** The instance's step episodes as committed now: id → cancel requested or ended. */
    static Map<String, Boolean> episodesOf(TestJpa db, String instanceId) {
        Map<String, Boolean> out = new java.util.TreeMap<>();
        db.inNewTransaction(em -> em.createNativeQuery("SELECT id, cancel_requested, status FROM cyclium_episodes"
                + " WHERE workflow_instance_id = ?1").setParameter(1, instanceId).getResultList()).forEach(o -> {
                    Object[] r = (Object[]) o;
                    boolean asked = r[1] instanceof Boolean b ? b : ((Number) r[1]).intValue() == 1;
                    out.put((String) r[0], asked || !List.of("running", "blocked").contains(r[2]));
                });
        return out;
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_launched_while_its_instance_is_canceled_is_created_before_the_cancel_returns_and_asked_to_stop(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = diamond();
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine operator = engine(db, def, episodes, "n1");
        String id = operator.start(def, subject("canceled-while-launching"));

        // a's end queues b and c on n2; launching b, the operator cancels the instance on n1
        Map<String, Boolean> whenCancelReturned = new java.util.concurrent.ConcurrentHashMap<>();
        // only the first launch cancels: c's launch may run its hook while that cancel still waits
        // for b's hold, and a second cancel would then find the instance canceled (a 409)
        java.util.concurrent.atomic.AtomicBoolean canceling = new java.util.concurrent.atomic.AtomicBoolean();
        Interrupting launcher = interrupted(episodes, launching -> {
            if (canceling.compareAndSet(false, true)) {
                operator.cancel(launching, "op");
                whenCancelReturned.putAll(episodesOf(db, launching));
            }
        });
        engine(db, def, launcher, "n2").onFinished(episodes.finish(episodes.only(id, "a", 1).episodeId(),
                EpisodeStatus.DONE, null));
        launcher.settled();

        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.CANCELED);
        Map<String, Boolean> atTheEnd = episodesOf(db, id);
        assertThat(atTheEnd.keySet()).as("no step episode created after the cancel returned")
                .isEqualTo(whenCancelReturned.keySet());
        assertThat(whenCancelReturned).as("each one ended or asked to stop when the cancel returned").doesNotContainValue(false);
        assertThat(atTheEnd).as("a, and b, whose launch the cancel waited for (c: launched before the cancel's"
                + " update or not at all, by the same guard)").hasSizeGreaterThanOrEqualTo(2);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_operators_retry_racing_the_retry_timer_starts_the_attempt_once(Vendor vendor) throws Exception {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = retriedOnce();
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine operator = engine(db, def, episodes, "n1");
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String id = operator.start(def, subject("raced-" + i));
            operator.onFinished(episodes.finish(episodes.only(id, "flaky", 1).episodeId(), EpisodeStatus.FAILED, "timeout"));
            ids.add(id);
        }
        clock.advance(Duration.ofSeconds(10));

        // the timer claims and launches the retry of the first instance; the operator retries it meanwhile
        List<Integer> operatorAnswers = new java.util.concurrent.CopyOnWriteArrayList<>();
        Interrupting launcher = interrupted(episodes, launching -> {
            if (launching.equals(ids.get(0)) && operatorAnswers.isEmpty()) {
                operatorAnswers.add(retry(operator, launching));
            }
        });
        WorkflowEngine timer = engine(db, def, launcher, "n2");
        // and for the others the two race freely: the timer's sweep against the operator's retries
        List<Integer> started = Concurrently.run(2, t -> {
            if (t == 0) {
                return timer.runDueRetries(50);
            }
            int won = 0;
            for (String id : ids.subList(1, ids.size())) {
                won += retry(operator, id) == 204 ? 1 : 0;
            }
            return won;
        });
        launcher.settled();

        assertThat(operatorAnswers).as("the step was queued by the timer's claim").containsExactly(409);
        assertThat(started.get(0) + started.get(1)).as("one start per instance, by whichever won").isEqualTo(10);

        // the narrowest window: the operator has read the step as failed when the timer claims it
        String late = operator.start(def, subject("raced-late"));
        operator.onFinished(episodes.finish(episodes.only(late, "flaky", 1).episodeId(), EpisodeStatus.FAILED, "timeout"));
        clock.advance(Duration.ofSeconds(10));
        ids.add(late);
        // retryStep reads the instance, then the steps, then queues: the timer runs before the queue
        WorkflowEngine slowOperator = engine(beforeTransaction(db, 3, () -> assertThat(timer.runDueRetries(50)).isEqualTo(1)),
                db, def, episodes, "n3");
        assertThat(retry(slowOperator, late)).as("its queue lost to the claim").isEqualTo(409);
        assertThat(started.get(0) + started.get(1)).isEqualTo(10);
        for (String id : ids) {
            assertThat(episodes.launches(id, 2)).as(id + ": attempt 2 started once").isEqualTo(1);
            assertThat(steps(db, id).get("flaky").attempt()).isEqualTo(2);
        }
        assertThat(episodes.launched.stream().filter(l -> l.attempt() == 3)).isEmpty();
    }

    /** An operator's retry of the step "flaky": 204, or the 409 it was refused with. */
    static int retry(WorkflowEngine operator, String instanceId) {
        try {
            operator.retryStep(instanceId, "flaky", "op");
            return 204;
        } catch (Problem p) {
            return p.status();
        }
    }
}
