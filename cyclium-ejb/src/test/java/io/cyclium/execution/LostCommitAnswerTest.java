package io.cyclium.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.claims.JpaWorkClaims;
import io.cyclium.claims.LeasedClaimGate;
import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.episode.TriggerRequestStore;
import io.cyclium.store.GroupCommit;
import io.cyclium.testing.CuttableProxy;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.json.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A group commit whose batch COMMIT reached PostgreSQL and whose answer was lost with the
 * connection (a loopback relay breaks it right after the COMMIT went through): every caller's work
 * runs again on its own, and each insert must recognise its own row — stored, and answered so —
 * instead of taking it for another trigger's (a "duplicate" that never starts and is never answered).
 */
class LostCommitAnswerTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final String NODE = "lost-answer-node";
    private static final int CALLERS = 8;

    private final TestDatabase db = databases.get(Vendor.POSTGRESQL);
    private final CuttableProxy proxy = CuttableProxy.to("127.0.0.1", 5432);
    // clear text and unnamed statements, so the relay can read each COMMIT (see DatabaseOutageTaskTest)
    private final TestJpa relayed = new TestJpa(db, db.jdbcUrl().replace("127.0.0.1:5432", "127.0.0.1:" + proxy.port())
            + "&sslmode=disable&prepareThreshold=0");
    private final TestJpa direct = databases.jpa(Vendor.POSTGRESQL);
    private final RecordingTelemetry telemetry = new RecordingTelemetry();
    private final List<Integer> batches = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final GroupCommit group = GroupCommit.start(relayed, Executors.defaultThreadFactory(), 64, 1, batches::add, true);
    private final ExecutorService callers = Executors.newFixedThreadPool(CALLERS + 1);

    @AfterEach
    void close() {
        callers.shutdownNow();
        group.close();
        relayed.close();
        proxy.close();
    }

    private NewEpisode episode() {
        String id = UUID.randomUUID().toString();
        return new NewEpisode(id, "lost_actor", "lost_exp", null,
                new TriggerInfo(TriggerInfo.MANUAL, null, null, Json.createObjectBuilder().build(), null),
                "lost:" + id, 3, new Budget(10, Duration.ofMinutes(1)), NODE, false, null, null, null, null);
    }

    @Test
    void inserts_whose_batch_commit_answer_was_lost_are_stored_once_answered_stored_and_keep_their_first_leases() throws Exception {
        LeasedClaimGate gate = new LeasedClaimGate(new JpaWorkClaims(relayed, relayed.vendor(), telemetry), NODE, 30, telemetry);
        TaskEnvironment env = new TaskEnvironment(group, new EpisodeStore(relayed.vendor()), null, gate, null, e -> { },
                new MutableClock(Instant.parse("2026-12-05T03:00:00Z")), NODE, telemetry);
        LocalRunner runner = new LocalRunner(env, callers, new TriggerRequestStore(relayed.vendor()));

        // hold the writer in a transaction of its own (rolled back: no COMMIT) while the callers queue up
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        callers.submit(() -> {
            try {
                group.inGroupTransaction(em -> {
                    holding.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new IllegalStateException("rolled back on purpose: no COMMIT");
                });
            } catch (IllegalStateException expected) {
                // the holder's own failure
            }
        });
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        List<NewEpisode> episodes = new ArrayList<>();
        Map<String, Boolean> settled = new ConcurrentHashMap<>();
        List<Future<Boolean>> answers = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            NewEpisode e = episode();
            episodes.add(e);
            answers.add(callers.submit(() -> runner.insert(e, ours -> settled.put(e.id(), ours))));
        }
        // all queued behind the held writer: its next turn takes them as one batch, one COMMIT
        while (group.waiting() < CALLERS) {
            Thread.sleep(10);
        }
        proxy.loseNextCommitAnswer();
        release.countDown();

        for (Future<Boolean> answer : answers) {
            assertThat(answer.get(60, TimeUnit.SECONDS)).as("the insert answers stored").isTrue();
        }
        assertThat(proxy.commitAnswersLost()).as("the batch's COMMIT answer was lost").isEqualTo(1);
        assertThat(settled).hasSize(CALLERS).allSatisfy((id, ours) -> assertThat(ours).as(id).isTrue());
        for (NewEpisode e : episodes) {
            Number rows = direct.inNewTransaction(em -> (Number) em.createNativeQuery(
                    "SELECT COUNT(*) FROM cyclium_episodes WHERE dedupe_key = ?1").setParameter(1, e.dedupeKey()).getSingleResult());
            assertThat(rows.intValue()).as("rows for " + e.dedupeKey()).isEqualTo(1);
        }
        assertThat(runner.firstLeases()).as("each keeps the first lease taken with its row").hasSize(CALLERS);
        assertThat(gate.heldCount()).isEqualTo(CALLERS);
    }

    @Test
    void a_list_whose_commit_answer_was_lost_runs_once_more_and_answers_what_the_lost_commit_stored_as_stored() {
        LeasedClaimGate gate = new LeasedClaimGate(new JpaWorkClaims(relayed, relayed.vendor(), telemetry), NODE, 30, telemetry);
        TaskEnvironment env = new TaskEnvironment(group, new EpisodeStore(relayed.vendor()), null, gate, null, e -> { },
                new MutableClock(Instant.parse("2026-12-05T03:00:00Z")), NODE, telemetry);
        LocalRunner runner = new LocalRunner(env, callers, new TriggerRequestStore(relayed.vendor()));
        List<NewEpisode> episodes = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            episodes.add(episode());
        }
        // the list's work as the event intake runs it: each episode's insert (and first lease) in one transaction
        java.util.function.Function<jakarta.persistence.EntityManager, List<Boolean>> list = em -> episodes.stream()
                .map(e -> runner.insert(e, ours -> { })).toList();
        java.util.concurrent.atomic.AtomicInteger reruns = new java.util.concurrent.atomic.AtomicInteger();
        relayed.inNewTransaction(em -> em.createNativeQuery("SELECT 1").getSingleResult()); // a pooled connection
        proxy.loseNextCommitAnswer();

        List<Boolean> inserted = io.cyclium.store.OneTransactionForAList.run(relayed, group, list, reruns::incrementAndGet);

        assertThat(proxy.commitAnswersLost()).as("the list's COMMIT answer was lost").isEqualTo(1);
        assertThat(reruns).as("the list ran once more").hasValue(1);
        // the second run met the rows the lost commit stored: each key taken, by the list itself
        assertThat(inserted).as("answered, not refused").hasSize(CALLERS).containsOnly(false);
        for (NewEpisode e : episodes) {
            Number rows = direct.inNewTransaction(em -> (Number) em.createNativeQuery(
                    "SELECT COUNT(*) FROM cyclium_episodes WHERE dedupe_key = ?1").setParameter(1, e.dedupeKey()).getSingleResult());
            assertThat(rows.intValue()).as("rows for " + e.dedupeKey()).isEqualTo(1);
        }
        assertThat(gate.heldCount()).as("no first lease of the lost commit is left pending or held").isZero();
    }

    @Test
    void a_first_lease_whose_statement_failed_leaves_nothing_pending_so_a_row_that_committed_anyway_is_released_as_an_orphan() {
        JpaWorkClaims relayedClaims = new JpaWorkClaims(relayed, relayed.vendor(), telemetry);
        LeasedClaimGate gate = new LeasedClaimGate(relayedClaims, NODE, 30, telemetry);
        String key = "lost:" + UUID.randomUUID();
        relayed.inNewTransaction(em -> em.createNativeQuery("SELECT 1").getSingleResult()); // a pooled connection
        proxy.down();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> relayed.inNewTransaction(em -> gate.claimFirstIn(em, key, "episode")))
                .as("the database is unreachable").isInstanceOf(RuntimeException.class);
        proxy.up();
        // the lease row is there all the same (its transaction committed; only the answer was lost)
        JpaWorkClaims directClaims = new JpaWorkClaims(direct, direct.vendor(), telemetry);
        direct.run(em -> directClaims.claimFirstIn(em, key, NODE, 30, "episode"));

        gate.renewAll();

        assertThat(directClaims.find(key).orElseThrow().state()).as("a live lease nobody here holds is failed, not renewed for ever")
                .isEqualTo(io.cyclium.claims.ClaimState.FAILED);
    }
}
