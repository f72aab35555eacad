package io.cyclium.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.audit.AuditAction;
import io.cyclium.audit.AuditEntry;
import io.cyclium.audit.AuditStore;
import io.cyclium.audit.Operator;
import io.cyclium.audit.PendingAudit;
import io.cyclium.problem.Problem;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.GroupCommit;
import io.cyclium.store.Tx;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.json.Json;
import jakarta.persistence.EntityManager;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A start of one instance takes a seat in the node's group commit on PostgreSQL
 * ({@link WorkflowEngine#startsShareBatchesOf}): starts arriving together commit together, with the
 * episodes' and steps' terminal writes, instead of one transaction each. Its refusal leaves the
 * shared transaction to the others; its audit row is written in that transaction though the
 * writer's thread is not the caller's; a commit whose answer was lost does not turn its own
 * instance into a 409. Real databases, a real group commit and writer thread.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class StartOfOneInstanceSharesTheBatchTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final String NODE = "start-node";

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-07T18:00:00Z"));
    final RecordingTelemetry telemetry = new RecordingTelemetry();

    private record Rig(TestJpa db, WorkflowDefinition def, StepEpisodes episodes, WorkflowEngine engine) {
    }

    private Rig rig(Vendor vendor, Tx seats) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinition def = new WorkflowDefinition("wf-" + UUID.randomUUID().toString().substring(0, 8), "", List.of(),
                List.of(StepAdvancesInItsCommitTest.step("a"), StepAdvancesInItsCommitTest.step("b", "a")));
        StepEpisodes episodes = new StepEpisodes(db);
        WorkflowEngine engine = new WorkflowEngine(db, new WorkflowStore(DatabaseTime.following(db.vendor(), clock), NODE),
                new WorkflowQueries(db.vendor()), id -> id.equals(def.id()) ? Optional.of(def) : Optional.empty(), episodes,
                clock, telemetry, () -> 0.5).startsShareBatchesOf(seats);
        return new Rig(db, def, episodes, engine);
    }

    private static WorkflowEngine.Start forSubject(String subject) {
        return new WorkflowEngine.Start(Json.createObjectBuilder().build(), subject, null, null, null, "test");
    }

    /** A start of {@code subject} on another thread, as an operator's audited action there. */
    private static Callable<List<InstanceRow>> auditedStart(Rig rig, String subject, PendingAudit[] bound) {
        return () -> {
            AuditEntry entry = AuditEntry.of(new Operator("ops", "127.0.0.1"), NODE, AuditAction.WORKFLOW_START, rig.def().id());
            try (PendingAudit pending = PendingAudit.bind(entry, new AuditStore(rig.db().vendor()))) {
                bound[0] = pending;
                return rig.engine().startAllAndRead(rig.def(), List.of(forSubject(subject)));
            }
        };
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = "POSTGRESQL")
    void two_starts_of_one_instance_arriving_together_commit_in_one_shared_transaction_with_their_audit_rows(Vendor vendor)
            throws Exception {
        TestJpa db = databases.jpa(vendor);
        List<Integer> batches = new CopyOnWriteArrayList<>();
        GroupCommit group = GroupCommit.start(db, Executors.defaultThreadFactory(), 64, 1, batches::add, true);
        Rig rig = rig(vendor, group);
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            Future<?> holder = holdWriter(threads, group);
            PendingAudit[] first = new PendingAudit[1];
            PendingAudit[] second = new PendingAudit[1];
            Future<List<InstanceRow>> one = threads.submit(auditedStart(rig, "s1", first));
            Future<List<InstanceRow>> two = threads.submit(auditedStart(rig, "s2", second));
            awaitWaiting(group, 2, "both starts wait for the writer");
            release(holder);

            InstanceRow s1 = one.get(30, TimeUnit.SECONDS).get(0);
            InstanceRow s2 = two.get(30, TimeUnit.SECONDS).get(0);
            assertThat(batches).as("both starts in one shared transaction").containsExactly(2);
            for (InstanceRow started : List.of(s1, s2)) {
                assertThat(started.status()).as("answered as stored, its first step launched").isEqualTo(InstanceStatus.RUNNING);
                assertThat(rig.episodes().only(started.id(), "a", 1).episodeId()).isNotNull();
                assertThat(rig.episodes().launches(started.id(), 1)).as("b waits for a").isEqualTo(1);
            }
            // written on the writer's thread, in the shared transaction, for the callers' actions
            assertThat(first[0].written()).isTrue();
            assertThat(second[0].written()).isTrue();
            assertThat(auditDetail(db, first[0])).isEqualTo("instance " + s1.id());
            assertThat(auditDetail(db, second[0])).isEqualTo("instance " + s2.id());
            assertThat(telemetry.count("workflow_instance_started")).isEqualTo(2);
        } finally {
            group.close();
            threads.shutdownNow();
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = "POSTGRESQL")
    void a_start_refused_in_a_shared_transaction_answers_409_and_leaves_the_other_start_of_its_batch_committed(Vendor vendor)
            throws Exception {
        TestJpa db = databases.jpa(vendor);
        List<Integer> batches = new CopyOnWriteArrayList<>();
        GroupCommit group = GroupCommit.start(db, Executors.defaultThreadFactory(), 64, 1, batches::add, true);
        Rig rig = rig(vendor, group);
        String inFlight = rig.engine().start(rig.def(), forSubject("busy")); // a batch of one: alone
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            Future<?> holder = holdWriter(threads, group);
            PendingAudit[] refusedAudit = new PendingAudit[1];
            Future<List<InstanceRow>> refused = threads.submit(auditedStart(rig, "busy", refusedAudit));
            Future<List<InstanceRow>> other = threads.submit(auditedStart(rig, "free", new PendingAudit[1]));
            awaitWaiting(group, 2, "both starts wait for the writer");
            batches.clear();
            release(holder);

            InstanceRow free = other.get(30, TimeUnit.SECONDS).get(0);
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> refused.get(30, TimeUnit.SECONDS)).getCause())
                    .isInstanceOf(Problem.class).hasMessageContaining("\"busy\"").hasMessageContaining(inFlight);
            assertThat(batches).as("the refusal failed no shared transaction: nothing ran again alone").containsExactly(2);
            assertThat(free.status()).isEqualTo(InstanceStatus.RUNNING);
            assertThat(rig.episodes().only(free.id(), "a", 1).episodeId()).isNotNull();
            assertThat(count(db, "SELECT COUNT(*) FROM cyclium_workflow_instances WHERE workflow_id = ?1 AND subject_value = 'busy'",
                    rig.def().id())).isEqualTo(1);
            assertThat(refusedAudit[0].written()).as("the refused start wrote no ok row").isFalse();
            assertThat(refusedAudit[0].entry().detail()).as("and names no instance it did not store").isNull();
        } finally {
            group.close();
            threads.shutdownNow();
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_seated_start_whose_shared_commit_landed_without_an_answer_answers_its_own_instance_on_postgresql_and_takes_no_seat_elsewhere(
            Vendor vendor) {
        AtomicInteger seatsTaken = new AtomicInteger();
        TestJpa[] db = new TestJpa[1];
        // as the group commit does when its batch's COMMIT got no answer: the writes landed, and the
        // caller's work runs again alone
        Tx lostAnswer = new Tx() {
            @Override
            public <T> T inNewTransaction(Function<EntityManager, T> work) {
                return db[0].inNewTransaction(work);
            }

            @Override
            public <T> T inGroupTransaction(Function<EntityManager, T> work) {
                seatsTaken.incrementAndGet();
                db[0].inNewTransaction(work);
                return db[0].inNewTransaction(work);
            }
        };
        Rig rig = rig(vendor, lostAnswer);
        db[0] = rig.db();

        List<InstanceRow> started = rig.engine().startAllAndRead(rig.def(), List.of(forSubject("once")));

        assertThat(seatsTaken.get()).as("a seat on PostgreSQL only").isEqualTo(vendor == Vendor.POSTGRESQL ? 1 : 0);
        assertThat(started).hasSize(1);
        assertThat(started.get(0).status()).isEqualTo(InstanceStatus.RUNNING);
        assertThat(count(rig.db(), "SELECT COUNT(*) FROM cyclium_workflow_instances WHERE workflow_id = ?1", rig.def().id()))
                .isEqualTo(1);
        assertThat(count(rig.db(), "SELECT COUNT(*) FROM cyclium_episodes WHERE workflow_instance_id = ?1", started.get(0).id()))
                .as("its first step's episode stored once").isEqualTo(1);
    }

    /** Keeps the writer busy with a write of its own until {@link #release}. */
    private static Future<?> holdWriter(ExecutorService threads, GroupCommit group) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> holder = threads.submit(() -> group.inGroupTransaction(em -> {
            held.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        releases.put(holder, release);
        return holder;
    }

    private static final java.util.Map<Future<?>, CountDownLatch> releases = new java.util.concurrent.ConcurrentHashMap<>();

    private static void release(Future<?> holder) throws Exception {
        releases.remove(holder).countDown();
        holder.get(30, TimeUnit.SECONDS);
    }

    private static void awaitWaiting(GroupCommit group, int writes, String why) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (group.waiting() < writes && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(group.waiting()).as(why).isEqualTo(writes);
    }

    private static String auditDetail(TestJpa db, PendingAudit audit) {
        return db.inNewTransaction(em -> (String) em.createNativeQuery("SELECT detail FROM cyclium_audit WHERE id = ?1")
                .setParameter(1, audit.entry().id()).getSingleResult());
    }

    private static long count(TestJpa db, String sql, String parameter) {
        return db.inNewTransaction(em -> ((Number) em.createNativeQuery(sql).setParameter(1, parameter).getSingleResult()).longValue());
    }
}
