package io.cyclium.execution;

import io.cyclium.episode.Budget;
import io.cyclium.episode.Convergence;
import io.cyclium.episode.EpisodeEntity;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStepEntity;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.StepKind;
import io.cyclium.episode.StepResult;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.keys.EpisodeRef;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.keys.CanonicalJson;
import io.cyclium.claims.ClaimGate;
import io.cyclium.claims.HeldClaim;
import io.cyclium.claims.PassthroughClaimGate;
import io.cyclium.finding.FindingAction;
import io.cyclium.finding.FindingStore;
import io.cyclium.output.OutputAdapter;
import io.cyclium.output.OutputProposal;
import io.cyclium.output.OutputRouter;
import io.cyclium.output.OutputStore;
import io.cyclium.store.JsonText;
import io.cyclium.telemetry.Telemetry;
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
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The episode loop against real databases: the real store, findings and output router; only the
 * strategies are the test's own. Tasks run on the test thread, so every outcome is deterministic.
 */
class EpisodeTaskTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final String NODE = "node-under-test";

    /** A strategy assembled from lambdas: enough to script every path through the loop. */
    static final class Scripted implements Strategy<Scripted.State> {
        public static class State {
            public int step;
            public List<String> seen = new ArrayList<>();
        }

        final BiFunction<State, StepContext, Step> decide;
        final Convergence convergence;
        int version = 1;
        final AtomicInteger inits = new AtomicInteger();
        final AtomicInteger migrations = new AtomicInteger();

        Scripted(BiFunction<State, StepContext, Step> decide, Convergence convergence) {
            this.decide = decide;
            this.convergence = convergence;
        }

        @Override
        public Class<State> stateType() {
            return State.class;
        }

        @Override
        public State init(TriggerInfo trigger, StepContext context) {
            inits.incrementAndGet();
            return new State();
        }

        @Override
        public Step decide(State state, StepContext context) {
            return decide.apply(state, context);
        }

        @Override
        public State onResult(State state, StepResult result, StepContext context) {
            state.step++;
            state.seen.add(result.kind() + ":" + result.name() + (result.failed() ? ":" + result.error() : ""));
            return state;
        }

        @Override
        public Convergence converge(State state, StepContext context) {
            return convergence;
        }

        @Override
        public int stateVersion() {
            return version;
        }

        @Override
        public JsonObject migrate(int fromVersion, JsonObject state) {
            migrations.incrementAndGet();
            return Json.createObjectBuilder(state).add("seen", Json.createArrayBuilder(state.getJsonArray("seen"))
                    .add("migrated-from-" + fromVersion)).build();
        }
    }

    /** A claim gate whose fence check the test controls (the real one comes with work claims). */
    static final class ControlledGate implements ClaimGate {
        volatile boolean owns = true;
        final List<String> settled = new CopyOnWriteArrayList<>();

        @Override
        public Optional<HeldClaim> acquire(String key, String workType) {
            return Optional.of(new HeldClaim(key, 1, false));
        }

        @Override
        public boolean stillOwns(HeldClaim claim) {
            return owns;
        }

        @Override
        public void complete(HeldClaim claim) {
            settled.add("complete");
        }

        @Override
        public void fail(HeldClaim claim, String detail) {
            settled.add("fail");
        }

        @Override
        public void forget(HeldClaim claim) {
            settled.add("forget");
        }
    }

    /** Everything one test needs, over one vendor's database. */
    final class Rig {
        final TestJpa jpa;
        final EpisodeStore store;
        final MutableClock clock = new MutableClock(Instant.parse("2026-06-01T10:00:00Z"));
        final List<EpisodeFinished> finished = new CopyOnWriteArrayList<>();
        final CountingAdapter outputs = new CountingAdapter();
        final Map<String, AtomicInteger> delivered = outputs.delivered;
        ClaimGate gate = new PassthroughClaimGate();
        final io.cyclium.testing.RecordingTelemetry telemetry = new io.cyclium.testing.RecordingTelemetry();
        final List<io.cyclium.episode.EpisodeProgressed> progressed = new CopyOnWriteArrayList<>();
        Scripted strategy;

        Rig(Vendor vendor) {
            this.jpa = databases.jpa(vendor);
            this.store = new EpisodeStore(jpa.vendor());
        }

        ExpectationDefinition expectation(int maxSteps, Duration maxWall) {
            return new ExpectationDefinition("test_actor", "test_exp", Scripted.class, List.of(), Optional.empty(),
                    Optional.empty(), true, Duration.ZERO, Duration.ZERO, null, RecoveryPolicy.FAIL, 3,
                    new Budget(maxSteps, maxWall), 0, Duration.ofMinutes(1), null);
        }

        TaskEnvironment environment(ExpectationDefinition exp) {
            FindingStore findings = new FindingStore(jpa.vendor());
            OutputAdapter counting = outputs;
            OutputRouter router = new OutputRouter(jpa, new OutputStore(jpa.vendor()),
                    type -> "count".equals(type) ? Optional.of(counting) : Optional.empty(), clock, Telemetry.NOOP);
            ConvergeEffects effects = new ConvergeEffects() {
                @Override
                public Effect applyFinding(FindingAction action, EpisodeRef episode, Duration ttl) {
                    return ContainerConvergeEffects.ConvergeEffectsMapping.finding(
                            jpa.inNewTransaction(em -> findings.apply(em, action, episode, ttl)));
                }

                @Override
                public Effect deliver(OutputProposal proposal, EpisodeRef episode, boolean resumedRun) {
                    return ContainerConvergeEffects.ConvergeEffectsMapping.output(proposal, resumedRun
                            ? router.routeResumed(proposal, episode, null) : router.route(proposal, episode, null));
                }
            };
            StrategyLookup lookup = new OneStrategy(exp, strategy);
            return new TaskEnvironment(jpa, store, lookup, gate, effects, finished::add, clock, NODE, telemetry, progressed::add);
        }

        String insert(ExpectationDefinition exp) {
            String id = UUID.randomUUID().toString();
            NewEpisode e = new NewEpisode(id, "test_actor", "test_exp", null,
                    new TriggerInfo(TriggerInfo.MANUAL, null, null, Json.createObjectBuilder().add("x", 1).build(), null),
                    "test:" + id, 3, exp.budget(), NODE, false, null, null, null, null);
        assertThat(jpa.inNewTransaction(em -> store.insert(em, e)).booleanValue()).isTrue();
            return id;
        }

        EpisodeTask.Outcome run(ExpectationDefinition exp, String id, boolean resume, RunControl control) {
            EpisodeTask task = new EpisodeTask(environment(exp), id, null, resume, null, control, o -> { });
            task.run();
            return task.outcome();
        }

        EpisodeTask.Outcome run(ExpectationDefinition exp, String id) {
            return run(exp, id, false, new RunControl(id));
        }

        EpisodeEntity row(String id) {
            return jpa.inNewTransaction(em -> em.find(EpisodeEntity.class, id));
        }

        List<String> kinds(String id) {
            return jpa.inNewTransaction(em -> em.createQuery("SELECT s.kind FROM EpisodeStepEntity s WHERE s.episodeId = :id"
                    + " ORDER BY s.stepNo", String.class).setParameter("id", id).getResultList());
        }
    }

    private static Convergence raiseAndDeliver(String key) {
        return new Convergence(List.of(FindingAction.raise(key, "test_class")),
                List.of(OutputProposal.of("count", "out", Json.createObjectBuilder().add("k", key).build())), "converged");
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void observe_then_converge_journals_raises_delivers_and_ends_done(Vendor vendor) {
        Rig rig = new Rig(vendor);
        String key = "f-" + UUID.randomUUID();
        rig.strategy = new Scripted((s, c) -> s.step == 0 ? Step.observe("look", ctx -> Json.createValue(7)) : Step.converge(),
                raiseAndDeliver(key));
        ExpectationDefinition exp = rig.expectation(10, Duration.ofMinutes(1));
        String id = rig.insert(exp);

        assertThat(rig.run(exp, id)).isEqualTo(EpisodeTask.Outcome.FINISHED);

        EpisodeEntity row = rig.row(id);
        assertThat(row.status).isEqualTo("done");
        assertThat(row.summary).isEqualTo("converged");
        assertThat(row.turnsUsed).isEqualTo(2);
        assertThat(rig.kinds(id)).containsExactly("observation", "finding_raised", "output_delivered", "episode_completed");
        assertThat(rig.delivered.values()).singleElement().satisfies(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(rig.finished).singleElement().satisfies(f -> assertThat(f.status()).isEqualTo("done"));
        assertThat(rig.strategy.inits.get()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2"})
    void every_committed_journal_row_but_the_terminal_one_is_announced_as_it_is_written(Vendor vendor) {
        Rig rig = new Rig(vendor);
        String key = "f-" + UUID.randomUUID();
        java.util.List<java.util.List<String>> seenAtEachStep = new CopyOnWriteArrayList<>();
        rig.strategy = new Scripted((s, c) -> {
            seenAtEachStep.add(rig.progressed.stream().map(io.cyclium.episode.EpisodeProgressed::kind).toList());
            return s.step == 0 ? Step.observe("look", ctx -> Json.createValue(7)) : Step.converge();
        }, raiseAndDeliver(key));
        ExpectationDefinition exp = rig.expectation(10, Duration.ofMinutes(1));
        String id = rig.insert(exp);

        rig.run(exp, id);

        assertThat(rig.progressed).extracting(io.cyclium.episode.EpisodeProgressed::kind)
                .containsExactly("observation", "finding_raised", "output_delivered");
        assertThat(rig.progressed).extracting(io.cyclium.episode.EpisodeProgressed::stepNo).containsExactly(1, 2, 3);
        assertThat(rig.progressed).allSatisfy(p -> {
            assertThat(p.episodeId()).isEqualTo(id);
            assertThat(p.node()).isEqualTo(NODE);
        });
        assertThat(seenAtEachStep.get(1)).as("the observation was announced before the episode went on").containsExactly("observation");
        assertThat(rig.finished).singleElement().satisfies(f -> assertThat(f.status()).isEqualTo("done"));
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2"})
    void the_done_path_fires_the_terminal_event_too(Vendor vendor) {
        Rig rig = new Rig(vendor);
        rig.strategy = new Scripted((s, c) -> Step.done("nothing to do"), null);
        ExpectationDefinition exp = rig.expectation(10, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        rig.run(exp, id);
        assertThat(rig.kinds(id)).containsExactly("episode_completed");
        assertThat(rig.finished).extracting(EpisodeFinished::status).containsExactly("done");
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2"})
    void a_failing_observation_is_journaled_and_handed_back_to_the_strategy(Vendor vendor) {
        Rig rig = new Rig(vendor);
        rig.strategy = new Scripted((s, c) -> s.step == 0 ? Step.observe("boom", ctx -> {
            throw new IllegalStateException("service down");
        }) : Step.done(String.join(",", s.seen)), null);
        ExpectationDefinition exp = rig.expectation(10, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        rig.run(exp, id);
        assertThat(rig.row(id).status).isEqualTo("done");
        assertThat(rig.row(id).summary).contains("observation_failed:boom:service down");
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void the_step_budget_fails_the_episode_before_the_step_that_would_exceed_it(Vendor vendor) {
        Rig rig = new Rig(vendor);
        rig.strategy = new Scripted((s, c) -> Step.observe("again", ctx -> Json.createValue(1)), null);
        ExpectationDefinition exp = rig.expectation(3, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        assertThat(rig.run(exp, id)).isEqualTo(EpisodeTask.Outcome.FAILED);
        assertThat(rig.row(id).errorClass).isEqualTo("budget_exceeded");
        assertThat(rig.kinds(id)).containsExactly("observation", "observation", "observation", "episode_failed");
        assertThat(rig.finished).extracting(EpisodeFinished::status).containsExactly("failed");
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2"})
    void a_run_counts_its_start_and_times_its_duration_per_actor_expectation_and_status(Vendor vendor) {
        Rig rig = new Rig(vendor);
        rig.strategy = new Scripted((s, c) -> s.step < 2 ? Step.observe("slow", ctx -> {
            rig.clock.advance(Duration.ofMillis(1_500));
            return Json.createValue(1);
        }) : Step.done("after two slow looks"), null);
        ExpectationDefinition exp = rig.expectation(100, Duration.ofMinutes(1));
        String id = rig.insert(exp);

        rig.run(exp, id);

        assertThat(rig.row(id).status).isEqualTo("done");
        assertThat(rig.telemetry.count("episode_started")).isEqualTo(1);
        assertThat(rig.telemetry.recorded("episode_duration", "actor", "test_actor", "expectation", "test_exp", "status", "done"))
                .as("milliseconds on the injected clock").containsExactly(3_000L);
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2"})
    void the_wall_time_budget_is_measured_on_the_injected_clock(Vendor vendor) {
        Rig rig = new Rig(vendor);
        rig.strategy = new Scripted((s, c) -> Step.observe("slow", ctx -> {
            rig.clock.advance(Duration.ofSeconds(4));
            return Json.createValue(1);
        }), null);
        ExpectationDefinition exp = rig.expectation(100, Duration.ofSeconds(10));
        String id = rig.insert(exp);
        rig.run(exp, id);
        assertThat(rig.row(id).errorClass).isEqualTo("budget_exceeded");
        assertThat(rig.kinds(id).stream().filter("observation"::equals)).hasSize(3);
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2"})
    void a_strategy_that_throws_fails_the_episode_as_a_crash_with_its_message(Vendor vendor) {
        Rig rig = new Rig(vendor);
        rig.strategy = new Scripted((s, c) -> {
            throw new IllegalArgumentException("bad input 42");
        }, null);
        ExpectationDefinition exp = rig.expectation(10, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        assertThat(rig.run(exp, id)).isEqualTo(EpisodeTask.Outcome.FAILED);
        assertThat(rig.row(id).errorClass).isEqualTo("crash");
        assertThat(rig.row(id).errorDetail).contains("bad input 42");
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2"})
    void a_cancel_request_stops_the_episode_at_the_next_step_boundary(Vendor vendor) {
        Rig rig = new Rig(vendor);
        String[] idHolder = new String[1];
        RunControl[] control = new RunControl[1];
        rig.strategy = new Scripted((s, c) -> {
            if (s.step == 1) {
                control[0].requestCancel(); // arrives while step 2 is being decided
            }
            return Step.observe("tick", ctx -> Json.createValue(s.step));
        }, null);
        ExpectationDefinition exp = rig.expectation(50, Duration.ofMinutes(1));
        idHolder[0] = rig.insert(exp);
        control[0] = new RunControl(idHolder[0]);
        rig.run(exp, idHolder[0], false, control[0]);
        assertThat(rig.row(idHolder[0]).status).isEqualTo("canceled");
        assertThat(rig.kinds(idHolder[0])).containsExactly("observation", "observation", "episode_failed");
        assertThat(rig.finished).extracting(EpisodeFinished::status).containsExactly("canceled");
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void a_task_whose_claim_was_lost_stops_before_its_next_step_and_leaves_the_row(Vendor vendor) {
        Rig rig = new Rig(vendor);
        ControlledGate gate = new ControlledGate();
        rig.gate = gate;
        String id0 = UUID.randomUUID().toString();
        rig.strategy = new Scripted((s, c) -> s.step == 0 ? Step.observe("once", ctx -> Json.createValue(1)) : Step.converge(),
                raiseAndDeliver("f-" + id0));
        ExpectationDefinition exp = rig.expectation(10, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        RunControl control = new RunControl(id) ;
        // The heartbeat reports the loss while the first step runs.
        rig.strategy = new Scripted((s, c) -> {
            if (s.step == 0) {
                return Step.observe("once", ctx -> {
                    control.claim().markLost();
                    return Json.createValue(1);
                });
            }
            return Step.converge();
        }, raiseAndDeliver("f-" + id0));
        assertThat(rig.run(exp, id, false, control)).isEqualTo(EpisodeTask.Outcome.CLAIM_LOST);
        assertThat(rig.row(id).status).isEqualTo("running");
        assertThat(rig.kinds(id)).containsExactly("observation");
        assertThat(rig.delivered).isEmpty();
        assertThat(rig.finished).isEmpty();
        assertThat(gate.settled).containsExactly("forget");
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void a_failed_fence_check_at_converge_delivers_nothing(Vendor vendor) {
        Rig rig = new Rig(vendor);
        ControlledGate gate = new ControlledGate();
        gate.owns = false;
        rig.gate = gate;
        rig.strategy = new Scripted((s, c) -> Step.converge(), raiseAndDeliver("f-" + UUID.randomUUID()));
        ExpectationDefinition exp = rig.expectation(10, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        assertThat(rig.run(exp, id)).isEqualTo(EpisodeTask.Outcome.CLAIM_LOST);
        assertThat(rig.row(id).status).isEqualTo("running");
        assertThat(rig.kinds(id)).isEmpty();
        assertThat(rig.delivered).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void an_output_proposed_before_the_checkpoint_a_run_resumes_from_is_delivered_once_by_the_resumed_run(Vendor vendor) {
        Rig rig = new Rig(vendor);
        RunControl[] control = new RunControl[1];
        rig.strategy = new Scripted((s, c) -> switch (s.step) {
            case 0 -> Step.proposeOutput(OutputProposal.of("count", "report", Json.createObjectBuilder().add("n", 7).build()));
            case 1 -> Step.checkpoint("after-proposal");
            default -> {
                control[0].requestStop(); // the node drains after the checkpoint
                yield Step.observe("late", ctx -> Json.createValue(2));
            }
        }, null);
        ExpectationDefinition exp = rig.expectation(20, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        control[0] = new RunControl(id);
        assertThat(rig.run(exp, id, false, control[0])).isEqualTo(EpisodeTask.Outcome.STOPPED);

        // the resumed run starts after the proposal: its strategy never proposes it again
        rig.strategy = new Scripted((s, c) -> Step.converge(), new Convergence(List.of(), List.of(), "converged"));
        assertThat(rig.run(exp, id, true, new RunControl(id))).isEqualTo(EpisodeTask.Outcome.FINISHED);

        assertThat(rig.row(id).status).isEqualTo("done");
        assertThat(rig.delivered).as("the earlier run's proposal, delivered by the resumed run").hasSize(1)
                .allSatisfy((key, n) -> assertThat(n.get()).isEqualTo(1));
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void a_resume_restores_the_checkpoint_through_the_migration_hook_instead_of_init(Vendor vendor) {
        Rig rig = new Rig(vendor);
        RunControl[] control = new RunControl[1];
        rig.strategy = new Scripted((s, c) -> switch (s.step) {
            case 0 -> Step.observe("first", ctx -> Json.createValue(1));
            case 1 -> Step.checkpoint("after-first");
            default -> {
                control[0].requestStop(); // the node drains: stop, leave the row to recovery
                yield Step.observe("never", ctx -> Json.createValue(2));
            }
        }, null);
        ExpectationDefinition exp = rig.expectation(20, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        control[0] = new RunControl(id);
        assertThat(rig.run(exp, id, false, control[0])).isEqualTo(EpisodeTask.Outcome.STOPPED);
        assertThat(rig.row(id).status).isEqualTo("running");

        // New code with state version 2 resumes it.
        Scripted v2 = new Scripted((s, c) -> Step.done(String.join(",", s.seen)), null);
        v2.version = 2;
        rig.strategy = v2;
        assertThat(rig.run(exp, id, true, new RunControl(id))).isEqualTo(EpisodeTask.Outcome.FINISHED);
        assertThat(v2.inits.get()).isZero();
        assertThat(v2.migrations.get()).isEqualTo(1);
        assertThat(rig.row(id).summary).isEqualTo("observed:first,migrated-from-1");
        assertThat(rig.kinds(id)).containsExactly("observation", "checkpoint", "observation", "resumed", "episode_completed");
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2"})
    void a_checkpoint_newer_than_the_strategy_fails_the_resume_rather_than_starting_over(Vendor vendor) {
        Rig rig = new Rig(vendor);
        Scripted v3 = new Scripted((s, c) -> s.step == 0 ? Step.checkpoint("x") : Step.waitFor("external"), null);
        v3.version = 3;
        rig.strategy = v3;
        ExpectationDefinition exp = rig.expectation(20, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        rig.run(exp, id);
        assertThat(rig.row(id).status).isEqualTo("blocked");
        rig.jpa.run(em -> rig.store.unblock(em, id, EpisodeStatus.RUNNING, NODE));
        rig.strategy = new Scripted((s, c) -> Step.done("should not run"), null);
        rig.run(exp, id, true, new RunControl(id));
        assertThat(rig.row(id).errorClass).isEqualTo("checkpoint_migration_failed");
        assertThat(rig.strategy.inits.get()).isZero();
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void a_plan_edited_in_the_journal_after_approval_is_refused_on_resume(Vendor vendor) {
        Rig rig = new Rig(vendor);
        JsonObject plan = Json.createObjectBuilder().add("transfer", 100).build();
        rig.strategy = new Scripted((s, c) -> s.step == 0 ? Step.requestApproval(plan) : Step.done("ran the plan"), null);
        ExpectationDefinition exp = rig.expectation(20, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        rig.run(exp, id);
        assertThat(rig.row(id).status).isEqualTo("blocked");
        String hash = CanonicalJson.hash(plan);
        rig.jpa.run(em -> {
            rig.store.unblock(em, id, EpisodeStatus.RUNNING, NODE);
            rig.store.journal(em, id, 2, StepKind.APPROVAL_RESOLVED, NODE,
                    Json.createObjectBuilder().add("approved", true).add("planHash", hash).build(), null, null, null);
            // Someone with write access to the table changes the approved plan.
            em.createNativeQuery("UPDATE cyclium_episode_steps SET detail = ?1 WHERE episode_id = ?2 AND step_no = 1")
                    .setParameter(1, Json.createObjectBuilder().add("plan", Json.createObjectBuilder().add("transfer", 100000))
                            .add("planHash", hash).build().toString())
                    .setParameter(2, id).executeUpdate();
        });
        rig.run(exp, id, true, new RunControl(id));
        assertThat(rig.row(id).status).isEqualTo("failed");
        assertThat(rig.row(id).errorClass).isEqualTo("plan_tampered");
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void a_second_writer_of_the_same_step_number_makes_the_task_stand_down(Vendor vendor) {
        Rig rig = new Rig(vendor);
        String[] id = new String[1];
        rig.strategy = new Scripted((s, c) -> Step.observe("race", ctx -> {
            // Another owner journals step 1 first.
            rig.jpa.run(em -> rig.store.journal(em, id[0], 1, StepKind.OBSERVATION, "other-node",
                    JsonText.parseObject("{}"), null, null, null));
            return Json.createValue(1);
        }), null);
        ExpectationDefinition exp = rig.expectation(20, Duration.ofMinutes(1));
        id[0] = rig.insert(exp);
        assertThat(rig.run(exp, id[0])).isEqualTo(EpisodeTask.Outcome.CLAIM_LOST);
        assertThat(rig.row(id[0]).status).isEqualTo("running");
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2"})
    void a_restart_from_a_checkpoint_repeats_the_idempotency_keys_of_the_turns_after_it(Vendor vendor) {
        Rig rig = new Rig(vendor);
        RunControl[] control = new RunControl[1];
        List<String> firstRun = new ArrayList<>();
        rig.strategy = new Scripted((s, c) -> {
            firstRun.add(c.idempotencyKey());
            return switch (s.step) {
                case 0 -> Step.observe("first", ctx -> Json.createValue(1));
                case 1 -> Step.checkpoint("after-first");
                default -> {
                    control[0].requestStop(); // the node drains after this turn's external call
                    yield Step.observe("call", ctx -> Json.createValue(2));
                }
            };
        }, null);
        ExpectationDefinition exp = rig.expectation(20, Duration.ofMinutes(1));
        String id = rig.insert(exp);
        control[0] = new RunControl(id);
        assertThat(rig.run(exp, id, false, control[0])).isEqualTo(EpisodeTask.Outcome.STOPPED);

        List<String> secondRun = new ArrayList<>();
        rig.strategy = new Scripted((s, c) -> {
            secondRun.add(c.idempotencyKey());
            return Step.done("again");
        }, null);
        assertThat(rig.run(exp, id, true, new RunControl(id))).isEqualTo(EpisodeTask.Outcome.FINISHED);

        assertThat(firstRun).hasSize(3).doesNotHaveDuplicates();
        assertThat(secondRun.get(0)).as("the first turn after the checkpoint, run again after the resumed marker")
                .isEqualTo(firstRun.get(2));
    }
}
