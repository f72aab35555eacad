package io.cyclium.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.StepKind;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.recovery.RecoveryStore;
import io.cyclium.store.UniqueViolation;
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
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A node drains (one transaction: stamp its running episodes interrupted, then journal a marker for
 * each) while its tasks finish theirs (one transaction each: status, then the last journal row).
 * Both lock the episode row before the journal's step number, so they queue behind each other and
 * never deadlock; whichever commits first wins the step number, and the other stands down.
 */
class DrainAndFinishLockOrderTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final JsonObject DONE = Json.createObjectBuilder().add("summary", "done").build();

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = {"POSTGRESQL", "MARIADB"})
    @SuppressWarnings("unchecked")
    void a_drain_and_the_tasks_finishing_under_it_never_deadlock(Vendor vendor) throws Exception {
        TestJpa db = databases.jpa(vendor);
        EpisodeStore store = new EpisodeStore(db.vendor());
        RecoveryStore recovery = new RecoveryStore(db.vendor());
        List<Throwable> failures = new ArrayList<>();
        int finished = 0;
        int interrupted = 0;
        for (int round = 0; round < 12; round++) {
            String node = "drain-" + UUID.randomUUID().toString().substring(0, 8);
            TaskEnvironment env = new TaskEnvironment(db, store, null, null, null, e -> { }, new MutableClock(Instant.now()),
                    node, Telemetry.NOOP);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                ids.add(runningWithTwoSteps(db, store, node));
            }
            List<Throwable> round_ = Concurrently.run(ids.size() + 1, i -> {
                try {
                    if (i == ids.size()) {
                        drain(db, recovery, node);
                    } else {
                        new EpisodeWrites(env, ids.get(i), 3).finish(EpisodeStatus.DONE, 1, "done", null, DONE);
                    }
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            round_.stream().filter(t -> t != null).forEach(failures::add);
            for (String id : ids) {
                String status = db.inNewTransaction(em -> (String) em.createNativeQuery(
                        "SELECT status FROM cyclium_episodes WHERE id = ?1").setParameter(1, id).getSingleResult());
                List<Object> kinds = db.inNewTransaction(em -> (List<Object>) em.createNativeQuery(
                        "SELECT kind FROM cyclium_episode_steps WHERE episode_id = ?1 AND step_no = 3")
                        .setParameter(1, id).getResultList());
                if ("done".equals(status)) {
                    finished++;
                    assertThat(kinds).containsExactly(StepKind.EPISODE_COMPLETED);
                } else {
                    interrupted++;
                    assertThat(status).isEqualTo("running");
                    assertThat(kinds).as("the drain's marker took the step").containsExactly(StepKind.INTERRUPTED);
                }
            }
        }
        assertThat(failures).as("no deadlock, no other failure, on either side").isEmpty();
        System.out.printf("%s: %d finished before the drain, %d stamped interrupted%n", vendor, finished, interrupted);
    }

    /** The drain's transaction, as NodeDrain runs it: stamp, then markers; once more after a lost step number. */
    private static void drain(TestJpa db, RecoveryStore recovery, String node) {
        for (int attempt = 1; ; attempt++) {
            try {
                db.run(em -> {
                    if (recovery.stampInterrupted(em, node) > 0) {
                        recovery.markInterrupted(em, node);
                    }
                });
                return;
            } catch (RuntimeException e) {
                if (attempt > 1 || !UniqueViolation.isCause(e)) {
                    throw e;
                }
            }
        }
    }

    static String runningWithTwoSteps(TestJpa db, EpisodeStore store, String node) {
        String id = UUID.randomUUID().toString();
        NewEpisode e = new NewEpisode(id, "drain_actor", "finish", null,
                new TriggerInfo(TriggerInfo.MANUAL, null, null, Json.createObjectBuilder().build(), null),
                "drain:" + id, 3, new Budget(10, Duration.ofMinutes(1)), node, false, null, null, null, null);
        db.run(em -> {
            store.insert(em, e);
            store.journal(em, id, 1, StepKind.OBSERVATION, node, DONE, null, null, null);
            store.journal(em, id, 2, StepKind.OBSERVATION, node, DONE, null, null, null);
        });
        return id;
    }
}
