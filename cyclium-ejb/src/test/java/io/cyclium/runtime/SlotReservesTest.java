package io.cyclium.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.store.NativeSql;
import io.cyclium.testing.OwnDatabases;
import io.cyclium.testing.StatementCountingTx;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A node's reserve of slots of a key far from its limit, on H2, PostgreSQL and MariaDB: fresh
 * episodes run on numbers lent from it without a statement, the database still counts every number
 * (the limit holds across nodes), unused numbers go back, and a reserve its node stopped renewing is
 * lent no more and freed by another node's admission once its life is over.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class SlotReservesTest {

    private static final Duration LIFE = Duration.ofSeconds(30);

    @RegisterExtension
    final OwnDatabases own = new OwnDatabases();

    /** Each node's monotonic clock, moved by hand. */
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private ClusterConcurrency node(TestJpa db, String name) {
        return new ClusterConcurrency(db, db, db.vendor(), name, Duration.ofMillis(500), LIFE, nanos::get);
    }

    private static ConcurrencySlot wide(int limit) {
        return ConcurrencySlot.ofKey("worker", "work", "tenant-wide", limit);
    }

    /** A fresh episode's admission in the transaction that stores it; how many statements it sent goes to {@code sent}. */
    private static long admitFresh(TestJpa db, ClusterConcurrency gate, String id, ConcurrencySlot slot, AtomicLong sent) {
        StatementCountingTx counting = new StatementCountingTx(db);
        long answer = counting.inNewTransaction(em -> gate.admitIn(em, id, List.of(slot), List.of(), true));
        sent.addAndGet(counting.statements());
        return answer;
    }

    /** {@code count} fresh episodes admitted and running at once, then all of their runs ending (their tasks' exits). */
    private static void runAtOnceThenEnd(TestJpa db, ClusterConcurrency gate, ConcurrencySlot slot, int count) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = UUID.randomUUID().toString();
            admitFresh(db, gate, id, slot, new AtomicLong());
            gate.holding(id, List.of(slot));
            ids.add(id);
        }
        ids.forEach(gate::release);
    }

    private static int inUse(TestJpa db, ConcurrencySlot slot) {
        return db.inNewTransaction(em -> new ConcurrencyStore(db.vendor()).inUse(em, slot.scope(), slot.key()));
    }

    private static int rowsOf(TestJpa db, String episodeId) {
        return db.inNewTransaction(em -> ((Number) new NativeSql().sql("SELECT COUNT(*) FROM cyclium_concurrency_slots"
                + " WHERE episode_id = ").value(episodeId).query(em).getSingleResult()).intValue());
    }

    /** {@code count} running episodes (rows) each take a slot of {@code slot} through {@code gate}, after a read. */
    private static void takeWithRunning(TestJpa db, ClusterConcurrency gate, ConcurrencySlot slot, int count) {
        for (int i = 0; i < count; i++) {
            String id = UUID.randomUUID().toString();
            running(db, id);
            assertThat(gate.take(id, List.of(slot))).isTrue();
        }
    }

    private static void running(TestJpa db, String id) {
        db.inNewTransaction(em -> new EpisodeStore(db.vendor()).insert(em, new NewEpisode(id, "worker", "work", null,
                new TriggerInfo(TriggerInfo.MANUAL, null, null, null, null), null, 3, null, null, true, null, null, null,
                null)));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void once_its_reserve_is_kept_a_fresh_episode_under_a_large_limit_takes_and_gives_back_its_slot_without_a_statement(
            Vendor vendor) {
        TestJpa db = own.open(vendor);
        ClusterConcurrency gate = node(db, "node-a");
        ConcurrencySlot slot = wide(1_000);
        AtomicLong sent = new AtomicLong();
        String first = UUID.randomUUID().toString();
        assertThat(admitFresh(db, gate, first, slot, sent)).isEqualTo(ConcurrencyGate.ADMITTED);
        assertThat(sent.get()).as("no reserve yet: a slot of its own").isPositive();
        assertThat(rowsOf(db, first)).isEqualTo(1);

        gate.keepBlocks();
        assertThat(gate.reserve(slot)).as("lent, free: the one episode that missed and the spare").containsExactly(0,
                1 + SlotBlocks.SPARE);
        assertThat(inUse(db, slot)).as("the reserve counts as held").isEqualTo(1 + 1 + SlotBlocks.SPARE);

        sent.set(0);
        List<String> lent = new ArrayList<>();
        for (int i = 0; i < 1 + SlotBlocks.SPARE; i++) {
            String id = UUID.randomUUID().toString();
            assertThat(admitFresh(db, gate, id, slot, sent)).isEqualTo(ConcurrencyGate.ADMITTED);
            gate.holding(id, List.of(slot));
            lent.add(id);
        }
        assertThat(sent.get()).as("statements to take three lent slots").isZero();
        assertThat(lent).allSatisfy(id -> assertThat(rowsOf(db, id)).as("no row of its own").isZero());
        assertThat(gate.reserve(slot)).containsExactly(1 + SlotBlocks.SPARE, 0);

        StatementCountingTx terminal = new StatementCountingTx(db);
        for (String id : lent) { // the terminal write gives them back in its commit, then they are lent again
            terminal.inNewTransaction(em -> {
                gate.releaseIn(em, id);
                return null;
            });
            gate.released(id);
        }
        assertThat(terminal.statements()).as("statements to give back three lent slots").isZero();
        assertThat(gate.reserve(slot)).containsExactly(0, 1 + SlotBlocks.SPARE);
        assertThat(inUse(db, slot)).as("still held: the reserve's rows and the first episode's").isEqualTo(1 + 1 + SlotBlocks.SPARE);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void queued_work_its_node_s_reserve_admits_whole_starts_without_a_transaction_once_other_nodes_waiters_were_read_lately(
            Vendor vendor) {
        TestJpa db = own.open(vendor);
        StatementCountingTx writes = new StatementCountingTx(db);
        ClusterConcurrency gate = new ClusterConcurrency(db, writes, db.vendor(), "node-a", Duration.ofMillis(500), LIFE,
                nanos::get);
        ConcurrencySlot key = wide(1_000);
        ConcurrencySlot actor = ConcurrencySlot.ofActor("worker", 5_000);
        List<ConcurrencyGate.Admission> four = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            four.add(new ConcurrencyGate.Admission(UUID.randomUUID().toString(), List.of(key, actor), List.of(), true, 0));
        }
        assertThat(gate.admit(four)).containsOnly(ConcurrencyGate.ADMITTED);
        assertThat(writes.transactions()).as("no reserve yet, and the other nodes' waiters never read").isEqualTo(1);
        four.forEach(a -> gate.release(a.episodeId()));
        gate.keepBlocks();

        List<ConcurrencyGate.Admission> next = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            next.add(new ConcurrencyGate.Admission(UUID.randomUUID().toString(), List.of(key, actor), List.of(), true, 0));
        }
        nanos.addAndGet(Duration.ofMillis(100).toNanos());
        assertThat(gate.admit(next)).containsOnly(ConcurrencyGate.ADMITTED);
        assertThat(writes.transactions()).as("lent from both reserves").isEqualTo(1);
        assertThat(gate.reserve(key)).containsExactly(4, SlotBlocks.SPARE);
        assertThat(gate.reserve(actor)).containsExactly(4, SlotBlocks.SPARE);

        // a recheck later the waiters are read again, in a transaction; and a restart (it may hold a row) reads too
        nanos.addAndGet(Duration.ofMillis(500).toNanos());
        String late = UUID.randomUUID().toString();
        assertThat(gate.admit(List.of(new ConcurrencyGate.Admission(late, List.of(key, actor), List.of(), true, 0))))
                .containsOnly(ConcurrencyGate.ADMITTED);
        assertThat(writes.transactions()).isEqualTo(2);
        assertThat(gate.admit(List.of(new ConcurrencyGate.Admission(UUID.randomUUID().toString(), List.of(key, actor),
                List.of(), false, 0)))).containsOnly(ConcurrencyGate.ADMITTED);
        assertThat(writes.transactions()).isEqualTo(3);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void while_other_work_waits_for_its_limit_a_fresh_episode_its_reserve_admits_starts_at_its_store_or_behind_work_with_a_priority_in_its_own_thread(
            Vendor vendor) {
        TestJpa db = own.open(vendor);
        io.cyclium.testing.MutableClock clock = new io.cyclium.testing.MutableClock(java.time.Instant.parse("2026-03-02T10:00:00Z"));
        io.cyclium.testing.ManualScheduler timers = new io.cyclium.testing.ManualScheduler(clock);
        ConcurrencyLimitsTest.RowsLauncher launcher = new ConcurrencyLimitsTest.RowsLauncher(db);
        ClusterConcurrency gate = node(db, "node-a");
        io.cyclium.actor.ActorDefinition def = new io.cyclium.actor.ActorDefinition("worker", io.cyclium.actor.TestActors.class,
                0, io.cyclium.actor.Overflow.QUEUE, new java.util.LinkedHashSet<>(), null, List.of(
                        io.cyclium.actor.TestActors.expectation("small").build("worker")
                                .withFlow(new io.cyclium.actor.FlowControl("$.tenant", 1, 0, "priority")),
                        io.cyclium.actor.TestActors.expectation("wide").build("worker")
                                .withFlow(new io.cyclium.actor.FlowControl("$.tenant", 1_000, 0, "priority"))), 0);
        ActorRuntime rt = new ActorRuntime(def, 6, launcher, new ActorRuntime.Context(timers, clock,
                io.cyclium.telemetry.Telemetry.NOOP, "node-a", "stack-a", null, new io.cyclium.timing.Jitter(Duration.ZERO),
                () -> io.cyclium.config.NodeMode.FULL)).limitedBy(gate, Duration.ofMillis(500), Duration.ofSeconds(60));
        ConcurrencyLimitsTest.Node n = new ConcurrencyLimitsTest.Node(rt, launcher, timers);
        n.fire("small", "tenant-a", null);
        n.fire("small", "tenant-a", null); // its key is full: it waits in the queue
        timers.runDue();
        assertThat(rt.queuedCount()).as("tenant-a's second episode waits for its limit").isEqualTo(1);

        String handedOver = n.fire("wide", "tenant-b", null).episodeId();
        assertThat(n.started()).as("no reserve yet: its admission is handed to the timers' thread").doesNotContain(handedOver);
        timers.runDue();
        assertThat(n.started()).contains(handedOver);

        gate.keepBlocks(); // the wide key's episode missed: its reserve now has numbers

        io.cyclium.runtime.FireResult passing = n.fire("wide", "tenant-b", null);
        assertThat(passing.kind()).as("started by its store, though work waits here for another key").isEqualTo(
                io.cyclium.runtime.FireResult.Kind.STARTED);
        assertThat(n.started()).contains(passing.episodeId());
        assertThat(queuedAt(db, passing.episodeId())).as("never marked queued").isNull();
        assertThat(rowsOf(db, passing.episodeId())).as("on a lent number").isZero();

        n.fire("small", "tenant-a", 5); // waits for the full limit, with a priority of its own
        io.cyclium.runtime.FireResult behind = n.fire("wide", "tenant-b", null);
        assertThat(behind.kind()).as("queued work has a priority: through the queue").isEqualTo(
                io.cyclium.runtime.FireResult.Kind.QUEUED);
        assertThat(queuedAt(db, behind.episodeId())).isNotNull();
        assertThat(n.started()).as("admitted from the queue in the thread that stored it").contains(behind.episodeId());
        assertThat(rowsOf(db, behind.episodeId())).as("on a lent number").isZero();
    }

    private static java.time.LocalDateTime queuedAt(TestJpa db, String episodeId) {
        return db.inNewTransaction(em -> em.find(io.cyclium.episode.EpisodeEntity.class, episodeId).queuedAt);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_admission_run_again_and_refused_gives_its_lent_number_back_once_so_no_number_is_lent_to_two_episodes(
            Vendor vendor) {
        TestJpa db = own.open(vendor);
        ConcurrencySlot slot = wide(64);
        ClusterConcurrency gate = node(db, "node-a");
        String missed = UUID.randomUUID().toString();
        admitFresh(db, gate, missed, slot, new AtomicLong());
        gate.release(missed);
        gate.keepBlocks();
        String first = UUID.randomUUID().toString();
        admitFresh(db, gate, first, slot, new AtomicLong());
        assertThat(gate.reserve(slot)).containsExactly(1, SlotBlocks.SPARE);
        takeWithRunning(db, node(db, "node-b"), slot, 64 - 1 - SlotBlocks.SPARE); // the rest of the key
        // the first one's shared batch failed: run again alone (not fresh) it finds the key full
        long again = db.inNewTransaction(em -> gate.admitIn(em, first, List.of(slot), List.of(), false));
        assertThat(again).isEqualTo(ConcurrencyGate.LIMIT_FULL);
        assertThat(gate.reserve(slot)).containsExactly(0, 1 + SlotBlocks.SPARE);
        String second = UUID.randomUUID().toString();
        admitFresh(db, gate, second, slot, new AtomicLong());
        gate.holding(second, List.of(slot));
        gate.release(first); // its queue gives it up (say): nothing of it is lent any more
        assertThat(gate.reserve(slot)).as("lent to the second only").containsExactly(1, SlotBlocks.SPARE);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void reserves_of_two_nodes_never_let_more_than_the_limit_run_and_take_at_most_half_of_it(Vendor vendor) {
        TestJpa db = own.open(vendor);
        ConcurrencySlot slot = wide(64);
        List<ClusterConcurrency> nodes = List.of(node(db, "node-a"), node(db, "node-b"));
        int admitted = 0;
        int refused = 0;
        for (int round = 0; round < 12; round++) {
            for (ClusterConcurrency gate : nodes) {
                for (int i = 0; i < 8; i++) {
                    String id = UUID.randomUUID().toString();
                    if (admitFresh(db, gate, id, slot, new AtomicLong()) == ConcurrencyGate.ADMITTED) {
                        gate.holding(id, List.of(slot)); // they all keep running
                        admitted++;
                    } else {
                        refused++;
                    }
                }
                gate.keepBlocks();
            }
        }
        int free = nodes.stream().mapToInt(g -> g.reserve(slot)[1]).sum();
        int lent = nodes.stream().mapToInt(g -> g.reserve(slot)[0]).sum();
        assertThat(admitted).as("running at once").isLessThanOrEqualTo(64);
        assertThat(admitted + free).as("running, and numbers kept free in the reserves").isEqualTo(64);
        assertThat(inUse(db, slot)).isEqualTo(64);
        assertThat(lent + free).as("reserved by both nodes: half of the limit at most").isBetween(1, 32);
        assertThat(refused).as("the rest found the limit full").isEqualTo(12 * 2 * 8 - admitted);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void numbers_unused_for_a_whole_pass_go_back_and_a_reserve_nothing_borrowed_from_goes_back_whole(Vendor vendor) {
        TestJpa db = own.open(vendor);
        ClusterConcurrency gate = node(db, "node-a");
        ConcurrencySlot slot = wide(1_000);
        runAtOnceThenEnd(db, gate, slot, 20); // twenty at once, none from the reserve yet
        gate.keepBlocks();
        assertThat(gate.reserve(slot)).containsExactly(0, 20 + SlotBlocks.SPARE);

        // the next pass sees at most five borrowed at once: what stayed free beyond the spare goes back
        runAtOnceThenEnd(db, gate, slot, 5);
        gate.keepBlocks();
        assertThat(gate.reserve(slot)).containsExactly(0, 5 + SlotBlocks.SPARE);
        assertThat(inUse(db, slot)).isEqualTo(5 + SlotBlocks.SPARE);

        gate.keepBlocks(); // a whole pass with nothing borrowed
        assertThat(gate.reserve(slot)).containsExactly(0, 0);
        assertThat(inUse(db, slot)).isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_reserve_its_node_stopped_renewing_is_lent_no_more_after_half_its_life_and_freed_by_another_node_after_all_of_it(
            Vendor vendor) {
        TestJpa db = own.open(vendor);
        ConcurrencySlot slot = wide(64);
        ClusterConcurrency frozen = node(db, "node-a");
        List<String> missed = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String id = UUID.randomUUID().toString();
            admitFresh(db, frozen, id, slot, new AtomicLong());
            missed.add(id);
        }
        missed.forEach(frozen::release);
        frozen.keepBlocks();
        assertThat(frozen.reserve(slot)).as("half of the limit").containsExactly(0, 32);

        // another node fills the other half with running episodes, which read the key first
        ClusterConcurrency other = node(db, "node-b");
        takeWithRunning(db, other, slot, 32);
        String waiting = UUID.randomUUID().toString();
        running(db, waiting);
        assertThat(other.take(waiting, List.of(slot))).as("a renewed reserve stands").isFalse();

        // node-a froze: half a life later by its own clock it lends nothing (and takes a slot of its own if any)
        nanos.addAndGet(LIFE.toNanos() / 2 + 1);
        assertThat(admitFresh(db, frozen, UUID.randomUUID().toString(), slot, new AtomicLong()))
                .as("nothing lent from a reserve not renewed for half its life, and the key is full")
                .isEqualTo(ConcurrencyGate.LIMIT_FULL);

        // a whole life after its last renewal on the database's clock, the next admission that finds the key full frees it
        db.run(em -> new NativeSql().sql("UPDATE cyclium_concurrency_slots SET taken_at = ")
                .around(-LIFE.toSeconds() - 1, db.vendor()::utcNowPlusSeconds).sql(" WHERE holder = 'node-a'")
                .executeUpdate(em));
        assertThat(other.take(waiting, List.of(slot))).as("the abandoned reserve freed").isTrue();
        assertThat(inUse(db, slot)).isEqualTo(33);

        // node-a wakes: its renewal finds its rows gone and it lends nothing it no longer holds
        frozen.keepBlocks();
        assertThat(frozen.reserve(slot)).containsExactly(0, 0);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_started_again_frees_its_earlier_run_s_reserve_and_an_admission_undone_lends_its_number_again(Vendor vendor) {
        TestJpa db = own.open(vendor);
        ConcurrencySlot slot = wide(1_000);
        ClusterConcurrency before = node(db, "node-a");
        String first = UUID.randomUUID().toString();
        admitFresh(db, before, first, slot, new AtomicLong());
        before.release(first);
        before.keepBlocks();
        assertThat(inUse(db, slot)).isEqualTo(1 + SlotBlocks.SPARE);

        ClusterConcurrency after = node(db, "node-a"); // killed and started again: its memory of the reserve is gone
        after.keepBlocks();
        assertThat(inUse(db, slot)).as("the earlier run's reserve").isZero();

        String missed = UUID.randomUUID().toString();
        admitFresh(db, after, missed, slot, new AtomicLong());
        after.release(missed);
        after.keepBlocks();
        String undone = UUID.randomUUID().toString();
        admitFresh(db, after, undone, slot, new AtomicLong());
        assertThat(after.reserve(slot)).containsExactly(1, SlotBlocks.SPARE);
        // its shared batch failed: run again alone (no longer fresh), it takes a slot of its own and gives the lent one back
        db.inNewTransaction(em -> after.admitIn(em, undone, List.of(slot), List.of(), false));
        assertThat(after.reserve(slot)).containsExactly(0, 1 + SlotBlocks.SPARE);
        assertThat(rowsOf(db, undone)).isEqualTo(1);
        // run again once more and refused this time (the key full, say): what the first run lent went back
        // once; a later give-back of the episode finds nothing lent and cannot return that number a second time
        String refused = UUID.randomUUID().toString();
        admitFresh(db, after, refused, slot, new AtomicLong());
        assertThat(after.reserve(slot)).containsExactly(1, SlotBlocks.SPARE);
        after.release(refused);
        after.release(refused);
        after.notStored(refused);
        assertThat(after.reserve(slot)).containsExactly(0, 1 + SlotBlocks.SPARE);
        List<String> all = new ArrayList<>();
        for (int i = 0; i < 1 + SlotBlocks.SPARE; i++) {
            String id = UUID.randomUUID().toString();
            admitFresh(db, after, id, slot, new AtomicLong());
            all.add(id);
        }
        assertThat(after.reserve(slot)).as("every number lent to one episode only").containsExactly(1 + SlotBlocks.SPARE, 0);
        all.forEach(after::release);
        // a store rolled back: what it was lent goes back
        String rolledBack = UUID.randomUUID().toString();
        admitFresh(db, after, rolledBack, slot, new AtomicLong());
        assertThat(after.reserve(slot)).containsExactly(1, SlotBlocks.SPARE);
        after.notStored(rolledBack);
        assertThat(after.reserve(slot)).containsExactly(0, 1 + SlotBlocks.SPARE);
    }
}
