package io.cyclium.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.claims.PassthroughClaimGate;
import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeEntity;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.StepKind;
import io.cyclium.episode.StepResult;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.episode.WaitAlarm;
import io.cyclium.episode.WaitResolution;
import io.cyclium.episode.WaitStore;
import io.cyclium.execution.EpisodeTask;
import io.cyclium.execution.RunControl;
import io.cyclium.execution.StrategyLookup;
import io.cyclium.execution.TaskEnvironment;
import io.cyclium.operations.SignalDelivery;
import io.cyclium.problem.Problem;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.Jsons;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.Concurrently;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Durable sleeps, wait timeouts and signals on H2, PostgreSQL and MariaDB: the real task loop, the
 * real stores and the due pass of two "nodes" over one database; due times follow a test clock
 * (bound as parameters) instead of the database's, so nothing sleeps.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class DurableWaitsTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final Instant T0 = Instant.parse("2026-06-01T10:00:00Z");

    /** A strategy whose next step is a function of what it has seen (kind:name:value per result). */
    public static final class Script implements Strategy<Script.State> {
        public static class State {
            public List<String> seen = new ArrayList<>();
        }

        final Function<List<String>, Step> decide;

        Script(Function<List<String>, Step> decide) {
            this.decide = decide;
        }

        @Override
        public Class<State> stateType() {
            return State.class;
        }

        @Override
        public State init(TriggerInfo trigger, StepContext context) {
            return new State();
        }

        @Override
        public Step decide(State state, StepContext context) {
            return decide.apply(state.seen);
        }

        @Override
        public State onResult(State state, StepResult result, StepContext context) {
            state.seen.add(result.kind() + ":" + result.name() + (result.value() == null || result.value().toString().equals("null")
                    ? "" : ":" + result.value()));
            return state;
        }
    }

    /** Two nodes over one database, with the clock their due times follow. */
    final class Cluster {
        final TestJpa jpa;
        final EpisodeStore store;
        final MutableClock clock = new MutableClock(T0);
        final WaitStore waits;
        final ExpectationDefinition exp = new ExpectationDefinition("sleepy", "work", Script.class, List.of(), Optional.empty(),
                Optional.empty(), true, Duration.ZERO, Duration.ZERO, null, RecoveryPolicy.RESTART, 3,
                new Budget(50, Duration.ofHours(1)), 0, Duration.ofMinutes(1), null);
        Script strategy;
        /** What the tasks did with their leases, in order (settled in a write, held again, settled after). */
        final List<String> leases = new java.util.concurrent.CopyOnWriteArrayList<>();

        /** The env of the episodes this cluster stores (the due pass reads one env): null unless a test owns one. */
        String env;
        /** The alarm of node-a's tasks (the wait store they block through sets it). */
        final WaitAlarm alarm;
        final java.time.Clock taskClock;

        Cluster(Vendor vendor) {
            jpa = databases.jpa(vendor);
            store = new EpisodeStore(jpa.vendor());
            waits = new WaitStore(DatabaseTime.following(jpa.vendor(), clock));
            alarm = waits.alarm();
            taskClock = clock;
        }

        /** Due times on the database's own clock and alarms on the JVM's: for the tests that time a wake. */
        Cluster(Vendor vendor, WaitAlarm alarm) {
            jpa = databases.jpa(vendor);
            store = new EpisodeStore(jpa.vendor());
            waits = new WaitStore(jpa.vendor()).withAlarm(alarm);
            this.alarm = alarm;
            taskClock = java.time.Clock.systemUTC();
            // other tests' rows are due on a test clock long past: this test's pass reads only its own env
            env = "timed-" + UUID.randomUUID().toString().substring(0, 8);
        }

        TaskEnvironment env(String node) {
            StrategyLookup lookup = new StrategyLookup() {
                @Override
                public Optional<ExpectationDefinition> expectation(String actorId, String expectationId) {
                    return Optional.of(exp);
                }

                @Override
                public Strategy<?> strategy(ExpectationDefinition e) {
                    return strategy;
                }
            };
            PassthroughClaimGate passthrough = new PassthroughClaimGate();
            io.cyclium.claims.ClaimGate recording = new io.cyclium.claims.ClaimGate() {
                @Override
                public Optional<io.cyclium.claims.HeldClaim> acquire(String key, String workType) {
                    return passthrough.acquire(key, workType);
                }

                @Override
                public boolean stillOwns(io.cyclium.claims.HeldClaim claim) {
                    return true;
                }

                @Override
                public void complete(io.cyclium.claims.HeldClaim claim) {
                    leases.add("complete");
                }

                @Override
                public void fail(io.cyclium.claims.HeldClaim claim, String detail) {
                    leases.add("fail");
                }

                @Override
                public Optional<Boolean> settleIn(jakarta.persistence.EntityManager em, io.cyclium.claims.HeldClaim claim,
                        boolean success, String detail) {
                    leases.add("settled in the write");
                    return Optional.of(true);
                }

                @Override
                public void stillHeld(io.cyclium.claims.HeldClaim claim) {
                    leases.add("held again");
                }
            };
            return new TaskEnvironment(jpa, store, lookup, recording, null, f -> { }, taskClock, node,
                    Telemetry.NOOP).withWaits(waits);
        }

        String insert(String node) {
            String id = UUID.randomUUID().toString();
            NewEpisode e = new NewEpisode(id, "sleepy", "work", null,
                    new TriggerInfo(TriggerInfo.MANUAL, null, null, Json.createObjectBuilder().build(), null),
                    "sleepy:" + id, 3, exp.budget(), node, false, null, env, null, null);
            boolean inserted = jpa.inNewTransaction(em -> store.insert(em, e));
            assertThat(inserted).isTrue();
            return id;
        }

        EpisodeTask.Outcome run(String node, String id, boolean resume) {
            EpisodeTask task = new EpisodeTask(env(node), id, null, resume, null, new RunControl(id), o -> { });
            task.run();
            return task.outcome();
        }

        /** The due pass of {@code node}, which runs the actor. */
        DueWaits duePass(String node, TestLocalActors actors) {
            return duePass(node, actors, waits);
        }

        /** The due pass of a node whose wait store sets {@code its} alarm. */
        DueWaits duePass(String node, TestLocalActors actors, WaitStore its) {
            return new DueWaits(jpa, its, new WaitResolution(store, its), node, actors, Telemetry.NOOP);
        }

        /**
         * What RecoverySweep's {@link DueWakeTimer} does, until {@code until} holds or {@code limit}
         * passed: the due pass at the instant the alarm is due, on a scheduled executor. No sweep
         * runs (its interval is 30 s by default, longer than any of these tests): a wake here is the alarm's.
         */
        void wakeUntil(WaitAlarm its, DueWaits pass, Duration limit, java.util.function.BooleanSupplier until)
                throws InterruptedException {
            var executor = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
            DueWakeTimer timer = new DueWakeTimer(executor, its, () -> {
                pass.wakeRung(env);
                return true;
            }).start();
            try {
                long end = System.nanoTime() + limit.toNanos();
                while (!until.getAsBoolean() && System.nanoTime() < end) {
                    Thread.sleep(10); // the test's own poll of the outcome, not the wake's
                }
            } finally {
                timer.stop();
                executor.shutdownNow();
            }
        }

        SignalDelivery signals(String node) {
            return new SignalDelivery(jpa, store, waits, node);
        }

        EpisodeEntity row(String id) {
            return jpa.inNewTransaction(em -> em.find(EpisodeEntity.class, id));
        }

        List<String> kinds(String id) {
            return jpa.inNewTransaction(em -> em.createQuery("SELECT s.kind FROM EpisodeStepEntity s WHERE s.episodeId = :id"
                    + " ORDER BY s.stepNo", String.class).setParameter("id", id).getResultList());
        }

        Optional<WaitStore.WaitRow> waitRow(String id) {
            return jpa.inNewTransaction(em -> waits.find(em, id));
        }

        List<WaitStore.KeptSignal> kept(String id) {
            return jpa.inNewTransaction(em -> waits.kept(em, id, 10));
        }

        List<WaitStore.WaitRow> keyed(WaitResolution resolution, String type, String key, JsonObject detail) {
            return jpa.inNewTransaction(em -> resolution.resolveKeyed(em, type, key, detail, "node-b", a -> true, 10));
        }

        String summary(String id) {
            return row(id).summary;
        }
    }

    private static TestLocalActors node() {
        return new TestLocalActors().runs("sleepy", RecoveryPolicy.RESTART);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_sleep_leaves_the_node_and_another_node_resumes_it_once_due(Vendor vendor) {
        Cluster c = new Cluster(vendor);
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.sleep(Duration.ofMinutes(10)) : Step.done("woke " + seen));
        String id = c.insert("node-a");

        assertThat(c.run("node-a", id, false)).as("the task ends: no thread, no slot while it sleeps")
                .isEqualTo(EpisodeTask.Outcome.BLOCKED);
        assertThat(c.row(id).status).isEqualTo("blocked");
        assertThat(c.leases).as("the lease is settled with the block: nothing holds the episode while it sleeps")
                .containsExactly("settled in the write");
        assertThat(c.waitRow(id)).get().satisfies(w -> {
            assertThat(w.sleep()).isTrue();
            assertThat(w.wakeAt()).isEqualTo(T0.plus(Duration.ofMinutes(10)));
        });

        TestLocalActors b = node();
        c.clock.advance(Duration.ofMinutes(9));
        assertThat(c.duePass("node-b", b).wake(null)).as("not due yet").isZero();
        assertThat(c.row(id).status).isEqualTo("blocked");

        c.clock.advance(Duration.ofMinutes(1));
        assertThat(c.duePass("node-b", b).wake(null)).isEqualTo(1);
        assertThat(c.row(id).status).isEqualTo("running");
        assertThat(c.row(id).runNode).isEqualTo("node-b");
        assertThat(b.resumed).containsExactly(id);
        assertThat(c.waitRow(id)).isEmpty();

        assertThat(c.run("node-b", id, true)).isEqualTo(EpisodeTask.Outcome.FINISHED);
        assertThat(c.row(id).status).isEqualTo("done");
        assertThat(c.summary(id)).startsWith("woke [slept:sleep:");
        assertThat(c.kinds(id)).containsSubsequence(StepKind.WAIT_STARTED, StepKind.WAIT_RESOLVED, StepKind.RESUMED,
                StepKind.EPISODE_COMPLETED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_sleep_until_an_instant_is_due_at_that_instant(Vendor vendor) {
        Cluster c = new Cluster(vendor);
        Instant at = T0.plus(Duration.ofHours(2));
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.sleepUntil(at) : Step.done("woke"));
        String id = c.insert("node-a");
        c.run("node-a", id, false);
        assertThat(c.waitRow(id).orElseThrow().wakeAt()).isEqualTo(at);
        c.clock.set(at.minusSeconds(1));
        assertThat(c.duePass("node-a", node()).wake(null)).isZero();
        c.clock.set(at);
        assertThat(c.duePass("node-a", node()).wake(null)).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_wait_that_times_out_takes_the_timeout_branch(Vendor vendor) {
        Cluster c = new Cluster(vendor);
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.waitFor("bank-confirmation", Duration.ofMinutes(5))
                : Step.done(seen.get(0)));
        String id = c.insert("node-a");
        assertThat(c.run("node-a", id, false)).isEqualTo(EpisodeTask.Outcome.BLOCKED);

        c.clock.advance(Duration.ofMinutes(5));
        assertThat(c.duePass("node-b", node()).wake(null)).isEqualTo(1);
        c.run("node-b", id, true);
        assertThat(c.summary(id)).as("the strategy saw the timeout, not a value")
                .isEqualTo("wait_timed_out:bank-confirmation");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_signal_delivers_its_payload_to_the_waiting_episode_and_its_timeout_then_finds_nothing(Vendor vendor) {
        Cluster c = new Cluster(vendor);
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.waitFor("approved", Duration.ofMinutes(5)) : Step.done(seen.get(0)));
        String id = c.insert("node-a");
        c.run("node-a", id, false);

        SignalDelivery.Delivered d = c.signals("node-b").toEpisode(id, "approved",
                Json.createObjectBuilder().add("by", "carol").add("amount", 12).build(), "carol", a -> true);
        assertThat(d.outcome().delivered()).isTrue();
        assertThat(c.row(id).status).isEqualTo("running");
        assertThat(c.row(id).runNode).isEqualTo("node-b");

        c.clock.advance(Duration.ofMinutes(6));
        assertThat(c.duePass("node-c", node()).wake(null)).as("the signal won: the timeout resolves nothing").isZero();

        c.run("node-b", id, true);
        assertThat(c.summary(id)).isEqualTo("wait_resolved:approved:{\"by\":\"carol\",\"amount\":12}");
        assertThat(c.kinds(id).stream().filter(StepKind.WAIT_RESOLVED::equals)).hasSize(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_signal_sent_before_the_wait_is_kept_and_handed_to_the_wait_without_leaving_the_node(Vendor vendor) {
        Cluster c = new Cluster(vendor);
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.waitFor("go") : Step.done(seen.get(0)));
        String id = c.insert("node-a");

        SignalDelivery.Delivered d = c.signals("node-b").toEpisode(id, "go", Json.createValue("now"), "dave", a -> true);
        assertThat(d.outcome().delivered()).as("nothing waits yet: kept").isFalse();
        assertThat(c.kept(id)).singleElement()
                .satisfies(k -> assertThat(k.sentBy()).isEqualTo("dave"));

        assertThat(c.run("node-a", id, false)).as("the wait is answered at once: the run goes on to its end")
                .isEqualTo(EpisodeTask.Outcome.FINISHED);
        assertThat(c.summary(id)).isEqualTo("wait_resolved:go:\"now\"");
        assertThat(c.kinds(id)).containsSubsequence(StepKind.WAIT_STARTED, StepKind.WAIT_RESOLVED, StepKind.EPISODE_COMPLETED);
        assertThat(c.kept(id)).as("taken").isEmpty();
        assertThat(c.waitRow(id)).as("no wait row left behind").isEmpty();
        assertThat(c.leases).as("the lease stays held through the wait and is settled once, at the end")
                .containsExactly("held again", "settled in the write");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_signal_for_another_name_is_kept_and_one_for_a_finished_or_unknown_episode_is_refused(Vendor vendor) {
        Cluster c = new Cluster(vendor);
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.waitFor("go") : Step.done("x"));
        String id = c.insert("node-a");
        c.run("node-a", id, false);
        assertThat(c.signals("node-a").toEpisode(id, "other", Json.createValue(1), null, a -> true).outcome().delivered())
                .isFalse();
        assertThat(c.row(id).status).as("still waiting for go").isEqualTo("blocked");

        c.signals("node-a").toEpisode(id, "go", Json.createValue(2), null, a -> true);
        c.run("node-a", id, true);
        assertThatThrownBy(() -> c.signals("node-a").toEpisode(id, "go", Json.createValue(3), null, a -> true))
                .isInstanceOf(Problem.class).hasMessageContaining("is done");
        String unknown = UUID.randomUUID().toString();
        assertThatThrownBy(() -> c.signals("node-a").toEpisode(unknown, "go", Json.createValue(3), null, a -> true))
                .isInstanceOf(Problem.class).hasMessageContaining("no episode");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_event_with_the_declared_key_resolves_the_wait_with_its_payload(Vendor vendor) {
        Cluster c = new Cluster(vendor);
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.waitFor("payment.settled").keyed("order-42")
                : Step.done(seen.get(0)));
        String id = c.insert("node-a");
        c.run("node-a", id, false);
        WaitResolution resolution = new WaitResolution(c.store, c.waits);
        JsonObject payload = Json.createObjectBuilder().add("waitKey", "order-42").add("paid", true).build();
        JsonObject detail = Jsons.object().add("reference", "payment.settled").add("value", payload).build();

        assertThat(c.keyed(resolution, "payment.settled", "order-41", detail)).as("another key").isEmpty();
        assertThat(c.keyed(resolution, "payment.failed", "order-42", detail)).as("another type").isEmpty();
        assertThat(c.keyed(resolution, "payment.settled", "order-42", detail)).extracting(WaitStore.WaitRow::episodeId).containsExactly(id);

        c.run("node-b", id, true);
        assertThat(c.summary(id)).isEqualTo("wait_resolved:payment.settled:{\"waitKey\":\"order-42\",\"paid\":true}");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void two_nodes_racing_for_the_same_due_sleepers_wake_each_exactly_once(Vendor vendor) throws Exception {
        Cluster c = new Cluster(vendor);
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.sleep(Duration.ofMinutes(1)) : Step.done("woke"));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String id = c.insert("node-a");
            c.run("node-a", id, false);
            ids.add(id);
        }
        c.clock.advance(Duration.ofMinutes(2));
        TestLocalActors a = node();
        TestLocalActors b = node();
        List<Integer> woke = Concurrently.run(2, n -> c.duePass(n == 0 ? "node-a" : "node-b", n == 0 ? a : b).wake(null));

        assertThat(woke.get(0) + woke.get(1)).isEqualTo(12);
        List<String> resumed = new ArrayList<>(a.resumed);
        resumed.addAll(b.resumed);
        assertThat(resumed).as("each resumed by exactly one node").containsExactlyInAnyOrderElementsOf(ids);
        for (String id : ids) {
            assertThat(c.kinds(id).stream().filter(StepKind.WAIT_RESOLVED::equals)).as(id).hasSize(1);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_run_that_dies_after_resuming_and_before_its_next_checkpoint_hands_the_signal_to_the_next_run(Vendor vendor) {
        Cluster c = new Cluster(vendor);
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.waitFor("go") : Step.done(seen.get(0)));
        String id = c.insert("node-a");
        c.run("node-a", id, false);
        c.signals("node-a").toEpisode(id, "go", Json.createValue("payload-1"), null, a -> true);
        // node-a resumes it (journals "resumed") and is killed before its next step
        c.jpa.run(em -> c.store.journal(em, id, c.store.nextStepNo(em, id), StepKind.RESUMED, "node-a",
                Json.createObjectBuilder().add("event", "resumed").build(), null, null, null));

        c.run("node-b", id, true);
        assertThat(c.summary(id)).as("the payload was not lost with the run").isEqualTo("wait_resolved:go:\"payload-1\"");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_draining_or_trigger_only_node_wakes_nothing_and_the_sleeper_stays_due(Vendor vendor) {
        Cluster c = new Cluster(vendor);
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.sleep(Duration.ofMinutes(1)) : Step.done("woke"));
        String id = c.insert("node-a");
        c.run("node-a", id, false);
        c.clock.advance(Duration.ofMinutes(2));
        TestLocalActors draining = node();
        draining.beginDrain();
        assertThat(c.duePass("node-a", draining).wake(null)).isZero();
        assertThat(c.duePass("node-b", node().triggerOnly(true)).wake(null)).isZero();
        assertThat(c.row(id).status).isEqualTo("blocked");
        assertThat(c.duePass("node-c", node()).wake(null)).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void a_two_second_sleep_wakes_on_its_own_node_within_two_seconds_of_its_due_time_without_a_sweep(Vendor vendor)
            throws Exception {
        Cluster c = new Cluster(vendor, new WaitAlarm());
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.sleep(Duration.ofSeconds(2)) : Step.done("woke"));
        TestLocalActors a = node();
        DueWaits pass = c.duePass("node-a", a);
        String id = c.insert("node-a");
        long t0 = System.nanoTime();
        assertThat(c.run("node-a", id, false)).isEqualTo(EpisodeTask.Outcome.BLOCKED);
        assertThat(c.alarm.dueIn()).as("the committed sleep set the node's alarm").get()
                .satisfies(in -> assertThat(in).isBetween(Duration.ofMillis(1_000), Duration.ofSeconds(2)));

        c.wakeUntil(c.alarm, pass, Duration.ofSeconds(10), () -> a.resumed.contains(id));
        long sleptMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(a.resumed).as("woken by the alarm, no sweep ran").containsExactly(id);
        assertThat(c.alarm.dueIn()).as("nothing else of its env is due: the alarm is off").isEmpty();
        assertThat(sleptMs - 2_000).as("ms late (asleep %d ms)", sleptMs).isBetween(-100L, 300L);
        assertThat(c.row(id).status).isEqualTo("running");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void a_sleeper_of_a_node_that_died_is_woken_on_time_by_a_node_that_heard_its_due_time_in_the_workflow_pulse(Vendor vendor)
            throws Exception {
        Cluster c = new Cluster(vendor, new WaitAlarm());
        c.strategy = new Script(seen -> seen.isEmpty() ? Step.sleep(Duration.ofSeconds(2)) : Step.done("woke"));
        String id = c.insert("node-a");
        long t0 = System.nanoTime();
        c.run("node-a", id, false); // node-a's alarm is set, and node-a dies with it

        WaitAlarm bAlarm = new WaitAlarm();
        TestLocalActors b = node();
        DueWaits bPass = c.duePass("node-b", b, new WaitStore(c.jpa.vendor()).withAlarm(bAlarm));
        assertThat(bAlarm.dueIn()).as("node-b knows nothing yet").isEmpty();
        io.cyclium.workflow.WorkflowQueries.Pulse p = c.jpa.inNewTransaction(em ->
                new io.cyclium.workflow.WorkflowQueries(c.jpa.vendor()).pulse(em));
        assertThat(p.waitDue()).as("the pulse carries the earliest due time").isNotNull();
        bAlarm.wake(Duration.between(p.now(), p.waitDue()));

        c.wakeUntil(bAlarm, bPass, Duration.ofSeconds(10), () -> b.resumed.contains(id));
        long sleptMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(b.resumed).containsExactly(id);
        assertThat(sleptMs - 2_000).as("ms late (asleep %d ms)", sleptMs).isBetween(-100L, 300L);
        assertThat(c.row(id).runNode).isEqualTo("node-b");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_sweep_s_pass_and_the_alarm_s_pass_tell_the_alarm_when_the_next_sleeper_of_their_env_is_due(Vendor vendor) {
        Cluster c = new Cluster(vendor);
        c.env = "census-" + UUID.randomUUID().toString().substring(0, 8);
        Instant[] until = {T0.plus(Duration.ofMinutes(1)), T0.plus(Duration.ofMinutes(7))};
        for (Instant at : until) {
            c.strategy = new Script(seen -> seen.isEmpty() ? Step.sleepUntil(at) : Step.done("woke"));
            c.run("node-a", c.insert("node-a"), false);
        }
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
        WaitAlarm b = new WaitAlarm(nanos::get);
        DueWaits pass = c.duePass("node-b", node(), c.waits.withAlarm(b));
        assertThat(pass.wake(c.env)).as("the sweep's pass: nothing due yet").isZero();
        assertThat(b.dueIn()).get().isEqualTo(Duration.ofMinutes(1));

        assertThat(b.ringing()).isFalse();
        c.clock.advance(Duration.ofMinutes(1));
        nanos.addAndGet(Duration.ofMinutes(1).toNanos());
        assertThat(b.ringing()).isTrue();
        assertThat(b.dueIn()).as("ringing turns it off").isEmpty();
        assertThat(pass.wakeRung(c.env)).as("the alarm's pass").isEqualTo(1);
        assertThat(b.dueIn()).as("the pass heard the next one").get().isEqualTo(Duration.ofMinutes(6));
    }
}
