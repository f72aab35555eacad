package io.cyclium.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.StepKind;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.json.Json;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A task's finishing transaction (status, then the last journal row) picked by the database as a
 * deadlock victim is run again, and the episode ends {@code done} — it used to end as a crash
 * after its output had gone out (the chaos suite on MariaDB). The deadlock is a real one: another
 * transaction holds the journal slot the task is about to take, then asks for the episode row the
 * task holds, and is made the heavier of the two so that the database rolls the task back.
 */
class FinishAsDeadlockVictimTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = {"POSTGRESQL", "MARIADB"})
    @SuppressWarnings("unchecked")
    void a_finish_rolled_back_to_break_a_deadlock_runs_again_and_the_episode_is_done(Vendor vendor) throws Exception {
        TestJpa db = databases.jpa(vendor);
        EpisodeStore store = new EpisodeStore(db.vendor());
        String node = "victim-" + UUID.randomUUID().toString().substring(0, 8);
        String id = DrainAndFinishLockOrderTest.runningWithTwoSteps(db, store, node);
        AtomicInteger transactions = new AtomicInteger();
        Tx counting = new Tx() {
            @Override
            public <T> T inNewTransaction(Function<EntityManager, T> work) {
                transactions.incrementAndGet();
                return db.inNewTransaction(work);
            }
        };
        TaskEnvironment env = new TaskEnvironment(counting, store, null, null, null, e -> { }, new MutableClock(Instant.now()),
                node, Telemetry.NOOP);

        try (Connection other = db.database().connect()) {
            other.setAutoCommit(false);
            holdStepThree(vendor, other, id);
            CompletableFuture<Boolean> finish = CompletableFuture.supplyAsync(() -> new EpisodeWrites(env, id, 3)
                    .finish(EpisodeStatus.DONE, 1, "done", null, Json.createObjectBuilder().add("summary", "done").build()));
            // The task now holds the episode row and waits for step 3. Less than PostgreSQL's
            // deadlock_timeout (1 s): the task, waiting longest, looks for the cycle first and
            // aborts itself; InnoDB sees it at once and picks the lighter transaction.
            Thread.sleep(400);
            try (PreparedStatement ps = other.prepareStatement("UPDATE cyclium_episodes SET updated_at = updated_at WHERE id = ?")) {
                ps.setString(1, id);
                ps.executeUpdate(); // closes the cycle; the database rolls the lighter task back and lets this through
            }
            other.rollback();
            assertThat(finish.get(30, TimeUnit.SECONDS)).isTrue();
        }

        assertThat(transactions.get()).as("the victim's transaction and its second run").isEqualTo(2);
        Object status = db.inNewTransaction(em -> em.createNativeQuery("SELECT status FROM cyclium_episodes WHERE id = ?1")
                .setParameter(1, id).getSingleResult());
        assertThat(status).isEqualTo("done");
        java.util.List<Object> kinds = (java.util.List<Object>) db.inNewTransaction(em -> em.createNativeQuery(
                "SELECT kind FROM cyclium_episode_steps WHERE episode_id = ?1 AND step_no = 3").setParameter(1, id)
                .getResultList());
        assertThat(kinds).containsExactly(StepKind.EPISODE_COMPLETED);
    }

    /**
     * Makes {@code other} hold what the task's journal insert of step 3 will wait for. PostgreSQL:
     * an uncommitted row with that key. MariaDB: a gap lock over it (an insert would take a shared
     * lock on the episode row for the foreign key first, and wait there instead), after enough
     * writes of its own that InnoDB picks the task as the lighter victim.
     */
    private static void holdStepThree(Vendor vendor, Connection other, String id) throws Exception {
        try (Statement s = other.createStatement()) {
            if (vendor == Vendor.POSTGRESQL) {
                try (PreparedStatement ps = other.prepareStatement("INSERT INTO cyclium_episode_steps (episode_id, step_no, kind,"
                        + " node_identity, created_at) VALUES (?, 3, 'observation', 'other', LOCALTIMESTAMP)")) {
                    ps.setString(1, id);
                    ps.executeUpdate();
                }
                return;
            }
            other.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            s.execute("CREATE TABLE IF NOT EXISTS it_deadlock_ballast (n INTEGER)");
            other.commit();
            s.execute("INSERT INTO it_deadlock_ballast (n) SELECT seq FROM seq_1_to_500");
            try (PreparedStatement ps = other.prepareStatement(
                    "SELECT * FROM cyclium_episode_steps WHERE episode_id = ? AND step_no = 3 FOR UPDATE")) {
                ps.setString(1, id);
                ps.executeQuery().close();
            }
        }
    }
}
