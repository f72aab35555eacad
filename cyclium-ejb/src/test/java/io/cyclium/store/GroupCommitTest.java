package io.cyclium.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.claims.JpaWorkClaims;
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
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Group commit on a real database: writes handed over by many threads share transactions, each
 * caller still hears its own result only once it is committed, and one write that fails (a
 * statement the database refuses, a guard's undo, a transaction left rollback-only) fails alone —
 * the others in its batch are committed all the same.
 */
class GroupCommitTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private final ExecutorService callers = Executors.newFixedThreadPool(24);
    private final List<GroupCommit> started = new ArrayList<>();

    @AfterEach
    void stop() {
        callers.shutdownNow();
        started.forEach(GroupCommit::close);
    }

    private final List<Integer> batches = new CopyOnWriteArrayList<>();

    private GroupCommit groupCommit(Tx tx, int maxUnits, int writers) {
        return groupCommit(tx, maxUnits, writers, false);
    }

    private GroupCommit groupCommit(Tx tx, int maxUnits, int writers, boolean deferUpdates) {
        GroupCommit g = GroupCommit.start(tx, Executors.defaultThreadFactory(), maxUnits, writers, batches::add, deferUpdates);
        started.add(g);
        return g;
    }

    private static NewEpisode episode(String actorId) {
        String key = "gc:" + UUID.randomUUID();
        return new NewEpisode(UUID.randomUUID().toString(), actorId, "exp", null,
                new TriggerInfo(TriggerInfo.EVENT, "gc.tick", key, JsonValue.EMPTY_JSON_OBJECT, null), key, 3,
                new Budget(10, Duration.ofMinutes(1)), "gc-node", false, null, null, null, null);
    }

    private static long stored(TestJpa jpa, List<NewEpisode> episodes) {
        return episodes.stream().filter(e -> jpa.inNewTransaction(em -> em.createNativeQuery(
                "SELECT COUNT(*) FROM cyclium_episodes WHERE id = ?1").setParameter(1, e.id()).getSingleResult())
                .toString().equals("1")).count();
    }

    /** Holds the only writer inside a transaction until released, so the next writes pile up behind it. */
    private static final class Gate {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        Function<EntityManager, Integer> work() {
            return em -> {
                entered.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 0;
            };
        }
    }

    /** Submits {@code works} from caller threads while the writer is held, then lets it go. */
    private List<Future<Object>> pileUpThenRelease(GroupCommit g, List<Function<EntityManager, Object>> works)
            throws Exception {
        Gate gate = new Gate();
        Future<Integer> holder = callers.submit(() -> g.inGroupTransaction(gate.work()));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();
        List<Future<Object>> results = new ArrayList<>();
        for (Function<EntityManager, Object> w : works) {
            results.add(callers.submit(() -> g.inGroupTransaction(w)));
            // one at a time, so the batch takes them in this order
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (g.waiting() < results.size() && System.nanoTime() < until) {
                Thread.sleep(5);
            }
        }
        assertThat(g.waiting()).as("every caller handed its work over and waits").isEqualTo(works.size());
        gate.release.countDown();
        holder.get(30, TimeUnit.SECONDS);
        return results;
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void writes_from_many_threads_share_transactions_and_each_caller_returns_once_its_write_is_stored(Vendor vendor)
            throws Exception {
        TestJpa jpa = databases.jpa(vendor);
        StatementCountingTx counting = new StatementCountingTx(jpa);
        GroupCommit g = groupCommit(counting, 64, 2);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        List<NewEpisode> episodes = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            episodes.add(episode("gc_actor"));
        }
        Map<String, Boolean> seenOnReturn = new ConcurrentHashMap<>();

        List<Future<?>> done = new ArrayList<>();
        for (NewEpisode e : episodes) {
            done.add(callers.submit(() -> {
                boolean won = g.inGroupTransaction(em -> store.insert(em, e));
                // read in another transaction as the call returns: the write is committed
                seenOnReturn.put(e.id(), stored(jpa, List.of(e)) == 1 && won);
            }));
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }

        assertThat(seenOnReturn).hasSize(400).doesNotContainValue(false);
        assertThat(stored(jpa, episodes)).isEqualTo(400);
        assertThat(batches.stream().mapToInt(Integer::intValue).max().orElse(0))
                .as("some transaction carried more than one write").isGreaterThan(1);
        assertThat(counting.transactions()).as("transactions for 400 writes").isLessThan(400);
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void a_write_the_database_refuses_fails_alone_and_the_rest_of_its_batch_is_stored(Vendor vendor) throws Exception {
        TestJpa jpa = databases.jpa(vendor);
        GroupCommit g = groupCommit(jpa, 64, 1);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        List<NewEpisode> good = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            good.add(episode("gc_actor"));
        }
        NewEpisode tooLong = episode("x".repeat(300)); // actor_id is VARCHAR(255)
        AtomicInteger goodRuns = new AtomicInteger();
        List<Function<EntityManager, Object>> works = new ArrayList<>();
        for (NewEpisode e : good.subList(0, 5)) {
            works.add(em -> goodRuns.incrementAndGet() > 0 && store.insert(em, e));
        }
        works.add(em -> store.insert(em, tooLong));
        for (NewEpisode e : good.subList(5, 10)) {
            works.add(em -> goodRuns.incrementAndGet() > 0 && store.insert(em, e));
        }

        List<Future<Object>> results = pileUpThenRelease(g, works);

        for (int i = 0; i < results.size(); i++) {
            if (i == 5) {
                Future<Object> refused = results.get(i);
                assertThatThrownBy(() -> refused.get(30, TimeUnit.SECONDS)).as("the refused write's caller hears why")
                        .hasRootCauseInstanceOf(java.sql.SQLException.class);
            } else {
                assertThat(results.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(true);
            }
        }
        assertThat(stored(jpa, good)).as("the other writes of the failed batch, each stored on its own").isEqualTo(10);
        assertThat(stored(jpa, List.of(tooLong))).isZero();
        // the five before the refused one ran in the shared transaction first (the batch stops at the
        // failure), then every one of the ten once more, alone
        assertThat(goodRuns.get()).as("good writes run in the shared transaction, then again alone").isEqualTo(15);
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void a_guard_that_undoes_its_own_write_undoes_nothing_of_the_others(Vendor vendor) throws Exception {
        TestJpa jpa = databases.jpa(vendor);
        GroupCommit g = groupCommit(jpa, 64, 1);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        NewEpisode kept = episode("gc_actor");
        NewEpisode undone = episode("gc_actor");
        List<Function<EntityManager, Object>> works = List.of(
                em -> store.insert(em, kept),
                em -> {
                    store.insert(em, undone);
                    throw new Undo("a later statement found the earlier one must not stand");
                });

        List<Future<Object>> results = pileUpThenRelease(g, works);

        assertThat(results.get(0).get(30, TimeUnit.SECONDS)).isEqualTo(true);
        assertThatThrownBy(() -> results.get(1).get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(Undo.class);
        assertThat(stored(jpa, List.of(kept))).isEqualTo(1);
        assertThat(stored(jpa, List.of(undone))).isZero();
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2", "POSTGRESQL"})
    void a_write_that_leaves_the_transaction_rollback_only_does_not_take_the_others_with_it(Vendor vendor) throws Exception {
        TestJpa jpa = databases.jpa(vendor);
        GroupCommit g = groupCommit(jpa, 64, 1);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        NewEpisode kept = episode("gc_actor");
        NewEpisode quietlyLost = episode("gc_actor");
        List<Function<EntityManager, Object>> works = List.of(
                em -> store.insert(em, kept),
                em -> {
                    // as a work that caught a failed statement JPA had marked for rollback
                    store.insert(em, quietlyLost);
                    em.getTransaction().setRollbackOnly();
                    return true;
                });

        List<Future<Object>> results = pileUpThenRelease(g, works);

        assertThat(results.get(0).get(30, TimeUnit.SECONDS)).isEqualTo(true);
        results.get(1).get(30, TimeUnit.SECONDS);
        assertThat(stored(jpa, List.of(kept))).as("not rolled back with the other write's transaction").isEqualTo(1);
        assertThat(stored(jpa, List.of(quietlyLost))).as("its own transaction rolled back, as without group commit")
                .isZero();
    }

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"H2"})
    void after_close_a_write_runs_alone_in_its_callers_thread(Vendor vendor) {
        TestJpa jpa = databases.jpa(vendor);
        GroupCommit g = groupCommit(jpa, 64, 2);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        NewEpisode e = episode("gc_actor");
        g.close();

        Thread caller = Thread.currentThread();
        Thread ranOn = g.inGroupTransaction(em -> {
            store.insert(em, e);
            return Thread.currentThread();
        });

        assertThat(ranOn).isSameAs(caller);
        assertThat(stored(jpa, List.of(e))).isEqualTo(1);
    }

    // ---- deferred updates (PostgreSQL: the driver reports a count per batched statement) ----------

    @org.junit.jupiter.api.Test
    void on_postgresql_the_inserts_of_a_batch_go_as_one_jdbc_batch_and_each_caller_hears_its_own_answer() throws Exception {
        TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        StatementCountingTx counting = new StatementCountingTx(jpa);
        GroupCommit g = groupCommit(counting, 64, 1, true);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        List<NewEpisode> episodes = new ArrayList<>();
        List<Function<EntityManager, Object>> works = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            NewEpisode e = episode("gc_actor");
            episodes.add(e);
            works.add(em -> store.insert(em, e));
        }

        List<Future<Object>> results = pileUpThenRelease(g, works);

        for (Future<Object> r : results) {
            assertThat(r.get(30, TimeUnit.SECONDS)).isEqualTo(true);
        }
        assertThat(stored(jpa, episodes)).isEqualTo(10);
        assertThat(counting.batched()).as("the ten INSERTs sent as one JDBC batch").isEqualTo(10);
        assertThat(counting.transactions()).as("the gate's transaction and the batch's").isEqualTo(2);
    }

    @org.junit.jupiter.api.Test
    void a_deferred_insert_that_finds_its_key_taken_fails_the_batch_and_every_work_runs_again_on_real_counts()
            throws Exception {
        TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        StatementCountingTx counting = new StatementCountingTx(jpa);
        GroupCommit g = groupCommit(counting, 64, 1, true);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        NewEpisode taken = episode("gc_actor");
        Boolean takenFirst = jpa.inNewTransaction(em -> store.insert(em, taken));
        assertThat(takenFirst).isTrue();
        List<NewEpisode> fresh = new ArrayList<>();
        List<Function<EntityManager, Object>> works = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            NewEpisode e = episode("gc_actor");
            fresh.add(e);
            works.add(em -> store.insert(em, e));
            if (i == 2) {
                // told "inserted" while recording; the batch's count says otherwise
                works.add(em -> store.insert(em, taken));
            }
        }

        List<Future<Object>> results = pileUpThenRelease(g, works);

        for (int i = 0; i < results.size(); i++) {
            assertThat(results.get(i).get(30, TimeUnit.SECONDS)).as("work " + i).isEqualTo(i != 3);
        }
        assertThat(stored(jpa, fresh)).isEqualTo(6);
        assertThat(jpa.inNewTransaction(em -> em.createNativeQuery("SELECT COUNT(*) FROM cyclium_episodes WHERE dedupe_key = ?1")
                .setParameter(1, taken.dedupeKey()).getSingleResult()).toString()).isEqualTo("1");
        assertThat(counting.batched()).as("the failed batch sent all seven").isGreaterThanOrEqualTo(7);
    }

    /** A running episode whose lease {@code node} holds: what a terminal write finds. */
    private static NewEpisode runningWithLease(TestJpa jpa, EpisodeStore store, JpaWorkClaims claims, String node) {
        NewEpisode e = episode("gc_actor");
        jpa.run(em -> {
            store.insert(em, e);
            claims.claimFirstIn(em, e.dedupeKey(), node, 60, "episode");
        });
        return e;
    }

    /** An episode's terminal write as EpisodeWrites makes it: the row, the journal row, the lease settled at {@code fence}. */
    private static Function<EntityManager, Object> terminalWrite(EpisodeStore store, JpaWorkClaims claims, NewEpisode e,
            String node, long fence) {
        return em -> {
            if (store.finish(em, e.id(), io.cyclium.episode.EpisodeStatus.DONE, 1, "done", null, null, false) == 0) {
                return false;
            }
            if (!store.journal(em, e.id(), 1, io.cyclium.episode.StepKind.EPISODE_COMPLETED, node, null, null, null, null)) {
                throw new Undo("journaled by another owner");
            }
            if (!claims.settleIn(em, e.dedupeKey(), node, fence, true, null).orElseThrow()) {
                throw new Undo("its lease moved on");
            }
            return true;
        };
    }

    private static String column(TestJpa jpa, String sql, String id) {
        Object value = jpa.inNewTransaction(em -> em.createNativeQuery(sql).setParameter(1, id).getSingleResult());
        return String.valueOf(value);
    }

    /** Running episodes with their leases on PostgreSQL and their terminal writes, for a group commit that counts statements. */
    private final class TerminalWrites {
        final TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        final StatementCountingTx counting = new StatementCountingTx(jpa);
        final GroupCommit group = groupCommit(counting, 64, 1, true);
        final List<NewEpisode> episodes = new ArrayList<>();
        final List<Function<EntityManager, Object>> works = new ArrayList<>();

        /** {@code count} of them; the one at {@code staleFence} (or none: -1) settles at a fence its lease has left. */
        TerminalWrites(int count, int staleFence) {
            EpisodeStore store = new EpisodeStore(jpa.vendor());
            JpaWorkClaims claims = new JpaWorkClaims(jpa, jpa.vendor(), new io.cyclium.testing.RecordingTelemetry());
            String node = "gc-node-" + UUID.randomUUID();
            for (int i = 0; i < count; i++) {
                NewEpisode e = runningWithLease(jpa, store, claims, node);
                episodes.add(e);
                long fence = claims.find(e.dedupeKey()).orElseThrow().fence();
                works.add(terminalWrite(store, claims, e, node, i == staleFence ? fence - 1 : fence));
            }
        }

        /** The episode's status, its journal rows and its lease's state, as one text. */
        String rows(NewEpisode e) {
            return column(jpa, "SELECT status FROM cyclium_episodes WHERE id = ?1", e.id())
                    + ", " + column(jpa, "SELECT COUNT(*) FROM cyclium_episode_steps WHERE episode_id = ?1", e.id()) + " journal row(s)"
                    + ", lease " + column(jpa, "SELECT state FROM cyclium_work_claims WHERE dedupe_key = ?1", e.dedupeKey());
        }
    }

    @org.junit.jupiter.api.Test
    void on_postgresql_each_terminal_write_of_a_batch_is_one_statement_and_every_row_it_names_is_written() throws Exception {
        TerminalWrites t = new TerminalWrites(5, -1);

        List<Future<Object>> results = pileUpThenRelease(t.group, t.works);

        for (Future<Object> r : results) {
            assertThat(r.get(30, TimeUnit.SECONDS)).isEqualTo(true);
        }
        assertThat(t.counting.batched()).as("five works, one statement each (three writes each before)").isEqualTo(5);
        assertThat(t.counting.transactions()).as("the gate's transaction and the batch's").isEqualTo(2);
        assertThat(t.episodes).allSatisfy(e -> assertThat(t.rows(e)).isEqualTo("done, 1 journal row(s), lease done"));
    }

    @org.junit.jupiter.api.Test
    void on_postgresql_a_terminal_write_whose_lease_moved_on_fails_its_one_statement_and_every_work_runs_again_on_real_counts()
            throws Exception {
        // the lease of the third was taken over at a higher fence: the statement's own condition fails
        aTerminalWriteThatMustNotStand(false);
    }

    @org.junit.jupiter.api.Test
    void on_postgresql_a_terminal_write_whose_episode_moved_on_settles_no_lease_though_the_lease_is_still_its_own()
            throws Exception {
        // the third was canceled meanwhile: its row changes nothing while the lease's condition holds
        aTerminalWriteThatMustNotStand(true);
    }

    /**
     * Four terminal writes in one batch, the third spoiled — its episode canceled, or its lease
     * moved on — after it was recorded as changing one row each: nothing of the third stands, the
     * others are written, and the batch sent one statement per work.
     */
    private void aTerminalWriteThatMustNotStand(boolean episodeCanceled) throws Exception {
        TerminalWrites t = new TerminalWrites(4, episodeCanceled ? -1 : 2);
        if (episodeCanceled) {
            t.jpa.run(em -> em.createNativeQuery("UPDATE cyclium_episodes SET status = 'canceled' WHERE id = ?1")
                    .setParameter(1, t.episodes.get(2).id()).executeUpdate());
        }

        List<Future<Object>> results = pileUpThenRelease(t.group, t.works);

        for (int i = 0; i < results.size(); i++) {
            int n = i;
            if (i != 2) {
                assertThat(results.get(i).get(30, TimeUnit.SECONDS)).as("work " + i).isEqualTo(true);
                assertThat(t.rows(t.episodes.get(i))).isEqualTo("done, 1 journal row(s), lease done");
            } else if (episodeCanceled) {
                assertThat(results.get(i).get(30, TimeUnit.SECONDS)).as("the canceled one's work").isEqualTo(false);
                assertThat(t.rows(t.episodes.get(i))).isEqualTo("canceled, 0 journal row(s), lease claimed");
            } else {
                assertThatThrownBy(() -> results.get(n).get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(Undo.class);
                assertThat(t.rows(t.episodes.get(i))).isEqualTo("running, 0 journal row(s), lease claimed");
            }
        }
        assertThat(t.counting.batched()).as("the failed batch: one statement per work").isEqualTo(4);
    }

    @org.junit.jupiter.api.Test
    void on_postgresql_a_work_run_again_after_its_batch_rolled_back_for_certain_is_told_that_nothing_of_it_landed()
            throws Exception {
        TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        GroupCommit g = groupCommit(jpa, 64, 1, true);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        NewEpisode taken = episode("gc_actor");
        jpa.run(em -> store.insert(em, taken));
        NewEpisode fresh = episode("gc_actor");
        List<Boolean> toldOnRealRuns = new CopyOnWriteArrayList<>();
        List<Function<EntityManager, Object>> works = List.of(
                em -> store.insert(em, taken), // recorded as inserted; its count fails the batch before the COMMIT
                em -> {
                    if (!GroupCommit.recording(em)) {
                        toldOnRealRuns.add(GroupCommit.runsAfterRollback());
                    }
                    return store.insert(em, fresh);
                });

        List<Future<Object>> results = pileUpThenRelease(g, works);

        assertThat(results.get(0).get(30, TimeUnit.SECONDS)).isEqualTo(false);
        assertThat(results.get(1).get(30, TimeUnit.SECONDS)).isEqualTo(true);
        // a recording that went out with a batch that rolled back landed nowhere (Reruns reads this)
        assertThat(toldOnRealRuns).as("its one real run, alone after the rollback").containsExactly(true);
        assertThat(GroupCommit.runsAfterRollback()).as("only while that run lasts").isFalse();
    }

    @org.junit.jupiter.api.Test
    void a_work_that_reads_runs_for_real_in_the_shared_transaction_beside_the_recorded_ones() throws Exception {
        TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
        StatementCountingTx counting = new StatementCountingTx(jpa);
        GroupCommit g = groupCommit(counting, 64, 1, true);
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        NewEpisode first = episode("gc_actor");
        NewEpisode second = episode("gc_actor");
        NewEpisode reader = episode("gc_actor");
        List<Function<EntityManager, Object>> works = List.of(
                em -> store.insert(em, first),
                em -> {
                    // a read decides: not deferrable, so it must see the database, not a recording
                    Object before = em.createNativeQuery("SELECT COUNT(*) FROM cyclium_episodes WHERE id = ?1")
                            .setParameter(1, reader.id()).getSingleResult();
                    return before.toString().equals("0") && store.insert(em, reader);
                },
                em -> store.insert(em, second));

        List<Future<Object>> results = pileUpThenRelease(g, works);

        for (Future<Object> r : results) {
            assertThat(r.get(30, TimeUnit.SECONDS)).isEqualTo(true);
        }
        assertThat(stored(jpa, List.of(first, second, reader))).isEqualTo(3);
        assertThat(counting.batched()).as("the two plain inserts batched, the reader's insert not").isEqualTo(2);
        assertThat(counting.transactions()).as("one shared transaction after the gate's").isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Vendor.class)
    void works_of_a_batch_that_name_the_row_they_hold_run_in_the_order_of_those_names_after_the_others_as_they_came(
            Vendor vendor) throws Exception {
        TestJpa jpa = databases.jpa(vendor);
        GroupCommit g = groupCommit(jpa, 64, 1, vendor == Vendor.POSTGRESQL);
        List<String> ran = new CopyOnWriteArrayList<>();
        // each reads, so a batch runs it for real (in the shared transaction, one after the other)
        java.util.function.BiFunction<String, String, Function<EntityManager, Object>> reading = (name, holds) -> em -> {
            em.createNativeQuery("SELECT 1").getSingleResult();
            ran.add(name);
            return name;
        };
        // handed over one at a time in this order: two nodes' batches may hold the same instances
        // in any order, and must take their rows in one
        List<String[]> handed = List.of(new String[] {"step of instance c", "c"}, new String[] {"unnamed 1", null},
                new String[] {"step of instance a", "a"}, new String[] {"step of instance b", "b"},
                new String[] {"unnamed 2", null});
        Gate gate = new Gate();
        Future<Integer> holder = callers.submit(() -> g.inGroupTransaction(gate.work()));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();
        List<Future<Object>> results = new ArrayList<>();
        for (String[] h : handed) {
            results.add(callers.submit(() -> g.inGroupTransaction(h[1], reading.apply(h[0], h[1]))));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (g.waiting() < results.size() && System.nanoTime() < until) {
                Thread.sleep(5);
            }
        }
        assertThat(g.waiting()).isEqualTo(handed.size());
        gate.release.countDown();
        holder.get(30, TimeUnit.SECONDS);
        for (Future<Object> r : results) {
            r.get(30, TimeUnit.SECONDS);
        }

        assertThat(batches).as("one shared transaction for the five").containsExactly(handed.size());
        assertThat(ran).containsExactly("unnamed 1", "unnamed 2", "step of instance a", "step of instance b", "step of instance c");
    }

    @org.junit.jupiter.api.Test
    void a_write_no_writer_takes_within_the_hand_over_deadline_fails_written_nowhere_and_the_writer_goes_on() throws Exception {
        TestJpa jpa = databases.jpa(Vendor.H2);
        GroupCommit g = groupCommit(jpa, 64, 1).handOverDeadline(Duration.ofMillis(300));
        EpisodeStore store = new EpisodeStore(jpa.vendor());
        Gate stuck = new Gate(); // the only writer, stuck on the database (a lock a frozen node holds)
        Future<Integer> holder = callers.submit(() -> g.inGroupTransaction(stuck.work()));
        assertThat(stuck.entered.await(30, TimeUnit.SECONDS)).isTrue();
        NewEpisode late = episode("gc_actor");

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> g.inGroupTransaction(em -> store.insert(em, late)))
                .isInstanceOf(GroupCommit.HandOverTimeout.class).hasMessageContaining("nothing of it was written");
        assertThat(g.waiting()).as("handed back, not left queued").isZero();

        stuck.release.countDown();
        holder.get(30, TimeUnit.SECONDS);
        NewEpisode next = episode("gc_actor");
        assertThat(g.inGroupTransaction(em -> store.insert(em, next)).booleanValue()).isTrue();
        assertThat(stored(jpa, List.of(late, next))).as("only the write sent after the writer went on").isEqualTo(1);
    }
}
