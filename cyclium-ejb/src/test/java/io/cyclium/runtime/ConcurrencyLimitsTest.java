package io.cyclium.runtime;

import static io.cyclium.actor.TestActors.expectation;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.FlowControl;
import io.cyclium.actor.Overflow;
import io.cyclium.actor.TestActors;
import io.cyclium.config.NodeMode;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.runtime.FireResult.Kind;
import io.cyclium.store.Jsons;
import io.cyclium.store.NativeSql;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.Concurrently;
import io.cyclium.testing.ManualScheduler;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.OwnDatabases;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import io.cyclium.timing.Jitter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Cluster-wide concurrency limits and priorities on H2, PostgreSQL and MariaDB: the limit is held by
 * the database however many nodes admit at once, a key with a short queue starts while another
 * key's backlog waits, queued work starts by priority, and aging lets old low-priority work through.
 * Each "node" is an actor runtime with its own queue and launcher over the same database.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ConcurrencyLimitsTest {

    private static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

    @RegisterExtension
    final OwnDatabases own = new OwnDatabases();

    private final MutableClock clock = new MutableClock(T0);

    /** A launcher that stores each episode row (the guard frees slots of episodes no longer running). */
    static final class RowsLauncher extends RecordingLauncher {
        private final TestJpa db;

        RowsLauncher(TestJpa db) {
            this.db = db;
        }

        @Override
        public boolean insert(NewEpisode episode, Consumer<Boolean> settled) {
            db.inNewTransaction(em -> new EpisodeStore(db.vendor()).insert(em, episode));
            return super.insert(episode, settled);
        }

        /** As the container's: the row, then the admission in its transaction, the row marked queued when it says no. */
        @Override
        public boolean insert(NewEpisode episode, io.cyclium.execution.InsertAdmission admission, Consumer<Boolean> settled) {
            db.inNewTransaction(em -> {
                EpisodeStore store = new EpisodeStore(db.vendor());
                store.insert(em, episode);
                if (!admission.admit(em, episode.id(), false)) {
                    store.markQueued(em, episode.id(), episode.runNode());
                }
                return null;
            });
            return super.insert(episode, settled);
        }
    }

    /** One node: its runtime, its launcher, its timers. */
    record Node(ActorRuntime rt, RowsLauncher launcher, ManualScheduler timers) {
        FireResult fire(String expectation, String tenant, Integer priority) {
            var payload = Jsons.object();
            if (tenant != null) {
                payload.add("tenant", tenant);
            }
            if (priority != null) {
                payload.add("priority", priority);
            }
            TriggerInfo trigger = new TriggerInfo(TriggerInfo.MANUAL, null, null, payload.build(), null);
            return rt.fire(rt.definition().expectation(expectation).orElseThrow(), trigger, null, false);
        }

        List<String> started() {
            return launcher.startedIds();
        }
    }

    private Node node(TestJpa db, String name, ActorDefinition def, int localSlots, Duration aging) {
        ManualScheduler timers = new ManualScheduler(clock);
        RowsLauncher launcher = new RowsLauncher(db);
        ActorRuntime rt = new ActorRuntime(def, localSlots, launcher, new ActorRuntime.Context(timers, clock, Telemetry.NOOP,
                name, "stack-a", null, new Jitter(Duration.ZERO), () -> NodeMode.FULL))
                .limitedBy(new ClusterConcurrency(db, db, db.vendor(), name, Duration.ofMillis(500), SlotBlocks.DEFAULT_LIFE,
                        this::clockNanos), Duration.ofMillis(500), aging);
        return new Node(rt, launcher, timers);
    }

    /** The nodes' monotonic clock is the test's: how often a node reads other nodes' waiters goes with the timers. */
    private long clockNanos() {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private static ActorDefinition actor(int clusterLimit, ExpectationDefinition... expectations) {
        return new ActorDefinition("worker", TestActors.class, 0, Overflow.QUEUE, new LinkedHashSet<>(), null,
                List.of(expectations), clusterLimit);
    }

    private static ExpectationDefinition keyed(String id, int limit) {
        return expectation(id).build("worker").withFlow(new FlowControl("$.tenant", limit, 0, "priority"));
    }

    private static ExpectationDefinition prioritized(String id) {
        return expectation(id).build("worker").withFlow(new FlowControl(null, 0, 0, "priority"));
    }

    /** The episode's run ended: its row is terminal and its node is told, as a task's exit does. */
    private static void finish(TestJpa db, Node node, String episodeId) {
        db.run(em -> new NativeSql().sql("UPDATE cyclium_episodes SET status = 'done' WHERE id = ").value(episodeId)
                .executeUpdate(em));
        node.rt().exited(episodeId);
    }

    private static int buckets(TestJpa db) {
        return db.inNewTransaction(em -> new RateStore(db.vendor()).buckets(em, "worker/work"));
    }

    private static int slotsInUse(TestJpa db, String scope, String key) {
        return db.inNewTransaction(em -> new ConcurrencyStore(db.vendor()).inUse(em, scope, key));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_database_lets_no_more_than_the_limit_take_a_key_s_slots_however_many_nodes_admit_at_once(Vendor vendor)
            throws InterruptedException {
        TestJpa db = own.open(vendor);
        ConcurrencySlot tenantA = ConcurrencySlot.ofKey("worker", "work", "tenant-a", 3);
        List<String> episodes = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            episodes.add(UUID.randomUUID().toString());
        }
        // running rows, so no slot counts as ended
        for (String id : episodes) {
            db.inNewTransaction(em -> new EpisodeStore(db.vendor()).insert(em, new NewEpisode(id, "worker", "work", null,
                    new TriggerInfo(TriggerInfo.MANUAL, null, null, null, null), null, 3, null, null, true, null, null, null,
                    null)));
        }
        List<Boolean> taken = Concurrently.run(12, i -> new ClusterConcurrency(db, db.vendor(), "node-" + (i % 3))
                .take(episodes.get(i), List.of(tenantA)));

        assertThat(taken.stream().filter(t -> t).count()).as("slots taken").isEqualTo(3);
        assertThat(slotsInUse(db, tenantA.scope(), tenantA.key())).isEqualTo(3);

        // an episode that holds one keeps it (a restart on another node), and one ended frees its own
        String holder = episodes.get(taken.indexOf(true));
        assertThat(new ClusterConcurrency(db, db.vendor(), "node-9").take(holder, List.of(tenantA))).isTrue();
        String waiting = episodes.get(taken.indexOf(false));
        assertThat(new ClusterConcurrency(db, db.vendor(), "node-9").take(waiting, List.of(tenantA))).isFalse();
        db.run(em -> new NativeSql().sql("UPDATE cyclium_episodes SET status = 'failed' WHERE id = ").value(holder)
                .executeUpdate(em));
        assertThat(new ClusterConcurrency(db, db.vendor(), "node-9").take(waiting, List.of(tenantA)))
                .as("the slot of an episode no longer running is freed by the admission that finds the key full").isTrue();
        assertThat(slotsInUse(db, tenantA.scope(), tenantA.key())).isEqualTo(3);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void twenty_takers_of_a_key_far_from_its_limit_at_the_same_moment_all_get_a_slot_at_once(Vendor vendor)
            throws InterruptedException {
        TestJpa db = own.open(vendor);
        // all read the same free numbers: trying the lowest, one would win and nineteen would wait a pass
        ConcurrencySlot wide = ConcurrencySlot.ofKey("worker", "work", "tenant-wide", 10_000);
        List<Boolean> restarts = Concurrently.run(20, i -> new ClusterConcurrency(db, db.vendor(), "node-" + (i % 3))
                .take(UUID.randomUUID().toString(), List.of(wide)));
        assertThat(restarts).as("taken after a read").containsOnly(true);
        // fresh ones, in the transaction that stores them, try a number before reading anything
        ConcurrencySlot fresh = ConcurrencySlot.ofKey("worker", "work", "tenant-fresh", 10_000);
        List<Long> stored = Concurrently.run(20, i -> db.inNewTransaction(em -> new ClusterConcurrency(db, db.vendor(),
                "node-" + (i % 3)).admitIn(em, UUID.randomUUID().toString(), List.of(fresh), List.of(), true)));
        assertThat(stored).as("taken blind").containsOnly(ConcurrencyGate.ADMITTED);
        assertThat(slotsInUse(db, wide.scope(), wide.key()) + slotsInUse(db, fresh.scope(), fresh.key())).isEqualTo(40);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void with_nothing_waiting_a_limited_episode_starts_as_it_is_stored_and_one_stored_behind_a_waiting_one_queues(
            Vendor vendor) {
        TestJpa db = own.open(vendor);
        Node n = node(db, "node-a", actor(0, keyed("work", 1)), 4, Duration.ofSeconds(60));
        FireResult first = n.fire("work", "tenant-a", null);
        assertThat(first.kind()).as("admitted in its storing transaction").isEqualTo(Kind.STARTED);
        assertThat(n.started()).containsExactly(first.episodeId());
        assertThat(slotsInUse(db, "worker/work", "tenant-a")).isEqualTo(1);

        FireResult second = n.fire("work", "tenant-a", null);
        assertThat(second.kind()).as("the key is at its limit").isEqualTo(Kind.QUEUED);
        java.time.LocalDateTime queuedAt = db.inNewTransaction(em -> em.find(io.cyclium.episode.EpisodeEntity.class,
                second.episodeId()).queuedAt);
        assertThat(queuedAt).as("marked queued in the same transaction").isNotNull();
        // B's key is free, but A waits here: B takes the queue's turn too (the queue orders them), in its pass
        FireResult other = n.fire("work", "tenant-b", null);
        assertThat(other.kind()).isEqualTo(Kind.QUEUED);
        n.timers().runDue();
        assertThat(n.started()).containsExactly(first.episodeId(), other.episodeId());

        finish(db, n, first.episodeId());
        assertThat(n.started()).containsExactly(first.episodeId(), other.episodeId(), second.episodeId());
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void waiting_episodes_that_fit_the_free_slots_take_their_cluster_slots_together_in_one_transaction(Vendor vendor) {
        TestJpa db = own.open(vendor);
        io.cyclium.testing.StatementCountingTx writes = new io.cyclium.testing.StatementCountingTx(db);
        java.util.concurrent.atomic.AtomicBoolean paused = new java.util.concurrent.atomic.AtomicBoolean(true);
        ManualScheduler timers = new ManualScheduler(clock);
        RowsLauncher launcher = new RowsLauncher(db);
        ActorRuntime rt = new ActorRuntime(actor(500, keyed("work", 100)), 8, launcher, new ActorRuntime.Context(timers, clock,
                Telemetry.NOOP, "node-a", "stack-a", null, new Jitter(Duration.ZERO), () -> NodeMode.FULL))
                .limitedBy(new ClusterConcurrency(db, writes, db.vendor(), "node-a"), Duration.ofMillis(500), Duration.ofSeconds(60))
                .pausedBy((actorId, expectation) -> paused.get());
        Node n = new Node(rt, launcher, timers);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ids.add(n.fire("work", i % 2 == 0 ? "tenant-a" : "tenant-b", null).episodeId());
        }
        assertThat(n.started()).as("held by the pause").isEmpty();

        paused.set(false);
        rt.wake();
        assertThat(n.started()).as("as many as there are local slots, both keys").hasSize(8)
                .containsAll(List.of(ids.get(0), ids.get(1)));
        assertThat(writes.transactions()).as("one transaction for the eight admissions").isEqualTo(1);
        assertThat(slotsInUse(db, "worker/work", "tenant-a") + slotsInUse(db, "worker/work", "tenant-b")).isEqualTo(8);
        assertThat(slotsInUse(db, "worker", ConcurrencySlot.WHOLE_ACTOR)).isEqualTo(8);
        assertThat(n.rt().queuedCount()).isEqualTo(4);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_slot_given_back_stays_a_free_row_that_the_next_taker_reuses_so_the_table_keeps_as_many_rows_as_were_held_at_once(
            Vendor vendor) {
        TestJpa db = own.open(vendor);
        ClusterConcurrency gate = new ClusterConcurrency(db, db.vendor(), "node-a");
        ConcurrencySlot small = ConcurrencySlot.ofKey("worker", "work", "tenant-small", 3);
        ConcurrencySlot wide = ConcurrencySlot.ofKey("worker", "work", "tenant-wide", 10_000);
        for (int round = 0; round < 5; round++) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String id = UUID.randomUUID().toString();
                ids.add(id);
                // stored fresh: the small key's slot taken after a read, the wide key's blind
                long admitted = db.inNewTransaction(em -> gate.admitIn(em, id, List.of(small, wide), List.of(), true));
                assertThat(admitted).isEqualTo(ConcurrencyGate.ADMITTED);
                gate.holding(id, List.of(small, wide));
            }
            assertThat(slotsInUse(db, small.scope(), small.key()) + slotsInUse(db, wide.scope(), wide.key())).isEqualTo(6);
            if (round % 2 == 0) {
                ids.forEach(gate::release); // the task's exit gives them back
            } else {
                for (String id : ids) { // the terminal write does, in its own commit
                    db.run(em -> gate.releaseIn(em, id));
                    gate.released(id);
                }
            }
            assertThat(slotsInUse(db, small.scope(), small.key()) + slotsInUse(db, wide.scope(), wide.key())).isZero();
        }
        assertThat(slotRows(db, small)).as("rows of the key read before each take").isEqualTo(3);
        assertThat(slotRows(db, wide)).as("rows of the key taken blind: the node reuses the numbers it gave back").isEqualTo(3);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void free_slot_rows_and_waiter_rows_unused_for_a_day_are_deleted_at_most_once_an_hour_and_held_ones_never(Vendor vendor) {
        TestJpa db = own.open(vendor);
        ClusterConcurrency gate = new ClusterConcurrency(db, db.vendor(), "node-a");
        ConcurrencySlot quiet = ConcurrencySlot.ofKey("worker", "work", "tenant-quiet", 3);
        ConcurrencySlot busy = ConcurrencySlot.ofKey("worker", "work", "tenant-busy", 3);
        String gone = UUID.randomUUID().toString();
        String running = UUID.randomUUID().toString();
        String recent = UUID.randomUUID().toString();
        assertThat(gate.take(gone, List.of(quiet))).isTrue();
        assertThat(gate.take(running, List.of(busy))).isTrue();
        assertThat(gate.take(recent, List.of(busy))).isTrue();
        gate.release(gone);
        gate.release(recent);
        // the quiet key's free row and the running episode's row were taken two days ago
        db.run(em -> new NativeSql().sql("UPDATE cyclium_concurrency_slots SET taken_at = ")
                .around(-2 * 86_400, db.vendor()::utcNowPlusSeconds).sql(" WHERE episode_id IS NULL AND concurrency_key = ")
                .value("tenant-quiet").sql(" OR episode_id = ").value(running).executeUpdate(em));
        // and the waiter rows of a node that stopped two days ago and of one waiting now
        ConcurrencyWaiters waiters = new ConcurrencyWaiters(db.vendor());
        db.run(em -> {
            waiters.waiting(em, busy, "node-stopped", 0);
            waiters.waiting(em, busy, "node-waiting", 0);
            new NativeSql().sql("UPDATE cyclium_concurrency_waiters SET seen_at = ").around(-2 * 86_400,
                    db.vendor()::utcNowPlusSeconds).sql(" WHERE node_identity = 'node-stopped'").executeUpdate(em);
        });
        IdleSlotCleanup cleanup = new IdleSlotCleanup(db, db.vendor(), clock);

        assertThat(cleanup.runIfDue()).as("not within an hour of the node's start").isZero();
        clock.advance(Duration.ofHours(1));
        assertThat(cleanup.runIfDue()).as("the quiet key's free row and the stopped node's waiter row").isEqualTo(2);
        assertThat(slotRows(db, quiet)).isZero();
        assertThat(waiterNodes(db)).containsExactly("node-waiting");
        assertThat(slotRows(db, busy)).as("a held row however old, and a free one given back just now").isEqualTo(2);
        assertThat(slotsInUse(db, busy.scope(), busy.key())).isEqualTo(1);
        clock.advance(Duration.ofMinutes(59));
        db.run(em -> new NativeSql().sql("UPDATE cyclium_concurrency_slots SET taken_at = ")
                .around(-2 * 86_400, db.vendor()::utcNowPlusSeconds).sql(" WHERE episode_id IS NULL").executeUpdate(em));
        assertThat(cleanup.runIfDue()).as("an hour has not passed since the last").isZero();
    }

    private static int slotRows(TestJpa db, ConcurrencySlot slot) {
        return db.inNewTransaction(em -> ((Number) new NativeSql().sql("SELECT COUNT(*) FROM cyclium_concurrency_slots WHERE scope = ")
                .value(slot.scope()).sql(" AND concurrency_key = ").value(slot.key()).query(em).getSingleResult()).intValue());
    }

    @org.junit.jupiter.api.Test
    void a_free_number_is_drawn_among_the_free_ones_only_and_none_when_all_are_used() {
        java.util.Set<Integer> used = new java.util.HashSet<>(List.of(0, 1, 3));
        java.util.Set<Integer> drawn = new java.util.HashSet<>();
        for (int i = 0; i < 200; i++) {
            drawn.add(ConcurrencyStore.randomFree(used, 5));
        }
        assertThat(drawn).as("every free number, nothing else").containsExactlyInAnyOrder(2, 4);
        assertThat(ConcurrencyStore.randomFree(java.util.Set.of(0, 1, 2), 3)).isEqualTo(-1);
        // a number above a lowered limit is not a free one below it
        assertThat(ConcurrencyStore.randomFree(java.util.Set.of(0, 7), 2)).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void two_nodes_admitting_one_key_at_once_never_run_more_than_its_limit_and_a_finished_run_lets_the_next_start(
            Vendor vendor) throws InterruptedException {
        TestJpa db = own.open(vendor);
        ActorDefinition def = actor(0, keyed("work", 2));
        Node a = node(db, "node-a", def, 10, Duration.ofSeconds(60));
        Node b = node(db, "node-b", def, 10, Duration.ofSeconds(60));
        // both nodes store at the same moment: each admits in its storing transaction while its
        // queue is empty, and a refused one queues (the row marked queued in that transaction)
        List<Kind> kinds = java.util.Collections.synchronizedList(new ArrayList<>());
        Concurrently.run(2, i -> {
            for (int k = 0; k < 6; k++) {
                kinds.add((i == 0 ? a : b).fire("work", "tenant-a", null).kind());
            }
            return null;
        });
        assertThat(kinds).as("stored, never dropped").containsOnly(Kind.STARTED, Kind.QUEUED);
        assertThat(kinds.stream().filter(k -> k == Kind.STARTED).count()).as("started as stored").isLessThanOrEqualTo(2);

        // both nodes' admission passes at the same instant
        Concurrently.run(2, i -> {
            (i == 0 ? a : b).timers().runDue();
            return null;
        });
        List<String> running = new ArrayList<>(a.started());
        running.addAll(b.started());
        assertThat(running).as("started across both nodes").hasSize(2);
        int markedQueued = db.inNewTransaction(em -> ((Number) new NativeSql().sql("SELECT COUNT(*) FROM cyclium_episodes"
                + " WHERE queued_at IS NOT NULL").query(em).getSingleResult()).intValue());
        assertThat(markedQueued).as("the waiting rows say they wait in a node's queue").isEqualTo(10);
        assertThat(slotsInUse(db, "worker/work", "tenant-a")).isEqualTo(2);
        assertThat(a.rt().waitingForLimitCount() + b.rt().waitingForLimitCount()).as("queued for the key").isEqualTo(10);

        // one run ends on its node: the next start may come from either node, still at most two
        String first = running.get(0);
        Node owner = a.started().contains(first) ? a : b;
        Node other = owner == a ? b : a;
        finish(db, owner, first);
        other.timers().advance(Duration.ofMillis(500));
        owner.timers().advance(Duration.ofMillis(500));
        int total = a.started().size() + b.started().size();
        assertThat(total).as("one more started").isEqualTo(3);
        assertThat(slotsInUse(db, "worker/work", "tenant-a")).isEqualTo(2);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_s_backlog_of_a_key_gives_way_to_more_urgent_work_of_that_key_waiting_on_another_node(Vendor vendor)
            throws InterruptedException {
        TestJpa db = own.open(vendor);
        Node[] nodes = twoNodesOnAKeyOfOne(db);
        Node a = nodes[0];
        Node b = nodes[1];
        String running = a.fire("work", "tenant-a", null).episodeId();
        assertThat(a.started()).as("the key's one slot").containsExactly(running);
        List<String> backlog = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            backlog.add(a.fire("work", "tenant-a", null).episodeId());
        }
        clock.advance(Duration.ofSeconds(1));
        String urgent = b.fire("work", "tenant-a", 5).episodeId();
        // both nodes' rechecks find the key full; b's says so on the database
        b.timers().advance(Duration.ofMillis(500));
        a.timers().advance(Duration.ofMillis(500));
        assertThat(b.started()).isEmpty();
        assertThat(waiterRows(db)).as("a waiter row per node whose queued work found the key full").isEqualTo(2);

        // the slot comes back on a, whose pass runs at once: without the waiter row its backlog
        // would take every slot it frees, and b's urgent work would wait for all of it
        finish(db, a, running);
        assertThat(a.started()).as("a leaves the freed slot to b's more urgent work").containsExactly(running);
        b.timers().advance(Duration.ofMillis(500));
        assertThat(b.started()).as("b's next pass takes it").containsExactly(urgent);
        assertThat(slotsInUse(db, "worker/work", "tenant-a")).isEqualTo(1);

        // b waits for nothing any more (its row went with its admission): a's backlog goes on in its order
        finish(db, b, urgent);
        a.timers().advance(Duration.ofMillis(500));
        assertThat(a.started()).containsExactly(running, backlog.get(0));
        assertThat(waiterNodes(db)).as("b's row is gone; a's rest of the backlog still waits").containsExactly("node-a");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_gives_way_only_to_work_waiting_longer_than_the_margin_and_its_own_slot_stays_busy_otherwise(Vendor vendor)
            throws InterruptedException {
        TestJpa db = own.open(vendor);
        Node[] nodes = twoNodesOnAKeyOfOne(db);
        Node a = nodes[0];
        Node b = nodes[1];
        String running = a.fire("work", "tenant-a", null).episodeId();
        String older = b.fire("work", "tenant-a", null).episodeId();
        clock.advance(Duration.ofSeconds(1));
        String next = a.fire("work", "tenant-a", null).episodeId();
        clock.advance(Duration.ofSeconds(2));
        String last = a.fire("work", "tenant-a", null).episodeId();
        b.timers().advance(Duration.ofMillis(500));
        a.timers().advance(Duration.ofMillis(500));
        assertThat(waiterRows(db)).isEqualTo(2);

        // b's work came 1 s before a's next: within the margin (four rechecks, 2 s), so a's own pass
        // keeps the freed slot busy instead of leaving it idle until b's next recheck
        finish(db, a, running);
        assertThat(a.started()).containsExactly(running, next);
        // b's work came 3 s before a's last: past the margin, so a gives way this time
        clock.advance(Duration.ofMillis(600)); // a reads the other nodes' rows at most once per recheck interval
        finish(db, a, next);
        assertThat(a.started()).as("a leaves the slot to b's older work").containsExactly(running, next);
        b.timers().advance(Duration.ofMillis(500));
        assertThat(b.started()).containsExactly(older);
        assertThat(a.started()).doesNotContain(last);
    }

    /** Nodes a and b of an actor whose key has a limit of one. */
    private Node[] twoNodesOnAKeyOfOne(TestJpa db) {
        ActorDefinition def = actor(0, keyed("work", 1));
        return new Node[] {node(db, "node-a", def, 10, Duration.ofSeconds(60)), node(db, "node-b", def, 10, Duration.ofSeconds(60))};
    }

    private static int waiterRows(TestJpa db) {
        return waiterNodes(db).size();
    }

    private static List<String> waiterNodes(TestJpa db) {
        return db.inNewTransaction(em -> new NativeSql().sql("SELECT node_identity FROM cyclium_concurrency_waiters ORDER BY node_identity")
                .query(em).getResultList().stream().map(String.class::cast).toList());
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_key_with_a_short_queue_starts_in_the_same_pass_while_another_key_s_backlog_waits(Vendor vendor) {
        TestJpa db = own.open(vendor);
        Node n = node(db, "node-a", actor(0, keyed("work", 2)), 4, Duration.ofSeconds(60));
        List<String> aIds = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            aIds.add(n.fire("work", "tenant-a", null).episodeId());
        }
        List<String> bIds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            bIds.add(n.fire("work", "tenant-b", null).episodeId());
        }
        n.timers().runDue();

        assertThat(n.started()).as("two of A (its limit), two of B, within the first pass")
                .containsExactlyInAnyOrder(aIds.get(0), aIds.get(1), bIds.get(0), bIds.get(1));
        io.cyclium.operations.ConcurrencyWaits waits = new io.cyclium.operations.ConcurrencyWaits(db.vendor(),
                (actor, exp, key) -> n.rt().limitsOf(exp, key));
        var view = db.inNewTransaction(em -> waits.views(em, List.of(em.find(io.cyclium.episode.EpisodeEntity.class,
                aIds.get(5)))).get(0));
        assertThat(view.concurrencyKey()).isEqualTo("tenant-a");
        assertThat(view.queuedBecause()).as("what the console shows").isEqualTo("key tenant-a at limit 2/2");

        // a B run ends: B's third starts, A's backlog still waits for its own key
        finish(db, n, bIds.get(0));
        assertThat(n.started()).contains(bIds.get(2)).doesNotContain(aIds.get(2));
        finish(db, n, aIds.get(0));
        assertThat(n.started()).contains(aIds.get(2));
        assertThat(slotsInUse(db, "worker/work", "tenant-a")).isEqualTo(2);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_next_start_goes_to_the_key_that_started_least_recently_whatever_the_order_of_arrival(Vendor vendor) {
        TestJpa db = own.open(vendor);
        // two local slots, each key could use five: only the turn between keys decides who starts
        Node n = node(db, "node-a", actor(0, keyed("work", 5)), 2, Duration.ofSeconds(60));
        // the two local slots busy (started as stored: nothing waited), so that A and B queue
        String c0 = n.fire("work", "tenant-c", null).episodeId();
        String c1 = n.fire("work", "tenant-c", null).episodeId();
        assertThat(n.started()).containsExactly(c0, c1);
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            a.add(n.fire("work", "tenant-a", null).episodeId());
        }
        for (int i = 0; i < 10; i++) {
            b.add(n.fire("work", "tenant-b", null).episodeId());
        }
        n.timers().runDue();
        assertThat(n.started()).as("nothing passes the busy slots").containsExactly(c0, c1);
        finish(db, n, c0);
        finish(db, n, c1);
        assertThat(n.started()).as("one of each, not two of the first to arrive").containsExactly(c0, c1, a.get(0), b.get(0));

        finish(db, n, a.get(0));
        finish(db, n, b.get(0));
        finish(db, n, a.get(1));
        assertThat(n.started()).containsExactly(c0, c1, a.get(0), b.get(0), a.get(1), b.get(1), a.get(2));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void queued_work_starts_in_priority_order_and_aging_lets_long_waiting_low_priority_work_through(Vendor vendor) {
        TestJpa db = own.open(vendor);
        Node n = node(db, "node-a", actor(0, prioritized("work")), 1, Duration.ofSeconds(60));
        String busy = n.fire("work", null, 0).episodeId();
        assertThat(n.started()).containsExactly(busy);
        String low = n.fire("work", null, 0).episodeId();
        String high = n.fire("work", null, 5).episodeId();
        String middle = n.fire("work", null, 1).episodeId();

        finish(db, n, busy);
        finish(db, n, high);
        finish(db, n, middle);
        assertThat(n.started()).as("by priority, not arrival").containsExactly(busy, high, middle, low);

        // aging: one level per minute waited; low priority work queued 4 minutes ago beats a fresh 3
        finish(db, n, low);
        String blocker = n.fire("work", null, 0).episodeId();
        String old = n.fire("work", null, 0).episodeId();
        clock.advance(Duration.ofMinutes(4));
        String fresh = n.fire("work", null, 3).episodeId();
        finish(db, n, blocker);
        assertThat(n.started()).endsWith(blocker, old);
        finish(db, n, old);
        assertThat(n.started()).endsWith(old, fresh);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_operator_s_own_priority_orders_the_queue_of_an_actor_that_declares_no_flow_control(Vendor vendor) {
        TestJpa db = own.open(vendor);
        Node n = node(db, "node-a", actor(0, expectation("work").build("worker")), 1, Duration.ofSeconds(60));
        ExpectationDefinition work = n.rt().definition().expectation("work").orElseThrow();
        TriggerInfo manual = new TriggerInfo(TriggerInfo.MANUAL, null, null, null, null);
        String busy = n.rt().fire(FireRequest.of(work, manual, null, true)).episodeId();
        String first = n.rt().fire(FireRequest.of(work, manual, null, true)).episodeId();
        String urgent = n.rt().fire(FireRequest.of(work, manual, null, true).atPriority(7)).episodeId();
        assertThat(n.launcher().inserted.get(2).priority()).isEqualTo(7);

        finish(db, n, busy);
        assertThat(n.started()).containsExactly(busy, urgent);
        finish(db, n, urgent);
        assertThat(n.started()).containsExactly(busy, urgent, first);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_actor_wide_cluster_limit_holds_across_nodes_and_expectations(Vendor vendor) {
        TestJpa db = own.open(vendor);
        ActorDefinition def = actor(3, expectation("one").build("worker"), expectation("two").build("worker"));
        Node a = node(db, "node-a", def, 5, Duration.ofSeconds(60));
        Node b = node(db, "node-b", def, 5, Duration.ofSeconds(60));
        for (int i = 0; i < 4; i++) {
            a.fire("one", null, null);
            b.fire("two", null, null);
        }
        a.timers().runDue();
        b.timers().runDue();
        assertThat(a.started().size() + b.started().size()).isEqualTo(3);
        assertThat(slotsInUse(db, "worker", ConcurrencySlot.WHOLE_ACTOR)).isEqualTo(3);
        String ended = a.started().isEmpty() ? b.started().get(0) : a.started().get(0);
        finish(db, a.started().contains(ended) ? a : b, ended);
        a.timers().advance(Duration.ofMillis(500));
        b.timers().advance(Duration.ofMillis(500));
        assertThat(a.started().size() + b.started().size()).isEqualTo(4);
        assertThat(slotsInUse(db, "worker", ConcurrencySlot.WHOLE_ACTOR)).isEqualTo(3);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_rate_limit_starts_at_most_its_burst_at_once_across_nodes_and_the_rest_start_as_their_tokens_come_due(
            Vendor vendor) throws InterruptedException {
        TestJpa db = own.open(vendor);
        ExpectationDefinition rated = expectation("work").build("worker")
                .withFlow(new FlowControl(null, 0, 0, null, 4, Duration.ofSeconds(10)));
        ActorDefinition def = actor(0, rated);
        Node a = node(db, "node-a", def, 20, Duration.ofSeconds(60));
        Node b = node(db, "node-b", def, 20, Duration.ofSeconds(60));
        long began = System.nanoTime();
        // both nodes store at once, each taking a token in the storing transaction while its queue is empty
        List<Kind> kinds = java.util.Collections.synchronizedList(new ArrayList<>());
        Concurrently.run(2, i -> {
            for (int k = 0; k < 6; k++) {
                kinds.add((i == 0 ? a : b).fire("work", null, null).kind());
            }
            return null;
        });
        assertThat(kinds).as("stored, never dropped").containsOnly(Kind.STARTED, Kind.QUEUED);
        Concurrently.run(2, i -> {
            (i == 0 ? a : b).timers().runDue();
            return null;
        });
        assertThat(a.started().size() + b.started().size()).as("the burst: a full bucket, cluster-wide").isEqualTo(4);
        assertThat(a.rt().waitingForRateCount() + b.rt().waitingForRateCount()).isEqualTo(8);
        String queued = (a.rt().waitingForRateCount() > 0 ? a : b).launcher.inserted.stream().map(NewEpisode::id)
                .filter(id -> !a.started().contains(id) && !b.started().contains(id)).findFirst().orElseThrow();
        io.cyclium.operations.ConcurrencyWaits waits = new io.cyclium.operations.ConcurrencyWaits(db.vendor(),
                (actor, exp, key) -> List.of(), (actor, exp, key) -> a.rt().ratesOf(exp, key));
        String why = db.inNewTransaction(em -> waits.views(em, List.of(em.find(io.cyclium.episode.EpisodeEntity.class, queued)))
                .get(0).queuedBecause());
        assertThat(why).as("its due time is visible").startsWith("rate of worker/work 4 per PT10S, next start due in ")
                .endsWith(" ms (database clock)");

        // 2.5 s of the database's clock refill one token: a pass after it starts one more, not all
        Thread.sleep(2_600);
        a.timers().advance(Duration.ofMillis(500));
        b.timers().advance(Duration.ofMillis(500));
        double seconds = (System.nanoTime() - began) / 1e9;
        int started = a.started().size() + b.started().size();
        assertThat(started).as("after %.2f s", seconds).isBetween(5, 4 + (int) Math.ceil(seconds * 0.4));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void work_of_another_expectation_queued_behind_episodes_waiting_for_a_rate_starts_in_the_same_pass(Vendor vendor) {
        TestJpa db = own.open(vendor);
        // one token a minute for "work", nothing declared for "plain": neither has a key, so all of
        // the actor's queued work is one group, and the ones waiting for the token do not hold up the other
        ExpectationDefinition rated = expectation("work").build("worker")
                .withFlow(new FlowControl(null, 0, 0, null, 1, Duration.ofSeconds(60)));
        Node n = node(db, "node-a", actor(0, rated, expectation("plain").build("worker")), 1, Duration.ofSeconds(60));
        String first = n.fire("work", null, null).episodeId();
        String second = n.fire("work", null, null).episodeId();
        String third = n.fire("work", null, null).episodeId();
        String plain = n.fire("plain", null, null).episodeId();
        assertThat(n.started()).as("one local slot: the token's first episode").containsExactly(first);

        finish(db, n, first);
        assertThat(n.started()).as("the bucket is dry until next minute: the plain episode starts in this pass")
                .containsExactly(first, plain);
        assertThat(n.started()).doesNotContain(second, third);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_rate_per_key_gives_each_key_its_own_burst_across_nodes_and_the_waiting_key_shows_its_due_time(Vendor vendor) {
        TestJpa db = own.open(vendor);
        ExpectationDefinition rated = expectation("work").build("worker")
                .withFlow(new FlowControl("$.tenant", 0, 0, null, 3, Duration.ofSeconds(10), true, null));
        ActorDefinition def = actor(0, rated);
        Node a = node(db, "node-a", def, 20, Duration.ofSeconds(60));
        Node b = node(db, "node-b", def, 20, Duration.ofSeconds(60));
        List<String> ofA = new ArrayList<>();
        List<String> ofB = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ofA.add((i % 2 == 0 ? a : b).fire("work", "tenant-a", null).episodeId());
            ofB.add((i % 2 == 0 ? b : a).fire("work", "tenant-b", null).episodeId());
        }
        a.timers().runDue();
        b.timers().runDue();
        List<String> started = new ArrayList<>(a.started());
        started.addAll(b.started());
        assertThat(started.stream().filter(ofA::contains).count()).as("tenant-a: its own 3").isEqualTo(3);
        assertThat(started.stream().filter(ofB::contains).count()).as("tenant-b: its own 3, not what A left").isEqualTo(3);
        assertThat(buckets(db)).isEqualTo(2);

        String queued = ofB.stream().filter(id -> !started.contains(id)).findFirst().orElseThrow();
        io.cyclium.operations.ConcurrencyWaits waits = new io.cyclium.operations.ConcurrencyWaits(db.vendor(),
                (actor, exp, key) -> a.rt().limitsOf(exp, key), (actor, exp, key) -> a.rt().ratesOf(exp, key));
        var view = db.inNewTransaction(em -> waits.views(em, List.of(em.find(io.cyclium.episode.EpisodeEntity.class, queued)))
                .get(0));
        assertThat(view.concurrencyKey()).isEqualTo("tenant-b");
        assertThat(view.queuedBecause()).startsWith("rate of worker/work key tenant-b 3 per PT10S, next start due in ")
                .endsWith(" ms (database clock)");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_buckets_of_keys_idle_for_a_whole_period_are_deleted_when_a_new_key_s_bucket_is_created(Vendor vendor)
            throws InterruptedException {
        TestJpa db = own.open(vendor);
        ExpectationDefinition rated = expectation("work").build("worker")
                .withFlow(new FlowControl("$.tenant", 0, 0, null, 1, Duration.ofMillis(2_000), true, null));
        Node n = node(db, "node-a", actor(0, rated), 50, Duration.ofSeconds(60));
        for (int i = 0; i < 20; i++) {
            n.fire("work", "tenant-" + i, null);
        }
        n.timers().runDue();
        assertThat(n.started()).hasSize(20);
        assertThat(buckets(db)).as("within the period, each key keeps its bucket").isEqualTo(20);

        Thread.sleep(2_100); // the database's clock: every bucket has refilled to its cap, the same as no row
        n.fire("work", "tenant-new", null);
        n.timers().runDue();
        assertThat(n.started()).hasSize(21);
        assertThat(buckets(db)).as("only the new key's").isEqualTo(1);
    }

    /** The tenant is the part of the order id before the dash; "boom" throws, "none" answers null. */
    public static final class TenantOfOrder implements io.cyclium.actor.ConcurrencyKeyFunction {
        @Override
        public String keyOf(TriggerInfo trigger) {
            String order = trigger.payload().getString("order");
            if (order.equals("boom")) {
                throw new IllegalStateException("no such order");
            }
            return order.equals("none") ? null : order.substring(0, order.indexOf('-'));
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_key_function_s_answer_is_the_key_and_a_failing_or_empty_one_runs_under_a_key_of_its_own(Vendor vendor) {
        TestJpa db = own.open(vendor);
        ExpectationDefinition keyed = expectation("work").build("worker")
                .withFlow(new FlowControl(null, 1, 0, null, 0, Duration.ZERO, false, TenantOfOrder.class));
        Node n = node(db, "node-a", actor(0, keyed), 10, Duration.ofSeconds(60));
        List<String> ids = new ArrayList<>();
        for (String order : List.of("acme-1", "acme-2", "globex-1", "boom", "boom", "none")) {
            var payload = Jsons.object().add("order", order).build();
            ids.add(n.rt().fire(n.rt().definition().expectation("work").orElseThrow(),
                    new TriggerInfo(TriggerInfo.MANUAL, null, null, payload, null), null, false).episodeId());
        }
        n.timers().runDue();
        assertThat(n.started()).as("one per key: acme, globex, the failed function's, no key")
                .containsExactlyInAnyOrder(ids.get(0), ids.get(2), ids.get(3), ids.get(5));
        assertThat(ids.stream().map(id -> db.inNewTransaction(em -> new ConcurrencyStore(db.vendor()).keysOf(em, id).key())).toList())
                .containsExactly("acme", "acme", "globex", FlowControl.KEY_FAILED, FlowControl.KEY_FAILED, FlowControl.NO_KEY);
        assertThat(slotsInUse(db, "worker/work", "acme")).isEqualTo(1);
        finish(db, n, ids.get(0));
        assertThat(n.started()).contains(ids.get(1));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_workflow_step_s_own_key_holds_its_limit_across_nodes_on_an_actor_that_declares_nothing_and_a_resume_elsewhere_takes_it_again(
            Vendor vendor) {
        TestJpa db = own.open(vendor);
        ActorDefinition def = actor(0, expectation("work").build("worker"));
        assertThat(def.flowControlled()).as("nothing declared on the actor or its expectation").isFalse();
        Node a = node(db, "node-a", def, 10, Duration.ofSeconds(60));
        Node b = node(db, "node-b", def, 10, Duration.ofSeconds(60));
        String scope = ConcurrencySlot.ofStep("orders", "charge");
        List<String> acme = new ArrayList<>();
        List<String> globex = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            acme.add(fireStep(i % 2 == 0 ? a : b, new NewEpisode.StepKey(scope, "acme", 2)));
            globex.add(fireStep(i % 2 == 0 ? b : a, new NewEpisode.StepKey(scope, "globex", 2)));
        }
        a.timers().runDue();
        b.timers().runDue();
        List<String> started = new ArrayList<>(a.started());
        started.addAll(b.started());
        assertThat(started.stream().filter(acme::contains).count()).as("acme: its limit of 2, cluster-wide").isEqualTo(2);
        assertThat(started.stream().filter(globex::contains).count()).as("globex: its own 2").isEqualTo(2);
        assertThat(slotsInUse(db, scope, "acme")).isEqualTo(2);

        String waiting = acme.stream().filter(id -> !started.contains(id)).findFirst().orElseThrow();
        io.cyclium.operations.ConcurrencyWaits waits = new io.cyclium.operations.ConcurrencyWaits(db.vendor(),
                (actor, exp, key) -> a.rt().limitsOf(exp, key));
        String why = db.inNewTransaction(em -> waits.views(em, List.of(em.find(io.cyclium.episode.EpisodeEntity.class, waiting)))
                .get(0).queuedBecause());
        assertThat(why).isEqualTo("step orders/charge key acme at limit 2/2");

        // an acme run ends: one more acme starts, never a third at once
        String ended = started.stream().filter(acme::contains).findFirst().orElseThrow();
        finish(db, a.started().contains(ended) ? a : b, ended);
        a.timers().advance(Duration.ofMillis(500));
        b.timers().advance(Duration.ofMillis(500));
        assertThat(a.started().size() + b.started().size()).isEqualTo(5);
        assertThat(slotsInUse(db, scope, "acme")).isEqualTo(2);

        // a resume of a step episode (its wait resolved) on a third node takes its step's slot again from its row
        Node c = node(db, "node-c", def, 10, Duration.ofSeconds(60));
        // c has launched no keyed step and read no definition: the row tells it
        String last = acme.stream().filter(id -> !a.started().contains(id) && !b.started().contains(id)).findFirst()
                .orElseThrow();
        (a.launcher.inserted.stream().anyMatch(e -> e.id().equals(last)) ? a : b).rt().dequeue(last);
        c.rt().resume(last, "work");
        c.timers().runDue();
        assertThat(c.started()).as("acme is at its limit on the other nodes").doesNotContain(last);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_that_never_read_the_definitions_restarts_a_keyed_step_s_episode_and_takes_the_step_slot(Vendor vendor) {
        TestJpa db = own.open(vendor);
        ActorDefinition def = actor(0, expectation("work").build("worker"));
        Node a = node(db, "node-a", def, 10, Duration.ofSeconds(60));
        String scope = ConcurrencySlot.ofStep("orders", "charge");
        String first = fireStep(a, new NewEpisode.StepKey(scope, "acme", 1));
        String second = fireStep(a, new NewEpisode.StepKey(scope, "acme", 1));
        a.timers().runDue();
        assertThat(a.started()).containsExactly(first);
        // node-a stops before it starts the second; a fresh node restarts it (recovery, a resolved
        // wait): it has fired no keyed step and read no workflow definition since its boot
        a.rt().dequeue(second);
        Node fresh = node(db, "node-fresh", def, 10, Duration.ofSeconds(60));
        fresh.rt().recover(second, null, "work");
        fresh.timers().runDue();
        assertThat(fresh.started()).as("the step's limit of 1 is held by the first").isEmpty();

        finish(db, a, first);
        fresh.timers().advance(Duration.ofMillis(500));
        assertThat(fresh.started()).as("the slot is free: the fresh node's recheck starts it").containsExactly(second);
        List<Object> holders = db.inNewTransaction(em -> new NativeSql().sql("SELECT episode_id FROM cyclium_concurrency_slots"
                + " WHERE scope = ").value(scope).sql(" AND concurrency_key = ").value("acme")
                .sql(" AND episode_id IS NOT NULL").query(em).getResultList().stream().map(Object.class::cast).toList());
        assertThat(holders).as("it holds the step's slot").containsExactly((Object) second);
    }

    private static String fireStep(Node n, NewEpisode.StepKey key) {
        TriggerInfo trigger = new TriggerInfo(TriggerInfo.WORKFLOW, null, null, Jsons.object().build(), null);
        return n.rt().fire(FireRequest.of(n.rt().definition().expectation("work").orElseThrow(), trigger, null, true)
                .underStepKey(key)).episodeId();
    }
}
