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
 * it took until its commit) on PostgreSQL: a row another transaction is taking, or a number it is
 * adding, is passed over, not waited for. Waiting, two batches that read the same free numbers and tried them in opposite
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

    /** What {@link #takeBesideAnOpenTake} saw: each number taken, and whether the second answered before the first committed. */
    private record Beside(int first, int second, boolean answeredWhileOpen) {
    }

    /**
     * {@code first} takes a slot of {@code slot} in a transaction held open (as a batch holds its
     * rows until every write of it ran) while {@code second} takes one in a transaction of its own;
     * then the first commits.
     */
    private Beside takeBesideAnOpenTake(TestJpa db, ConcurrencyStore store, ConcurrencySlot slot, String first, String second)
            throws Exception {
        CountDownLatch took = new CountDownLatch(1);
        CountDownLatch commit = new CountDownLatch(1);
        AtomicBoolean firstCommitted = new AtomicBoolean();
        Future<Integer> firstTake = other.submit(() -> {
            int n = db.inNewTransaction(em -> {
                int number = store.take(em, slot, first, "node-a");
                took.countDown();
                try {
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
        int secondNumber = db.inNewTransaction(em -> store.take(em, slot, second, "node-b"));
        boolean answeredWhileOpen = !firstCommitted.get();
        commit.countDown();
        return new Beside(firstTake.get(30, TimeUnit.SECONDS), secondNumber, answeredWhileOpen);
    }

    /** The second taker answered at once, without a slot, and the first holds number 0. */
    private static void passedOver(Beside taken, String why) {
        assertThat(taken.answeredWhileOpen()).as("answered while the other transaction was still open").isTrue();
        assertThat(taken.second()).as(why).isEqualTo(ConcurrencyStore.NONE);
        assertThat(taken.first()).isZero();
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
        // the row is free in what the second transaction sees, and locked by the first one
        Beside taken = takeBesideAnOpenTake(db, store, one, first, second);

        passedOver(taken, "no slot: the only number is being taken");
        assertThat(db.<Integer>inNewTransaction(em -> store.inUse(em, one.scope(), one.key()))).isEqualTo(1);
        assertThat(db.<Integer>inNewTransaction(em -> store.take(em, one, second, "node-b")))
                .as("at its limit once the first committed").isEqualTo(ConcurrencyStore.NONE);
    }

    @Test
    void a_taker_passes_over_a_new_number_another_open_transaction_is_adding_and_the_key_still_decides() throws Exception {
        TestJpa db = own.open(Vendor.POSTGRESQL);
        ConcurrencyStore store = new ConcurrencyStore(db.vendor());
        // a key that has never had a row: a taker adds its number
        ConcurrencySlot one = ConcurrencySlot.ofKey("worker", "work", "tenant-b", 1);
        String first = running(db);
        String second = running(db);
        // no row in what the second transaction sees; the first one is adding number 0
        Beside taken = takeBesideAnOpenTake(db, store, one, first, second);

        passedOver(taken, "no slot: the only number is being added");
        assertThat(db.<Integer>inNewTransaction(em -> store.inUse(em, one.scope(), one.key()))).isEqualTo(1);
        String third = running(db);
        assertThat(db.<Integer>inNewTransaction(em -> store.take(em, one, third, "node-b")))
                .as("at its limit once the first committed").isEqualTo(ConcurrencyStore.NONE);
        db.inNewTransaction(em -> store.release(em, first));
        assertThat(db.<Integer>inNewTransaction(em -> store.take(em, one, third, "node-b")))
                .as("its number again once given back").isZero();
    }
}
