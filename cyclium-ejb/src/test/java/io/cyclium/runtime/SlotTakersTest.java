package io.cyclium.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.testing.OwnDatabases;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Takers of one key's slots in transactions that stay open (a node's shared batch holds every row
 * it took until its commit) on PostgreSQL: a row another transaction is taking is passed over, not
 * waited for. Waiting, two batches that read the same free numbers and tried them in opposite
 * orders deadlocked, each deadlock costing a second of detection and a rerun of the losing batch.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class SlotTakersTest {

    @RegisterExtension
    final OwnDatabases own = new OwnDatabases();

    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        other.shutdownNow();
    }

    private static String running(TestJpa db) {
        String id = UUID.randomUUID().toString();
        db.inNewTransaction(em -> new EpisodeStore(db.vendor()).insert(em, new NewEpisode(id, "worker", "work", null,
                new TriggerInfo(TriggerInfo.MANUAL, null, null, null, null), null, 3, null, null, true, null, null, null, null)));
        return id;
    }

    @Test
    void a_taker_passes_over_a_free_slot_another_open_transaction_is_taking_and_the_guard_still_lets_one_hold_it()
            throws Exception {
        TestJpa db = own.open(Vendor.POSTGRESQL);
        ConcurrencyStore store = new ConcurrencyStore(db.vendor());
        ConcurrencySlot one = ConcurrencySlot.ofKey("worker", "work", "tenant-a", 1);
        // the key's one row exists and is free again (an earlier episode held it and gave it back)
        String earlier = running(db);
        assertThat(db.<Integer>inNewTransaction(em -> store.take(em, one, earlier, "node-a"))).isZero();
        db.inNewTransaction(em -> store.release(em, earlier));

        String first = running(db);
        String second = running(db);
        CountDownLatch took = new CountDownLatch(1);
        CountDownLatch commit = new CountDownLatch(1);
        AtomicBoolean firstCommitted = new AtomicBoolean();
        Future<Integer> firstTake = other.submit(() -> {
            int n = db.inNewTransaction(em -> {
                int number = store.take(em, one, first, "node-a");
                took.countDown();
                try {
                    // held open, as a batch holds its rows until every write of it ran
                    commit.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return number;
            });
            firstCommitted.set(true);
            return n;
        });
        assertThat(took.await(30, TimeUnit.SECONDS)).isTrue();

        // the row is free in what this transaction sees, and locked by the first one
        int secondNumber = db.inNewTransaction(em -> store.take(em, one, second, "node-b"));
        boolean answeredWhileOpen = !firstCommitted.get();
        commit.countDown();

        assertThat(answeredWhileOpen).as("answered while the other transaction was still open").isTrue();
        assertThat(secondNumber).as("no slot: the only number is being taken").isEqualTo(ConcurrencyStore.NONE);
        assertThat(firstTake.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(db.<Integer>inNewTransaction(em -> store.inUse(em, one.scope(), one.key()))).isEqualTo(1);
        assertThat(db.<Integer>inNewTransaction(em -> store.take(em, one, second, "node-b")))
                .as("at its limit once the first committed").isEqualTo(ConcurrencyStore.NONE);
    }
}
