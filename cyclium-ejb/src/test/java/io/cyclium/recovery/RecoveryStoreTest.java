package io.cyclium.recovery;

import io.cyclium.episode.EpisodeStore;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.TriggerRequestStore;
import io.cyclium.testing.Concurrently;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.function.Function;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The recovery and drain guards on episode rows, on every database. Each test works in an env or on a node of its own. */
class RecoveryStoreTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Rows an update changed (a plain int, so assertions read as numbers). */
    private static int rows(TestJpa db, Function<EntityManager, Integer> update) {
        return db.inNewTransaction(update);
    }

    private static List<Orphan> orphans(TestJpa db, String env) {
        RecoveryStore store = new RecoveryStore(db.vendor());
        return db.inNewTransaction(em -> store.listOrphans(em, 60, SweepScope.of(null, env), 50));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void of_two_sweepers_that_read_the_same_orphan_exactly_one_claims_it(Vendor vendor) throws Exception {
        TestJpa db = databases.jpa(vendor);
        String env = unique("env");
        String id = new RecoveryRows(db).episode().scope(null, env).insert();
        Orphan read = orphans(db, env).get(0);
        RecoveryStore store = new RecoveryStore(db.vendor());

        // both hold the same read (attempts 1, updated_at T); the UPDATE re-states it, so the database lets one through
        List<Integer> won = Concurrently.run(2, i -> db.inNewTransaction(em -> store.claimForRecovery(em, read)));

        assertThat(won).containsExactlyInAnyOrder(0, 1);
        assertThat(new RecoveryRows(db).row(id).attempts()).as("counted when a task starts it, not when claimed").isEqualTo(1);
        assertThat(rows(db, em -> store.claimForRecovery(em, read))).as("a later sweeper with the old read").isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void only_stale_or_interrupted_running_episodes_of_the_env_are_orphans_and_a_pending_trigger_request_is_not(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RecoveryRows rows = new RecoveryRows(db);
        String env = unique("env");
        String stale = rows.episode().scope(null, env).insert();
        String interrupted = rows.episode().scope(null, env).interrupted().quietFor(0).insert();
        rows.episode().scope(null, env).quietFor(0).insert();
        rows.episode().scope(null, unique("elsewhere")).insert();
        String waiting = rows.episode().scope(null, env).insert();
        TriggerRequestStore requests = new TriggerRequestStore(db.vendor());
        db.run(em -> requests.insert(em, UUID.randomUUID().toString(), waiting, "reports", "digest", "node-t", null, env, false));

        assertThat(orphans(db, env)).extracting(Orphan::id).containsExactlyInAnyOrder(stale, interrupted);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_claimed_orphan_is_failed_once_with_its_journal_closed_and_one_given_back_gets_its_attempt_refunded(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RecoveryRows rows = new RecoveryRows(db);
        String env = unique("env");
        String failing = rows.episode().scope(null, env).insert();
        rows.step(failing, 1, "observation", "a-node-that-died");
        String givenBack = rows.episode().scope(null, env).insert();
        RecoveryStore store = new RecoveryStore(db.vendor());
        for (Orphan o : orphans(db, env)) {
            db.inNewTransaction(em -> store.claimForRecovery(em, o));
        }

        assertThat(rows(db, em -> store.failOrphan(em, failing, "node-a", "recovery policy fail"))).isEqualTo(1);
        assertThat(rows(db, em -> store.failOrphan(em, failing, "node-a", "again"))).isZero();
        assertThat(rows(db, em -> store.unclaim(em, givenBack, null))).isEqualTo(1);
        assertThat(rows(db, em -> store.unclaim(em, givenBack, null))).as("no longer claimed").isZero();

        assertThat(rows.row(failing).status()).isEqualTo("failed");
        assertThat(rows.journal(failing)).containsExactly("1 observation a-node-that-died", "2 episode_failed node-a");
        assertThat(rows.row(givenBack)).extracting(RecoveryRows.EpisodeRow::phase, RecoveryRows.EpisodeRow::attempts)
                .containsExactly(RecoveryStore.INTERRUPTED, 1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_drain_stamps_and_marks_only_its_own_nodes_running_episodes(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RecoveryRows rows = new RecoveryRows(db);
        String node = unique("node");
        String mine = rows.episode().on(node).quietFor(0).insert();
        rows.step(mine, 1, "observation", node);
        rows.step(mine, 2, "checkpoint", node);
        String fresh = rows.episode().on(node).quietFor(0).insert();
        String theirs = rows.episode().on(unique("other")).quietFor(0).insert();
        RecoveryStore store = new RecoveryStore(db.vendor());

        assertThat(rows(db, em -> store.stampInterrupted(em, node))).isEqualTo(2);
        assertThat(rows(db, em -> store.markInterrupted(em, node))).isEqualTo(2);

        assertThat(rows.journal(mine)).endsWith("3 interrupted " + node);
        assertThat(rows.journal(fresh)).containsExactly("1 interrupted " + node);
        List<String> interruptedHere = db.inNewTransaction(em -> store.interruptedOn(em, node));
        assertThat(interruptedHere).containsExactlyInAnyOrder(mine, fresh);
        assertThat(rows.row(theirs).phase()).isNull();
        assertThat(rows.journal(theirs)).isEmpty();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_recovered_episode_spends_an_attempt_when_a_task_starts_it_not_each_time_a_sweep_hands_it_to_a_queue(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RecoveryRows rows = new RecoveryRows(db);
        String env = unique("env");
        String id = rows.episode().scope(null, env).insert();
        RecoveryStore store = new RecoveryStore(db.vendor());
        for (int handOff = 0; handOff < 3; handOff++) {
            // claimed and queued on a node that then died before a slot came free: the row goes stale again
            Orphan o = orphans(db, env).get(0);
            assertThat(rows(db, em -> store.claimForRecovery(em, o))).isEqualTo(1);
            assertThat(rows(db, em -> store.claimForRecovery(em, o))).as("the same read claims once").isZero();
            db.run(em -> em.createNativeQuery("UPDATE cyclium_episodes SET updated_at = " + db.vendor().utcNowPlusSeconds("-600")
                    + " WHERE id = ?1").setParameter(1, id).executeUpdate());
        }
        assertThat(rows.row(id).attempts()).as("three hand-offs, no start").isEqualTo(1);

        Orphan last = orphans(db, env).get(0);
        rows(db, em -> store.claimForRecovery(em, last));
        assertThat(rows(db, em -> new EpisodeStore(db.vendor()).claimRun(em, id, "node-b"))).isEqualTo(1);

        assertThat(rows.row(id)).extracting(RecoveryRows.EpisodeRow::phase, RecoveryRows.EpisodeRow::attempts)
                .containsExactly(null, 2);
        assertThat(rows(db, em -> new EpisodeStore(db.vendor()).claimRun(em, id, "node-b")))
                .as("a second start of the same run (a resume) spends none").isEqualTo(1);
        assertThat(rows.row(id).attempts()).isEqualTo(2);
    }
}
