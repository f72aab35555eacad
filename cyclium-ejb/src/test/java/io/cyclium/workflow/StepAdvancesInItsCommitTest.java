package io.cyclium.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.claims.PassthroughClaimGate;
import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.execution.EpisodeTask;
import io.cyclium.execution.OneStrategy;
import io.cyclium.execution.RunControl;
import io.cyclium.execution.StrategyLookup;
import io.cyclium.execution.TaskEnvironment;
import io.cyclium.store.DatabaseTime;
import io.cyclium.testing.DoneAtOnce;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.json.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A step episode's terminal write records the step, advances the instance and stores the next
 * steps' episodes in its own transaction ({@link WorkflowEngine#finishInCommit}): there is no moment
 * at which a step is done and its successors are not stored, so a node that dies right after the
 * commit (before any terminal event is heard) leaves nothing for the reconcile to repair. Real
 * databases, the real episode task and store; the step launcher inserts the episode rows in the
 * engine's transaction as the runtime's does.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class StepAdvancesInItsCommitTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final String NODE = "step-node";

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-05T10:00:00Z"));
    final RecordingTelemetry telemetry = new RecordingTelemetry();

    /** One engine on one database, and episode tasks whose terminal writes advance with it. */
    final class Rig {
        final TestJpa db;
        final WorkflowDefinition def;
        final StepEpisodes episodes;
        final WorkflowEngine engine;
        final EpisodeStore store;
        final List<EpisodeFinished> heard = new CopyOnWriteArrayList<>();

        Rig(Vendor vendor, WorkflowDefinition def) {
            this(vendor, def, false);
        }

        /** {@code databaseClock}: the engine's store writes the database's own time, as a node's does (not the test's clock). */
        Rig(Vendor vendor, WorkflowDefinition def, boolean databaseClock) {
            this.db = databases.jpa(vendor);
            this.def = def;
            this.episodes = new StepEpisodes(db);
            this.store = new EpisodeStore(db.vendor());
            DatabaseTime time = databaseClock ? DatabaseTime.of(db.vendor()) : DatabaseTime.following(db.vendor(), clock);
            this.engine = new WorkflowEngine(db, new WorkflowStore(time, NODE),
                    new WorkflowQueries(db.vendor()), id -> id.equals(def.id()) ? Optional.of(def) : Optional.empty(),
                    episodes, clock, telemetry, () -> 0.5);
        }

        /** Runs a step's episode to done on this thread; {@code onFinished} hears its terminal event (after the commit). */
        void run(String episodeId, java.util.function.Consumer<EpisodeFinished> onFinished) {
            run(episodeId, db, new PassthroughClaimGate(), null, onFinished, EpisodeTask.Outcome.FINISHED);
        }

        /** {@link #run}, its writes through {@code tx}, holding {@code lease} of {@code gate} (a node's lease of the step's episode). */
        void run(String episodeId, io.cyclium.store.Tx tx, io.cyclium.claims.ClaimGate gate, io.cyclium.claims.HeldClaim lease,
                java.util.function.Consumer<EpisodeFinished> onFinished, EpisodeTask.Outcome expected) {
            run(episodeId, tx, gate, lease, onFinished, expected, new DoneAtOnce());
        }

        /** {@link #run}, the step's episode run by {@code strategy}. */
        void run(String episodeId, io.cyclium.store.Tx tx, io.cyclium.claims.ClaimGate gate, io.cyclium.claims.HeldClaim lease,
                java.util.function.Consumer<EpisodeFinished> onFinished, EpisodeTask.Outcome expected,
                io.cyclium.episode.Strategy<String> strategy) {
            ExpectationDefinition exp = new ExpectationDefinition("worker", "work", DoneAtOnce.class, List.of(), Optional.empty(),
                    Optional.empty(), true, Duration.ZERO, Duration.ZERO, null, RecoveryPolicy.RESTART, 3,
                    new Budget(10, Duration.ofMinutes(1)), 0, Duration.ofMinutes(1), null);
            StrategyLookup lookup = new OneStrategy(exp, strategy);
            TaskEnvironment env = new TaskEnvironment(tx, store, lookup, gate, null, onFinished, clock,
                    NODE, telemetry).withAdvancement(engine::finishInCommit);
            EpisodeTask task = new EpisodeTask(env, episodeId, null, false, lease, new RunControl(episodeId), o -> { });
            task.run();
            assertThat(task.outcome()).isEqualTo(expected);
        }

        Map<String, StepRow> steps(String instanceId) {
            Map<String, StepRow> out = new TreeMap<>();
            db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).steps(em, instanceId)).forEach(s -> out.put(s.stepId(), s));
            return out;
        }

        InstanceRow instance(String id) {
            return db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).instance(em, id)).orElseThrow();
        }

        /** The stored episode of a step's attempt, found by its dedupe key (not by what the launcher remembers). */
        Optional<WorkflowQueries.EpisodeOutcome> stored(String instanceId, String stepId, int attempt) {
            return db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).episodeByKey(em,
                    StepLauncher.dedupeKey(instanceId, stepId, attempt)));
        }

        /** A step episode's terminal write as the task makes it: the episode done, then the engine's advancement. */
        Optional<Runnable> finishAndAdvance(jakarta.persistence.EntityManager em, String episodeId, String instanceId,
                String stepId) {
            store.finish(em, episodeId, EpisodeStatus.DONE, 1, "summary of " + stepId, null, null);
            return engine.finishInCommit(em, new EpisodeFinished(episodeId, "worker", "work", "done", null, instanceId, stepId));
        }

        long episodesOf(String instanceId) {
            return db.inNewTransaction(em -> ((Number) em.createNativeQuery(
                    "SELECT COUNT(*) FROM cyclium_episodes WHERE workflow_instance_id = ?1").setParameter(1, instanceId)
                    .getSingleResult()).longValue());
        }
    }

    static StepDefinition step(String id, String... deps) {
        return new StepDefinition(id, "worker", "work", List.of(deps), true, false, FailurePolicy.ABORT,
                io.cyclium.timing.RetryPolicy.NONE);
    }

    static WorkflowDefinition diamond() {
        return new WorkflowDefinition("wf-" + UUID.randomUUID().toString().substring(0, 8), "", List.of(),
                List.of(step("a"), step("b", "a"), step("c", "a"), step("d", "b", "c")));
    }

    static WorkflowEngine.Start whole() {
        return new WorkflowEngine.Start(Json.createObjectBuilder().add("resource", "r1").build(), null, null, null, null, "test");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_that_dies_right_after_a_step_s_terminal_commit_leaves_the_next_steps_stored_and_nothing_to_reconcile(
            Vendor vendor) {
        Rig rig = new Rig(vendor, diamond());
        String id = rig.engine.start(rig.def, whole());
        String a = rig.episodes.only("a", 1).episodeId();

        // the terminal event is never heard: the node died right after the commit
        rig.run(a, event -> { });

        Map<String, StepRow> steps = rig.steps(id);
        assertThat(steps.get("a").state()).isEqualTo(StepState.COMPLETED);
        for (String next : List.of("b", "c")) {
            Optional<WorkflowQueries.EpisodeOutcome> stored = rig.stored(id, next, 1);
            assertThat(stored).as("step %s's episode committed with a's done", next).isPresent();
            assertThat(steps.get(next).state()).as("step %s started with its episode", next).isEqualTo(StepState.RUNNING);
            assertThat(steps.get(next).episodeId()).isEqualTo(stored.get().episodeId());
        }
        assertThat(steps.get("d").state()).isEqualTo(StepState.PENDING);
        List<TransitionRow> journal = rig.db.inNewTransaction(em -> new WorkflowQueries(rig.db.vendor()).transitions(em, id));
        assertThat(journal).filteredOn(t -> "b".equals(t.stepId())).extracting(TransitionRow::toState)
                .containsExactly(StepState.QUEUED, StepState.RUNNING);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_instance_is_stored_with_its_first_steps_and_their_episodes_in_one_transaction(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = new WorkflowDefinition("wf-" + UUID.randomUUID().toString().substring(0, 8), "", List.of(),
                List.of(step("a"), step("b"), step("c", "a", "b")));
        StepEpisodes episodes = new StepEpisodes(db);
        io.cyclium.testing.StatementCountingTx counted = new io.cyclium.testing.StatementCountingTx(db);
        WorkflowEngine engine = new WorkflowEngine(counted, new WorkflowStore(DatabaseTime.following(db.vendor(), clock), NODE),
                new WorkflowQueries(db.vendor()), id -> id.equals(def.id()) ? Optional.of(def) : Optional.empty(), episodes,
                clock, telemetry, () -> 0.5);

        String id = engine.start(def, whole());

        assertThat(counted.transactions()).as("instance, steps, first steps queued and their episodes").isEqualTo(1);
        if (vendor == Vendor.POSTGRESQL) {
            assertThat(counted.texts()).as("the instance and its steps inserted by one statement")
                    .noneMatch(t -> t.startsWith("INSERT INTO cyclium_workflow_steps"))
                    .filteredOn(t -> t.startsWith("WITH i AS (INSERT INTO cyclium_workflow_instances")
                            && t.contains("INSERT INTO cyclium_workflow_steps")).hasSize(1);
        }
        InstanceRow instance = db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).instance(em, id)).orElseThrow();
        assertThat(instance.status()).isEqualTo(InstanceStatus.RUNNING);
        Map<String, StepRow> steps = new TreeMap<>();
        db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).steps(em, id)).forEach(s -> steps.put(s.stepId(), s));
        for (String first : List.of("a", "b")) {
            assertThat(steps.get(first).state()).isEqualTo(StepState.RUNNING);
            assertThat(steps.get(first).episodeId()).isEqualTo(episodes.only(first, 1).episodeId());
        }
        assertThat(steps.get("c").state()).isEqualTo(StepState.PENDING);
        assertThat(telemetry.count("workflow_instance_started")).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_terminal_event_of_a_step_advanced_in_its_commit_says_so_and_the_engine_does_nothing_more_for_it(Vendor vendor) {
        Rig rig = new Rig(vendor, diamond());
        String id = rig.engine.start(rig.def, whole());
        String a = rig.episodes.only("a", 1).episodeId();

        rig.run(a, rig.heard::add);
        assertThat(rig.heard).singleElement().satisfies(e -> assertThat(e.advancedInCommit()).isTrue());
        rig.engine.onFinished(rig.heard.get(0));
        // replaying it the old way finds the step done: still one episode per step
        rig.engine.onFinished(new EpisodeFinished(a, "worker", "work", "done", null, id, "a"));

        assertThat(rig.episodesOf(id)).isEqualTo(3);
        for (String next : List.of("b", "c")) {
            rig.run(rig.stored(id, next, 1).orElseThrow().episodeId(), rig.heard::add);
        }
        rig.run(rig.stored(id, "d", 1).orElseThrow().episodeId(), rig.heard::add);
        assertThat(rig.instance(id).status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThat(rig.episodesOf(id)).isEqualTo(4);
        assertThat(rig.heard).hasSize(4).allMatch(EpisodeFinished::advancedInCommit);
        assertThat(telemetry.count("workflow_instance_completed")).isEqualTo(1);
        assertThat(telemetry.count("workflow_event_replayed")).isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_terminal_write_that_fails_after_advancing_leaves_neither_the_step_done_nor_its_successors_stored(Vendor vendor) {
        Rig rig = new Rig(vendor, diamond());
        String id = rig.engine.start(rig.def, whole());
        String a = rig.episodes.only("a", 1).episodeId();

        // the connection is lost before COMMIT: the episode's finish, the step and the successors go together
        assertThatThrownBy(() -> rig.db.inNewTransaction(em -> {
            rig.finishAndAdvance(em, a, id, "a");
            throw new IllegalStateException("connection lost before COMMIT");
        })).hasMessageContaining("connection lost");

        assertThat(rig.steps(id).get("a").state()).isIn(StepState.QUEUED, StepState.RUNNING);
        assertThat(rig.stored(id, "b", 1)).isEmpty();
        assertThat(rig.stored(id, "c", 1)).isEmpty();
        assertThat(rig.stored(id, "a", 1).orElseThrow().status()).isEqualTo("running");

        // the write runs again (recovery, or the group commit's rerun alone) and lands once
        rig.db.inNewTransaction(em -> rig.finishAndAdvance(em, a, id, "a")).ifPresent(Runnable::run);
        assertThat(rig.steps(id).get("a").state()).isEqualTo(StepState.COMPLETED);
        assertThat(rig.stored(id, "b", 1)).isPresent();
        assertThat(rig.stored(id, "c", 1)).isPresent();
        assertThat(rig.episodesOf(id)).isEqualTo(3);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void two_steps_ending_at_once_in_two_transactions_queue_the_step_that_waits_for_both_exactly_once(Vendor vendor)
            throws Exception {
        Rig rig = new Rig(vendor, diamond());
        String id = rig.engine.start(rig.def, whole());
        rig.run(rig.episodes.only("a", 1).episodeId(), e -> { });
        String b = rig.stored(id, "b", 1).orElseThrow().episodeId();
        String c = rig.stored(id, "c", 1).orElseThrow().episodeId();

        // both episodes are finished in their transactions before either advances: each would read
        // the other still running unless the second waits for the first's commit
        CyclicBarrier bothFinished = new CyclicBarrier(2);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<Optional<Runnable>>> ends = List.of(b, c).stream().map(ep -> threads.submit(() ->
                    rig.db.inNewTransaction(em -> {
                        rig.store.finish(em, ep, EpisodeStatus.DONE, 1, "summary", null, null);
                        try {
                            bothFinished.await(30, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        // finished again by the same guarded UPDATE: 0 rows, the row is done already
                        return rig.finishAndAdvance(em, ep, id, ep.equals(b) ? "b" : "c");
                    }))).toList();
            for (Future<Optional<Runnable>> end : ends) {
                end.get(60, TimeUnit.SECONDS).ifPresent(Runnable::run);
            }
        } finally {
            threads.shutdownNow();
        }

        dStartedOnce(rig, id, "d queued by whichever committed second");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_terminal_write_that_waited_for_the_instance_reads_the_steps_its_holder_wrote(Vendor vendor) throws Exception {
        Rig rig = new Rig(vendor, diamond());
        String id = rig.engine.start(rig.def, whole());
        rig.run(rig.episodes.only("a", 1).episodeId(), e -> { });
        String b = rig.stored(id, "b", 1).orElseThrow().episodeId();
        String c = rig.stored(id, "c", 1).orElseThrow().episodeId();

        // b's terminal write holds the instance, has finished b and keeps its transaction open while
        // c's begins: c's read waits for the instance and must then see b completed (on PostgreSQL
        // its one statement read the steps before b's commit, and reads them again)
        java.util.concurrent.CountDownLatch advanced = new java.util.concurrent.CountDownLatch(1);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        io.cyclium.testing.StatementCountingTx counted = new io.cyclium.testing.StatementCountingTx(rig.db);
        try {
            Future<Optional<Runnable>> first = keptOpen(thread, rig.db, em -> rig.finishAndAdvance(em, b, id, "b"), advanced);
            assertThat(advanced.await(30, TimeUnit.SECONDS)).isTrue();
            counted.inNewTransaction(em -> rig.finishAndAdvance(em, c, id, "c")).ifPresent(Runnable::run);
            first.get(30, TimeUnit.SECONDS).ifPresent(Runnable::run);
        } finally {
            thread.shutdownNow();
        }

        dStartedOnce(rig, id, "d queued by c's write, which read b completed");
        if (vendor == Vendor.POSTGRESQL) {
            List<String> sent = counted.texts().stream().map(t -> t.replaceAll("\\s+", " ").trim()).toList();
            assertThat(sent).as("the instance and its steps in one statement, the steps again after the wait")
                    .filteredOn(t -> t.startsWith("SELECT") && t.contains("cyclium_workflow_steps")).hasSize(2);
        }
    }

    /** A started diamond's first step, its episode and its lease as a node's gate took it. */
    record LeasedStep(String instanceId, String episodeId, String key, io.cyclium.claims.LeasedClaimGate gate,
            io.cyclium.claims.HeldClaim lease) {
    }

    private static LeasedStep leasedFirstStep(Rig rig) {
        return leasedFirstStep(rig, whole());
    }

    private static LeasedStep leasedFirstStep(Rig rig, WorkflowEngine.Start start) {
        String id = rig.engine.start(rig.def, start);
        io.cyclium.claims.LeasedClaimGate gate = new io.cyclium.claims.LeasedClaimGate(new io.cyclium.claims.JpaWorkClaims(
                rig.db, rig.db.vendor(), io.cyclium.telemetry.Telemetry.NOOP), NODE, 30, io.cyclium.telemetry.Telemetry.NOOP);
        String key = StepLauncher.dedupeKey(id, "a", 1);
        return new LeasedStep(id, rig.episodes.only(id, "a", 1).episodeId(), key, gate, gate.acquire(key, "episode").orElseThrow());
    }

    private static String one(Rig rig, String sql, String param) {
        return rig.db.inNewTransaction(em -> String.valueOf(em.createNativeQuery(sql).setParameter(1, param).getSingleResult()));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_s_terminal_write_sends_its_row_its_journal_and_its_lease_as_one_statement_on_postgresql_then_advances(Vendor vendor) {
        Rig rig = new Rig(vendor, diamond());
        LeasedStep step = leasedFirstStep(rig);
        String id = step.instanceId();
        String a = step.episodeId();
        io.cyclium.testing.StatementCountingTx counted = new io.cyclium.testing.StatementCountingTx(rig.db);

        rig.run(a, counted, step.gate(), step.lease(), e -> { }, EpisodeTask.Outcome.FINISHED);

        List<String> sent = java.util.stream.Stream.concat(counted.texts().stream(), counted.connectionTexts().stream())
                .map(t -> t.replaceAll("\\s+", " ").trim()).toList();
        if (vendor == Vendor.POSTGRESQL) {
            assertThat(sent).as("the row done, its journal row and its lease settled: one statement")
                    .filteredOn(t -> t.contains("UPDATE cyclium_episodes") && t.contains("INSERT INTO cyclium_episode_steps")
                            && t.contains("UPDATE cyclium_work_claims")).hasSize(1);
            assertThat(sent).as("none of them sent on its own")
                    .noneMatch(t -> t.startsWith("UPDATE cyclium_episodes SET status") || t.startsWith("UPDATE cyclium_work_claims")
                            || t.startsWith("INSERT INTO cyclium_episode_steps"));
        } else {
            assertThat(sent).as("a statement each elsewhere").filteredOn(t -> t.startsWith("UPDATE cyclium_work_claims")).hasSize(1);
        }
        assertThat(one(rig, "SELECT status FROM cyclium_episodes WHERE id = ?1", a)).isEqualTo("done");
        assertThat(one(rig, "SELECT COUNT(*) FROM cyclium_episode_steps WHERE episode_id = ?1", a)).isEqualTo("1");
        assertThat(one(rig, "SELECT state FROM cyclium_work_claims WHERE dedupe_key = ?1", step.key())).isEqualTo("done");
        assertThat(rig.steps(id).get("a").state()).isEqualTo(StepState.COMPLETED);
        assertThat(rig.stored(id, "b", 1)).as("the next steps stored in the same commit").isPresent();
        assertThat(rig.stored(id, "c", 1)).isPresent();
    }

    /** Done once {@code go} opens: a step whose terminal write the test lets go when it chooses. */
    private static io.cyclium.episode.Strategy<String> doneWhen(java.util.concurrent.CountDownLatch reached,
            java.util.concurrent.CountDownLatch go) {
        return new io.cyclium.episode.Strategy<>() {
            @Override
            public Class<String> stateType() {
                return String.class;
            }

            @Override
            public String init(io.cyclium.episode.TriggerInfo trigger, io.cyclium.episode.StepContext context) {
                return "";
            }

            @Override
            public io.cyclium.episode.Step decide(String state, io.cyclium.episode.StepContext context) {
                reached.countDown();
                try {
                    go.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return io.cyclium.episode.Step.done("ok");
            }
        };
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = "POSTGRESQL")
    void steps_of_two_instances_ending_at_once_commit_their_terminal_writes_and_advancements_in_one_shared_transaction_on_postgresql(
            Vendor vendor) throws Exception {
        Rig rig = new Rig(vendor, diamond());
        LeasedStep first = leasedFirstStep(rig, new WorkflowEngine.Start(Json.createObjectBuilder().build(), "one", null, null,
                null, "test"));
        LeasedStep second = leasedFirstStep(rig, new WorkflowEngine.Start(Json.createObjectBuilder().build(), "two", null, null,
                null, "test"));
        List<Integer> batches = new CopyOnWriteArrayList<>();
        io.cyclium.store.GroupCommit group = io.cyclium.store.GroupCommit.start(rig.db, Executors.defaultThreadFactory(), 64, 1,
                batches::add, true);
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            java.util.concurrent.CountDownLatch decided = new java.util.concurrent.CountDownLatch(2);
            java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
            Future<?> a1 = threads.submit(() -> rig.run(first.episodeId(), group, first.gate(), first.lease(), e -> { },
                    EpisodeTask.Outcome.FINISHED, doneWhen(decided, finish)));
            Future<?> a2 = threads.submit(() -> rig.run(second.episodeId(), group, second.gate(), second.lease(), e -> { },
                    EpisodeTask.Outcome.FINISHED, doneWhen(decided, finish)));
            assertThat(decided.await(30, TimeUnit.SECONDS)).isTrue();
            // the writer busy with a write of its own while both steps hand their terminal writes over
            java.util.concurrent.CountDownLatch writerHeld = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            Future<?> holder = threads.submit(() -> group.inGroupTransaction(em -> {
                writerHeld.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            }));
            assertThat(writerHeld.await(30, TimeUnit.SECONDS)).isTrue();
            batches.clear();
            finish.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (group.waiting() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(group.waiting()).as("both terminal writes wait for the writer").isEqualTo(2);
            release.countDown();
            holder.get(30, TimeUnit.SECONDS);
            a1.get(30, TimeUnit.SECONDS);
            a2.get(30, TimeUnit.SECONDS);

            // (the held write ran as a batch of one: alone, in the caller's way, and not counted as a batch)
            assertThat(batches).as("both steps' terminal writes in one shared transaction").containsExactly(2);
            for (LeasedStep step : List.of(first, second)) {
                assertThat(one(rig, "SELECT status FROM cyclium_episodes WHERE id = ?1", step.episodeId())).isEqualTo("done");
                assertThat(one(rig, "SELECT state FROM cyclium_work_claims WHERE dedupe_key = ?1", step.key())).isEqualTo("done");
                assertThat(rig.steps(step.instanceId()).get("a").state()).isEqualTo(StepState.COMPLETED);
                assertThat(rig.stored(step.instanceId(), "b", 1)).as("the next steps stored in the shared commit").isPresent();
                assertThat(rig.stored(step.instanceId(), "c", 1)).isPresent();
            }
        } finally {
            group.close();
            threads.shutdownNow();
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_whose_lease_moved_on_leaves_nothing_of_its_terminal_write_though_its_row_and_journal_parts_applied(Vendor vendor) {
        Rig rig = new Rig(vendor, diamond());
        LeasedStep step = leasedFirstStep(rig);
        String id = step.instanceId();
        String a = step.episodeId();
        String key = step.key();
        // another node took the lease over (its own fence) while this one still runs the step
        rig.db.inNewTransaction(em -> em.createNativeQuery("UPDATE cyclium_work_claims SET owner_node = 'other-node',"
                + " fence = fence + 1 WHERE dedupe_key = ?1").setParameter(1, key).executeUpdate());

        rig.run(a, rig.db, step.gate(), step.lease(), e -> { }, EpisodeTask.Outcome.CLAIM_LOST);

        // on PostgreSQL the one statement's row and journal parts changed their rows though its lease part
        // changed none: the write rolled back and ran again statement by statement, which met the lease
        assertThat(one(rig, "SELECT status FROM cyclium_episodes WHERE id = ?1", a)).as("the episode is the new owner's").isEqualTo("running");
        assertThat(one(rig, "SELECT COUNT(*) FROM cyclium_episode_steps WHERE episode_id = ?1", a)).isEqualTo("0");
        assertThat(one(rig, "SELECT owner_node FROM cyclium_work_claims WHERE dedupe_key = ?1", key)).isEqualTo("other-node");
        assertThat(rig.steps(id).get("a").state()).isNotEqualTo(StepState.COMPLETED);
        assertThat(rig.stored(id, "b", 1)).as("no next step advanced by a write that was not this node's").isEmpty();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_s_advancement_reads_its_instance_and_steps_with_their_summaries_and_writes_in_one_statement_each_on_postgresql(
            Vendor vendor) {
        Rig rig = new Rig(vendor, diamond());
        String id = rig.engine.start(rig.def, whole());
        rig.run(rig.episodes.only("a", 1).episodeId(), e -> { });
        String b = rig.stored(id, "b", 1).orElseThrow().episodeId();
        rig.db.inNewTransaction(em -> rig.finishAndAdvance(em, b, id, "b")).ifPresent(Runnable::run);
        String c = rig.stored(id, "c", 1).orElseThrow().episodeId();

        // c's terminal write: c completed, and d (waiting for b and c) queued and started
        io.cyclium.testing.StatementCountingTx counted = new io.cyclium.testing.StatementCountingTx(rig.db);
        counted.inNewTransaction(em -> rig.finishAndAdvance(em, c, id, "c")).ifPresent(Runnable::run);

        List<String> sent = counted.texts().stream().map(t -> t.replaceAll("\\s+", " ").trim()).toList();
        assertThat(sent).as("the instance held by the read of it, not by a no-op UPDATE before it")
                .noneMatch(t -> t.startsWith("UPDATE cyclium_workflow_instances"))
                .filteredOn(t -> t.startsWith("SELECT") && t.contains("FROM cyclium_workflow_instances")).hasSize(1);
        assertThat(sent).as("the steps read once, with their episodes' summaries; no read of an episode per dependency")
                .filteredOn(t -> t.startsWith("SELECT") && (t.contains("cyclium_workflow_steps")
                        || t.contains("summary FROM cyclium_episodes"))).hasSize(1);
        if (vendor == Vendor.POSTGRESQL) {
            assertThat(sent).as("c completed, d queued with its episode, and their three transitions: one statement")
                    .noneMatch(t -> t.startsWith("UPDATE cyclium_workflow_steps") || t.startsWith("INSERT INTO cyclium_workflow_transitions"))
                    .filteredOn(t -> t.startsWith("WITH ") && t.contains("UPDATE cyclium_workflow_steps")
                            && t.contains("INSERT INTO cyclium_workflow_transitions")).hasSize(1);
            assertThat(sent).as("the instance read and held with its steps, d's episode stored, the rest combined")
                    .filteredOn(t -> t.contains("cyclium_workflow_")).hasSize(2);
        } else {
            assertThat(sent).as("c completed, d queued and running: three transitions in one INSERT")
                    .filteredOn(t -> t.startsWith("INSERT INTO cyclium_workflow_transitions")).hasSize(1);
            assertThat(sent).as("c completed and d queued: one UPDATE each")
                    .filteredOn(t -> t.startsWith("UPDATE cyclium_workflow_steps")).hasSize(2);
        }
        jakarta.json.JsonObject upstream = rig.episodes.only("d", 1).input().getJsonObject("upstream");
        assertThat(upstream.getJsonObject("b").getString("summary")).isEqualTo("summary of b");
        assertThat(upstream.getJsonObject("c").getString("summary")).isEqualTo("summary of c");
        List<TransitionRow> journal = rig.db.inNewTransaction(em -> new WorkflowQueries(rig.db.vendor()).transitions(em, id));
        assertThat(journal).filteredOn(t -> "d".equals(t.stepId())).extracting(TransitionRow::toState)
                .containsExactly(StepState.QUEUED, StepState.RUNNING);
        assertThat(journal).filteredOn(t -> t.stepId() == null).extracting(TransitionRow::toState)
                .containsExactly(InstanceStatus.PENDING, InstanceStatus.RUNNING);
        Object[] numbers = rig.db.inNewTransaction(em -> (Object[]) em.createNativeQuery("SELECT COUNT(*), COUNT(DISTINCT seq),"
                + " MAX(seq) FROM cyclium_workflow_transitions WHERE instance_id = ?1").setParameter(1, id).getSingleResult());
        assertThat(((Number) numbers[1]).longValue()).as("transition numbers, each once").isEqualTo(((Number) numbers[0]).longValue());
        assertThat(((Number) numbers[2]).longValue()).as("numbered 1 to n").isEqualTo(((Number) numbers[0]).longValue());
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_last_step_s_terminal_write_ends_the_instance_with_statistics_from_the_steps_it_holds_reading_none_again(
            Vendor vendor) {
        WorkflowDefinition chain = new WorkflowDefinition("wf-" + UUID.randomUUID().toString().substring(0, 8), "", List.of(),
                List.of(step("a"), step("b", "a")));
        Rig rig = new Rig(vendor, chain);
        String id = rig.engine.start(rig.def, whole());
        clock.advance(Duration.ofMillis(100));
        rig.db.inNewTransaction(em -> rig.finishAndAdvance(em, rig.episodes.only("a", 1).episodeId(), id, "a"))
                .ifPresent(Runnable::run);
        clock.advance(Duration.ofMillis(250));

        io.cyclium.testing.StatementCountingTx counted = new io.cyclium.testing.StatementCountingTx(rig.db);
        counted.inNewTransaction(em -> rig.finishAndAdvance(em, rig.episodes.only("b", 1).episodeId(), id, "b"))
                .ifPresent(Runnable::run);

        List<String> sent = counted.texts().stream().map(t -> t.replaceAll("\\s+", " ").trim()).toList();
        assertThat(sent).as("the steps read once, under the hold, not again for the statistics")
                .filteredOn(t -> t.startsWith("SELECT") && t.contains("cyclium_workflow_steps")).hasSize(1);
        InstanceRow instance = rig.instance(id);
        assertThat(instance.status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThat(instance.durationMs()).isEqualTo(350L);
        jakarta.json.JsonObject stepMs = Json.createReader(new java.io.StringReader(instance.stats())).readObject()
                .getJsonObject("stepMs");
        Map<String, StepRow> steps = rig.steps(id);
        assertThat(steps.get("b").runMs()).as("b's run time as its finish stored it").isEqualTo(250L);
        for (String s : List.of("a", "b")) {
            assertThat(stepMs.getJsonNumber(s).longValue()).as("the statistics' run time of %s", s).isEqualTo(steps.get(s).runMs());
        }
        assertThat(instance.criticalPath()).isEqualTo("a,b");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_s_advancement_writes_the_one_instant_it_read_the_steps_at_and_reads_no_clock_for_the_instance_s_end(
            Vendor vendor) throws Exception {
        WorkflowDefinition chain = new WorkflowDefinition("wf-" + UUID.randomUUID().toString().substring(0, 8), "", List.of(),
                List.of(step("a"), step("b", "a")));
        Rig rig = new Rig(vendor, chain, true);
        String id = rig.engine.start(rig.def, whole());
        Thread.sleep(20);
        rig.db.inNewTransaction(em -> rig.finishAndAdvance(em, rig.episodes.only("a", 1).episodeId(), id, "a"))
                .ifPresent(Runnable::run);
        Thread.sleep(30);

        io.cyclium.testing.StatementCountingTx counted = new io.cyclium.testing.StatementCountingTx(rig.db);
        counted.inNewTransaction(em -> rig.finishAndAdvance(em, rig.episodes.only("b", 1).episodeId(), id, "b"))
                .ifPresent(Runnable::run);

        String clockAlone = "SELECT " + rig.db.vendor().utcNow();
        assertThat(counted.texts()).as("no statement only to read the clock").noneMatch(t -> t.trim().equals(clockAlone));
        InstanceRow instance = rig.instance(id);
        Map<String, StepRow> steps = rig.steps(id);
        assertThat(instance.status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThat(instance.finishedAt()).as("the instance ends at the instant its last step does").isEqualTo(steps.get("b").finishedAt());
        assertThat(steps.get("b").queuedAt()).as("b queued at the instant a finished").isEqualTo(steps.get("a").finishedAt());
        assertThat(instance.durationMs()).isEqualTo(Duration.between(instance.startedAt(), instance.finishedAt()).toMillis())
                .isGreaterThanOrEqualTo(50L);
        assertThat(steps.get("b").runMs()).isEqualTo(Duration.between(steps.get("b").queuedAt(), steps.get("b").finishedAt()).toMillis())
                .isGreaterThanOrEqualTo(30L);
        jakarta.json.JsonObject stepMs = Json.createReader(new java.io.StringReader(instance.stats())).readObject()
                .getJsonObject("stepMs");
        assertThat(stepMs.getJsonNumber("b").longValue()).isEqualTo(steps.get("b").runMs());
        List<TransitionRow> journal = rig.db.inNewTransaction(em -> new WorkflowQueries(rig.db.vendor()).transitions(em, id));
        assertThat(journal.get(journal.size() - 1).toState()).isEqualTo(InstanceStatus.COMPLETED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_list_of_instances_is_stored_with_their_first_steps_and_read_back_in_one_transaction_and_one_refused_subject_stores_none(
            Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = new WorkflowDefinition("wf-" + UUID.randomUUID().toString().substring(0, 8), "", List.of(),
                List.of(step("a"), step("b", "a")));
        StepEpisodes episodes = new StepEpisodes(db);
        io.cyclium.testing.StatementCountingTx counted = new io.cyclium.testing.StatementCountingTx(db);
        WorkflowEngine engine = new WorkflowEngine(counted, new WorkflowStore(DatabaseTime.following(db.vendor(), clock), NODE),
                new WorkflowQueries(db.vendor()), id -> id.equals(def.id()) ? Optional.of(def) : Optional.empty(), episodes,
                clock, telemetry, () -> 0.5);
        java.util.function.Function<String, WorkflowEngine.Start> forSubject = subject -> new WorkflowEngine.Start(
                Json.createObjectBuilder().build(), subject, null, null, null, "test");

        List<InstanceRow> started = engine.startAllAndRead(def, List.of(forSubject.apply("s1"), forSubject.apply("s2"),
                forSubject.apply("s3")));
        List<String> ids = started.stream().map(InstanceRow::id).toList();

        assertThat(counted.transactions()).as("three instances, their steps, their first steps' episodes, and the answer read")
                .isEqualTo(1);
        assertThat(started).as("answered as stored").extracting(InstanceRow::status).containsOnly(InstanceStatus.RUNNING);
        assertThat(started).extracting(InstanceRow::startedAt).doesNotContainNull();
        assertThat(ids).hasSize(3).doesNotHaveDuplicates();
        for (String id : ids) {
            InstanceRow instance = db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).instance(em, id)).orElseThrow();
            assertThat(instance.status()).isEqualTo(InstanceStatus.RUNNING);
            assertThat(episodes.only(id, "a", 1).episodeId()).isNotNull();
            assertThat(episodes.launches(id, 1)).as("b waits for a").isEqualTo(1);
        }

        // s2 is in flight: a list naming it stores nothing, not even the instance before it
        assertThatThrownBy(() -> engine.startAll(def, List.of(forSubject.apply("s4"), forSubject.apply("s2"))))
                .isInstanceOf(io.cyclium.problem.Problem.class).hasMessageContaining("\"s2\"").hasMessageContaining(ids.get(1));
        assertThatThrownBy(() -> engine.startAll(def, List.of(forSubject.apply("s5"), forSubject.apply("s5"))))
                .isInstanceOf(io.cyclium.problem.Problem.class).hasMessageContaining("instances 0 and 1");
        long s4 = db.inNewTransaction(em -> ((Number) em.createNativeQuery("SELECT COUNT(*) FROM cyclium_workflow_instances"
                + " WHERE workflow_id = ?1 AND subject_value IN ('s4', 's5')").setParameter(1, def.id()).getSingleResult()).longValue());
        assertThat(s4).isZero();
        assertThat(telemetry.count("workflow_instance_started")).isEqualTo(3);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_longest_list_of_instances_a_request_may_start_is_stored_in_one_transaction(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = new WorkflowDefinition("wf-" + UUID.randomUUID().toString().substring(0, 8), "", List.of(),
                List.of(step("a"), step("b"), step("c"), step("d", "a", "b", "c")));
        StepEpisodes episodes = new StepEpisodes(db);
        io.cyclium.testing.StatementCountingTx counted = new io.cyclium.testing.StatementCountingTx(db);
        WorkflowEngine engine = new WorkflowEngine(counted, new WorkflowStore(DatabaseTime.of(db.vendor()), NODE),
                new WorkflowQueries(db.vendor()), id -> id.equals(def.id()) ? Optional.of(def) : Optional.empty(), episodes,
                clock, telemetry, () -> 0.5);
        List<WorkflowEngine.Start> starts = new java.util.ArrayList<>();
        for (int i = 0; i < WorkflowEngine.MAX_STARTS_AT_ONCE; i++) {
            starts.add(new WorkflowEngine.Start(Json.createObjectBuilder().build(), "s" + i, null, null, null, "test"));
        }

        List<InstanceRow> started = engine.startAllAndRead(def, starts);

        assertThat(counted.transactions()).isEqualTo(1);
        assertThat(started).hasSize(WorkflowEngine.MAX_STARTS_AT_ONCE).extracting(InstanceRow::status)
                .containsOnly(InstanceStatus.RUNNING);
        long transitions = db.inNewTransaction(em -> ((Number) em.createNativeQuery("SELECT COUNT(*) FROM cyclium_workflow_transitions t"
                + " JOIN cyclium_workflow_instances i ON i.id = t.instance_id WHERE i.workflow_id = ?1").setParameter(1, def.id())
                .getSingleResult()).longValue());
        assertThat(transitions).as("created, started, and three first steps queued and running, per instance")
                .isEqualTo(8L * WorkflowEngine.MAX_STARTS_AT_ONCE);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_another_engine_queues_while_the_terminal_write_launches_it_keeps_no_second_episode(Vendor vendor)
            throws Exception {
        Rig rig = new Rig(vendor, diamond());
        String id = rig.engine.start(rig.def, whole());
        String a = rig.episodes.only("a", 1).episodeId();
        WorkflowStore other = new WorkflowStore(DatabaseTime.following(rig.db.vendor(), clock), "other-node");

        // another engine, not holding the instance (a reconcile), queues b and keeps its transaction
        // open while a's terminal write advances: on PostgreSQL and H2 that write launches b, then
        // finds its queue-and-attach UPDATE matching nothing once the other commits, and runs again
        // (seen failing without it); on MariaDB its hold of the instance waits for the other's
        // journal row (whose foreign key check share-locked the instance) and reads b queued
        java.util.concurrent.CountDownLatch queued = new java.util.concurrent.CountDownLatch(1);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> reconcile = keptOpen(thread, rig.db,
                    em -> other.queue(em, id, "b", StepState.PENDING, 0, false, "queued by a reconcile"), queued);
            assertThat(queued.await(30, TimeUnit.SECONDS)).isTrue();
            rig.run(a, e -> { });
            assertThat(reconcile.get(30, TimeUnit.SECONDS)).isEqualTo(1);
        } finally {
            thread.shutdownNow();
        }

        assertThat(rig.steps(id).get("a").state()).isEqualTo(StepState.COMPLETED);
        assertThat(rig.steps(id).get("b").state()).isEqualTo(StepState.QUEUED);
        assertThat(rig.stored(id, "b", 1)).as("no episode of b beside the other engine's queueing").isEmpty();
        assertThat(rig.stored(id, "c", 1)).isPresent();
        assertThat(rig.episodesOf(id)).isEqualTo(2);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_stored_as_queued_reads_as_started_once_its_episode_has_left_its_node_s_queue(Vendor vendor) {
        Rig rig = new Rig(vendor, diamond());
        String id = rig.engine.start(rig.def, whole());
        String a = rig.episodes.only("a", 1).episodeId();
        WorkflowQueries queries = new WorkflowQueries(rig.db.vendor());
        queuedInItsNode(rig, id, a);
        java.util.Set<String> waiting = rig.db.inNewTransaction(em -> queries.queuedButStarted(em, id));
        assertThat(waiting).as("still waiting for a slot").isEmpty();

        // its first write clears the queue mark: from then on the step reads as started
        rig.db.inNewTransaction(em -> rig.store.leftQueue(em, a));
        java.util.Set<String> started = rig.db.inNewTransaction(em -> queries.queuedButStarted(em, id));
        assertThat(started).containsExactly("a");
        assertThat(rig.steps(id).get("a").state()).as("the row itself is not written").isEqualTo(StepState.QUEUED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_reconcile_leaves_a_step_queued_while_its_episode_waits_in_its_node_s_queue_and_marks_it_running_once_it_started(
            Vendor vendor) {
        Rig rig = new Rig(vendor, diamond());
        String id = rig.engine.start(rig.def, whole());
        String a = rig.episodes.only("a", 1).episodeId();
        queuedInItsNode(rig, id, a);

        rig.engine.reconcile(null, true, null, 100);
        assertThat(rig.steps(id).get("a").state()).as("still waiting: not started").isEqualTo(StepState.QUEUED);

        rig.db.inNewTransaction(em -> rig.store.leftQueue(em, a));
        rig.engine.reconcile(null, true, null, 100);
        assertThat(rig.steps(id).get("a").state()).isEqualTo(StepState.RUNNING);
    }

    /** The diamond's step d, waiting for b and c, was queued and started with one episode: four in all. */
    private static void dStartedOnce(Rig rig, String instanceId, String why) {
        assertThat(rig.stored(instanceId, "d", 1)).as(why).isPresent();
        assertThat(rig.steps(instanceId).get("d").state()).isEqualTo(StepState.RUNNING);
        assertThat(rig.episodesOf(instanceId)).isEqualTo(4);
    }

    /**
     * Runs {@code work} in a transaction on {@code thread}, says so on {@code done}, and keeps the
     * transaction open 1.5 s more before it commits: what the work locked stays locked meanwhile.
     */
    private static <T> Future<T> keptOpen(ExecutorService thread, TestJpa db,
            java.util.function.Function<jakarta.persistence.EntityManager, T> work, java.util.concurrent.CountDownLatch done) {
        return thread.submit(() -> db.inNewTransaction(em -> {
            T result = work.apply(em);
            done.countDown();
            try {
                Thread.sleep(1_500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return result;
        }));
    }

    /**
     * Step a and its episode as a launch behind busy slots or a concurrency key at its limit leaves
     * them: the step queued, its episode running and marked queued.
     */
    private static void queuedInItsNode(Rig rig, String instanceId, String episodeId) {
        rig.db.inNewTransaction(em -> {
            em.createNativeQuery("UPDATE cyclium_workflow_steps SET state = 'queued' WHERE instance_id = ?1 AND step_id = 'a'")
                    .setParameter(1, instanceId).executeUpdate();
            return em.createNativeQuery("UPDATE cyclium_episodes SET queued_at = updated_at WHERE id = ?1")
                    .setParameter(1, episodeId).executeUpdate();
        });
    }
}
