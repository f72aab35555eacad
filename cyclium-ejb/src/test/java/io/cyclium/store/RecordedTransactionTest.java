package io.cyclium.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.testing.StatementCountingTx;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.json.JsonValue;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A recorded transaction on a real database (a list of events sent in one request): the writes
 * its work hands to {@code inCallerTransaction} go to the database as JDBC batches before the
 * commit, each {@code settled} hears the outcome once the transaction ended, and a write whose
 * count is not the 1 it was told (a key taken) rolls back all of it and asks the caller to run the
 * work again the ordinary way.
 */
class RecordedTransactionTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private final List<GroupCommit> started = new ArrayList<>();

    @AfterEach
    void stop() {
        started.forEach(GroupCommit::close);
    }

    private GroupCommit groupCommit(Tx tx, boolean deferUpdates) {
        GroupCommit g = GroupCommit.start(tx, Executors.defaultThreadFactory(), 64, 1, size -> { }, deferUpdates);
        started.add(g);
        return g;
    }

    private static NewEpisode episode(String key) {
        return new NewEpisode(UUID.randomUUID().toString(), "rec_actor", "exp", null,
                new TriggerInfo(TriggerInfo.EVENT, "rec.tick", key, JsonValue.EMPTY_JSON_OBJECT, null), key, 3,
                new Budget(10, Duration.ofMinutes(1)), "rec-node", false, null, null, null, null);
    }

    private static List<NewEpisode> episodes(int n) {
        List<NewEpisode> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(episode("rec:" + UUID.randomUUID()));
        }
        return list;
    }

    private static long stored(TestJpa jpa, List<NewEpisode> episodes) {
        return episodes.stream().filter(e -> jpa.inNewTransaction(em -> em.createNativeQuery(
                "SELECT COUNT(*) FROM cyclium_episodes WHERE id = ?1").setParameter(1, e.id()).getSingleResult())
                .toString().equals("1")).count();
    }

    /** An episode stored before the test's transaction: its key is taken. */
    private static NewEpisode storedBefore(TestJpa jpa, EpisodeStore store) {
        NewEpisode earlier = episode("rec:" + UUID.randomUUID());
        Boolean stored = jpa.inNewTransaction(em -> store.insert(em, earlier));
        assertThat(stored).isTrue();
        return earlier;
    }

    /** Inserts each episode through {@code g.inCallerTransaction}, noting what each settled heard. */
    private static Function<List<Boolean>> insertingAll(GroupCommit g, EpisodeStore store, List<NewEpisode> episodes,
            Map<String, Boolean> settled) {
        return em -> {
            List<Boolean> answers = new ArrayList<>();
            for (NewEpisode e : episodes) {
                answers.add(g.inCallerTransaction(inner -> store.insert(inner, e), ok -> settled.put(e.id(), ok)));
            }
            assertThat(settled).as("nobody hears an outcome before the commit").isEmpty();
            return answers;
        };
    }

    private interface Function<T> extends java.util.function.Function<EntityManager, T> {
    }

    @Test
    void on_postgresql_the_inserts_of_a_recorded_transaction_go_as_one_jdbc_batch_and_commit_together() {
        TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        StatementCountingTx counting = new StatementCountingTx(jpa);
        GroupCommit g = groupCommit(new JoiningTx(counting), true);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        List<NewEpisode> episodes = episodes(50);
        Map<String, Boolean> settled = new ConcurrentHashMap<>();

        Optional<List<Boolean>> answers = g.inRecordedTransaction(insertingAll(g, store, episodes, settled));

        assertThat(answers).hasValueSatisfying(a -> assertThat(a).hasSize(50).containsOnly(true));
        assertThat(stored(jpa, episodes)).isEqualTo(50);
        assertThat(settled).as("every write heard it committed").hasSize(50).containsOnlyKeys(
                episodes.stream().map(NewEpisode::id).toList()).doesNotContainValue(false);
        assertThat(counting.batched()).as("the fifty INSERTs, sent as a JDBC batch").isEqualTo(50);
        assertThat(counting.statements()).as("no statement besides the batch").isEqualTo(50);
        assertThat(counting.transactions()).isEqualTo(1);
    }

    @Test
    void a_key_taken_before_rolls_back_the_whole_recorded_transaction_and_asks_for_the_ordinary_run() {
        TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        GroupCommit g = groupCommit(new JoiningTx(jpa), true);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        NewEpisode earlier = storedBefore(jpa, store);
        List<NewEpisode> episodes = episodes(5);
        // the same key again (an event sent a second time), told "inserted" while recording
        episodes.add(2, episode(earlier.dedupeKey()));
        Map<String, Boolean> settled = new ConcurrentHashMap<>();

        Optional<List<Boolean>> answers = g.inRecordedTransaction(insertingAll(g, store, episodes, settled));

        assertThat(answers).as("the caller must run its work again unrecorded").isEmpty();
        assertThat(stored(jpa, episodes)).as("nothing of the recorded transaction stands").isZero();
        assertThat(settled).as("every write heard it was not stored").hasSize(6).doesNotContainValue(true);

        List<Boolean> ordinary = new JoiningTx(jpa).inNewTransaction(em -> {
            List<Boolean> a = new ArrayList<>();
            for (NewEpisode e : episodes) {
                a.add(store.insert(em, e));
            }
            return a;
        });
        assertThat(ordinary).as("run the ordinary way, the repeat is a duplicate and the rest is stored")
                .containsExactly(true, true, false, true, true, true);
    }

    @Test
    void the_same_key_twice_in_one_recorded_transaction_is_caught_by_the_counts() {
        TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        GroupCommit g = groupCommit(new JoiningTx(jpa), true);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        List<NewEpisode> episodes = episodes(3);
        episodes.add(episode(episodes.get(0).dedupeKey()));
        Map<String, Boolean> settled = new ConcurrentHashMap<>();

        Optional<List<Boolean>> answers = g.inRecordedTransaction(insertingAll(g, store, episodes, settled));

        assertThat(answers).isEmpty();
        assertThat(stored(jpa, episodes)).isZero();
        assertThat(settled).hasSize(4).doesNotContainValue(true);
    }

    @Test
    void a_write_that_reads_runs_for_real_after_the_recorded_writes_before_it_were_sent() {
        TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        StatementCountingTx counting = new StatementCountingTx(jpa);
        GroupCommit g = groupCommit(new JoiningTx(counting), true);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        NewEpisode first = episode("rec:" + UUID.randomUUID());
        NewEpisode second = episode("rec:" + UUID.randomUUID());
        Map<String, Boolean> settled = new ConcurrentHashMap<>();

        Optional<Object> seen = g.inRecordedTransaction(em -> {
            g.inCallerTransaction(inner -> store.insert(inner, first), ok -> settled.put(first.id(), ok));
            // a read decides: it must see the first insert, recorded a moment ago
            Object count = g.inCallerTransaction(inner -> inner.createNativeQuery(
                    "SELECT COUNT(*) FROM cyclium_episodes WHERE id = ?1").setParameter(1, first.id()).getSingleResult(),
                    ok -> settled.put("reader", ok));
            g.inCallerTransaction(inner -> store.insert(inner, second), ok -> settled.put(second.id(), ok));
            return count;
        });

        assertThat(seen).as("the reader saw the insert recorded before it").hasValueSatisfying(
                c -> assertThat(c.toString()).isEqualTo("1"));
        assertThat(stored(jpa, List.of(first, second))).isEqualTo(2);
        assertThat(settled).hasSize(3).doesNotContainValue(false);
        assertThat(counting.batched()).as("both inserts batched, one before the read and one at the end").isEqualTo(2);
        assertThat(counting.transactions()).isEqualTo(1);
    }

    @Test
    void a_work_that_swallows_a_failure_after_a_taken_key_still_does_not_commit() {
        TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        GroupCommit g = groupCommit(new JoiningTx(jpa), true);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        NewEpisode earlier = storedBefore(jpa, store);
        NewEpisode repeat = episode(earlier.dedupeKey());
        NewEpisode after = episode("rec:" + UUID.randomUUID());

        Optional<Object> result = g.inRecordedTransaction(em -> {
            g.inCallerTransaction(inner -> store.insert(inner, repeat), ok -> { });
            // the read sends the recorded insert first; its 0 rows dooms the transaction, quietly
            g.inCallerTransaction(inner -> inner.createNativeQuery("SELECT 1").getSingleResult(), ok -> { });
            g.inCallerTransaction(inner -> store.insert(inner, after), ok -> { });
            return "went on";
        });

        assertThat(result).isEmpty();
        assertThat(stored(jpa, List.of(repeat, after))).isZero();
    }

    @Test
    void without_deferred_updates_a_recorded_transaction_is_an_ordinary_one() {
        TestJpa jpa = databases.jpa(Vendor.H2);
        StatementCountingTx counting = new StatementCountingTx(jpa);
        GroupCommit g = groupCommit(new JoiningTx(counting), false);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        List<NewEpisode> episodes = episodes(4);
        episodes.add(episode(episodes.get(1).dedupeKey()));
        Map<String, Boolean> settled = new ConcurrentHashMap<>();

        Optional<List<Boolean>> answers = g.inRecordedTransaction(insertingAll(g, store, episodes, settled));

        assertThat(answers).hasValueSatisfying(a -> assertThat(a).containsExactly(true, true, true, true, false));
        assertThat(stored(jpa, episodes)).isEqualTo(4);
        assertThat(counting.batched()).isZero();
        assertThat(settled).hasSize(5);
    }
}
