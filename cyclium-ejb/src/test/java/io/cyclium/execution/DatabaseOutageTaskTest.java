package io.cyclium.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.claims.PassthroughClaimGate;
import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeEntity;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.testing.CuttableProxy;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An episode task whose database goes away under it, for real: the task's JDBC connections run
 * through a loopback relay to the machine's PostgreSQL that the test breaks — every connection
 * dropped and new ones refused (an outage), or one connection dropped right after its COMMIT went
 * through and before the answer came back (a lost acknowledgement).
 */
class DatabaseOutageTaskTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final String NODE = "outage-node";

    private final TestDatabase db = databases.get(Vendor.POSTGRESQL);
    private final CuttableProxy proxy = CuttableProxy.to("127.0.0.1", 5432);
    private final TestJpa direct = databases.jpa(Vendor.POSTGRESQL);
    // in clear text and unnamed statements (the relay reads each COMMIT): the machine's PostgreSQL
    // offers TLS by default, and pgjdbc names a statement it has run five times
    private final TestJpa relayed = new TestJpa(db, db.jdbcUrl().replace("127.0.0.1:5432", "127.0.0.1:" + proxy.port())
            + "&sslmode=disable&prepareThreshold=0");
    private final EpisodeStore store = new EpisodeStore(direct.vendor());
    private final List<EpisodeFinished> finished = new CopyOnWriteArrayList<>();
    private final RecordingTelemetry telemetry = new RecordingTelemetry();

    @AfterEach
    void close() {
        relayed.close();
        proxy.close();
    }

    /** Observes once (running {@code during} inside the observation), checkpoints, then is done. */
    static final class ObserveCheckpointDone implements Strategy<ObserveCheckpointDone.State> {
        public static class State {
            public int step;
        }

        private final Consumer<Integer> beforeStep;

        ObserveCheckpointDone(Consumer<Integer> beforeStep) {
            this.beforeStep = beforeStep;
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
            int step = state.step++;
            beforeStep.accept(step);
            return switch (step) {
                case 0 -> Step.observe("probe", c -> Json.createValue("seen"));
                case 1 -> Step.checkpoint("after-probe");
                default -> Step.done("all done");
            };
        }
    }

    private ExpectationDefinition expectation() {
        return new ExpectationDefinition("outage_actor", "outage_exp", ObserveCheckpointDone.class, List.of(), Optional.empty(),
                Optional.empty(), true, Duration.ZERO, Duration.ZERO, null, RecoveryPolicy.FAIL, 3,
                new Budget(50, Duration.ofMinutes(5)), 0, Duration.ofMinutes(1), null);
    }

    private String insert() {
        String id = UUID.randomUUID().toString();
        NewEpisode e = new NewEpisode(id, "outage_actor", "outage_exp", null,
                new TriggerInfo(TriggerInfo.MANUAL, null, null, Json.createObjectBuilder().build(), null),
                "outage:" + id, 3, new Budget(50, Duration.ofMinutes(5)), NODE, false, null, null, null, null);
        assertThat(direct.inNewTransaction(em -> store.insert(em, e)).booleanValue()).isTrue();
        return id;
    }

    private EpisodeTask.Outcome run(String id, Strategy<?> strategy, Duration patience) {
        ExpectationDefinition exp = expectation();
        StrategyLookup lookup = new OneStrategy(exp, strategy);
        TaskEnvironment env = new TaskEnvironment(relayed, store, lookup, new PassthroughClaimGate(), null, finished::add,
                new MutableClock(Instant.parse("2026-12-05T03:00:00Z")), NODE, telemetry).withWritePatience(patience);
        EpisodeTask task = new EpisodeTask(env, id, null, false, null, new RunControl(id), o -> { });
        task.run();
        return task.outcome();
    }

    private EpisodeEntity row(String id) {
        return direct.inNewTransaction(em -> em.find(EpisodeEntity.class, id));
    }

    private List<String> journal(String id) {
        return direct.inNewTransaction(em -> em.createQuery("SELECT s.kind FROM EpisodeStepEntity s WHERE s.episodeId = :id"
                + " ORDER BY s.stepNo", String.class).setParameter("id", id).getResultList());
    }

    private void backUpIn(long millis) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            proxy.up();
        });
        t.setDaemon(true);
        t.start();
    }

    @Test
    void a_task_whose_database_goes_away_for_a_few_seconds_waits_for_it_and_finishes_its_episode() {
        String id = insert();
        // the database goes away as the strategy decides its checkpoint: the observation's row is
        // written, the checkpoint's write meets the outage and must wait, not end the episode
        EpisodeTask.Outcome outcome = run(id, new ObserveCheckpointDone(step -> {
            if (step == 1) {
                proxy.down();
                backUpIn(3_000);
            }
        }), Duration.ofSeconds(60));

        assertThat(outcome).isEqualTo(EpisodeTask.Outcome.FINISHED);
        assertThat(row(id).status).isEqualTo("done");
        assertThat(journal(id)).containsExactly("observation", "checkpoint", "episode_completed");
        assertThat(telemetry.count("episode_write_retry")).as("the write was tried again").isPositive();
        assertThat(finished).singleElement().satisfies(f -> assertThat(f.status()).isEqualTo("done"));
    }

    @Test
    void an_observation_whose_journal_row_cannot_be_written_is_not_handed_to_the_strategy_as_a_failed_observation() {
        String id = insert();
        // down while the observation runs: its row cannot be written; the strategy must never hear
        // "observation failed" for what was a database outage
        EpisodeTask.Outcome outcome = run(id, new ObserveCheckpointDone(step -> {
            if (step == 0) {
                proxy.down();
                backUpIn(2_000);
            }
        }), Duration.ofSeconds(60));

        assertThat(outcome).isEqualTo(EpisodeTask.Outcome.FINISHED);
        List<String> details = direct.inNewTransaction(em -> em.createQuery("SELECT s.detail FROM EpisodeStepEntity s"
                + " WHERE s.episodeId = :id AND s.kind = 'observation'", String.class).setParameter("id", id).getResultList());
        assertThat(details).singleElement().asString().contains("\"value\":\"seen\"").doesNotContain("error");
    }

    @Test
    void a_task_that_cannot_reach_the_database_within_its_patience_gives_the_episode_up_to_recovery_and_fails_nothing() {
        String id = insert();
        EpisodeTask.Outcome outcome = run(id, new ObserveCheckpointDone(step -> {
            if (step == 1) {
                proxy.down(); // and it stays down past the task's patience
            }
        }), Duration.ofSeconds(2));
        proxy.up();

        assertThat(outcome).isEqualTo(EpisodeTask.Outcome.GAVE_UP);
        EpisodeEntity row = row(id);
        assertThat(row.status).as("left running for recovery, not failed into the outage").isEqualTo("running");
        assertThat(journal(id)).containsExactly("observation");
        assertThat(finished).isEmpty();
        assertThat(telemetry.count("episode_gave_up")).isEqualTo(1);
    }

    @Test
    void writes_whose_commit_answers_were_lost_are_recognised_as_the_tasks_own_when_run_again() {
        String id = insert();
        // the checkpoint's commit and then the finish's commit both reach the database, and both
        // answers are lost with their connections: each rerun must find its own row, not another owner's
        EpisodeTask.Outcome outcome = run(id, new ObserveCheckpointDone(step -> {
            if (step == 1 || step == 2) {
                proxy.loseNextCommitAnswer();
            }
        }), Duration.ofSeconds(60));

        assertThat(journal(id)).containsExactly("observation", "checkpoint", "episode_completed");
        assertThat(outcome).isEqualTo(EpisodeTask.Outcome.FINISHED);
        assertThat(row(id).status).isEqualTo("done");
        assertThat(proxy.commitAnswersLost()).isEqualTo(2);
        assertThat(finished).as("its terminal event fires once").hasSize(1);
    }
}
