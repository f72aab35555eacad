package io.cyclium.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.claims.HeldClaim;
import io.cyclium.claims.JpaWorkClaims;
import io.cyclium.claims.LeasedClaimGate;
import io.cyclium.config.CycliumConfig;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.execution.RunControl;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestConfig;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One heartbeat tick on a real database with real leases. Ticks are given their start time, so a
 * pause is a number, not a sleep; every test runs as a node of its own.
 */
class LeaseRenewalTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final CycliumConfig CONFIG = TestConfig.of("cyclium.work-claims.lease-seconds", "30");
    private static final long INTERVAL = CONFIG.heartbeatInterval().toNanos();

    private final TestJpa db = databases.jpa(Vendor.H2);
    private final RecoveryRows rows = new RecoveryRows(db);
    private final String node = "node-" + UUID.randomUUID().toString().substring(0, 8);
    private final RecordingTelemetry telemetry = new RecordingTelemetry();
    private final JpaWorkClaims claims = new JpaWorkClaims(db, db.vendor(), telemetry);
    private final LeasedClaimGate gate = new LeasedClaimGate(claims, node, 30, telemetry);
    private final TestLocalActors actors = new TestLocalActors();
    private final LeaseRenewal renewal = new LeaseRenewal(CONFIG, node, db, db.vendor(), Optional.of(gate), actors, telemetry);

    @Test
    void a_tick_renews_a_lapsed_lease_of_this_node_and_refreshes_its_node_row() {
        rows.node(node);
        HeldClaim held = gate.acquire("work:" + UUID.randomUUID(), "episode").orElseThrow();
        actors.using(held);
        db.run(em -> em.createNativeQuery("UPDATE cyclium_work_claims SET lease_until = " + db.vendor().utcNowPlusSeconds("-5")
                + " WHERE dedupe_key = ?1").setParameter(1, held.key()).executeUpdate());
        assertThat(gate.stillOwns(held)).as("lapsed before the tick").isFalse();

        renewal.beat(1_000_000_000L);

        assertThat(gate.stillOwns(held)).isTrue();
        assertThat(rows.nodeSeenRecently(node)).isTrue();
        assertThat(renewal.pausesDetected()).isZero();
    }

    @Test
    void a_tick_more_than_two_intervals_after_the_previous_one_is_counted_as_a_pause() {
        long t0 = 1_000_000_000L;

        renewal.beat(t0);
        renewal.beat(t0 + INTERVAL);
        renewal.beat(t0 + 3 * INTERVAL);
        assertThat(renewal.pausesDetected()).as("two intervals late is still on time").isZero();

        renewal.beat(t0 + 6 * INTERVAL);

        assertThat(renewal.pausesDetected()).isEqualTo(1);
        assertThat(telemetry.count("heartbeat_pause")).isEqualTo(1);
    }

    @Test
    void a_cancel_requested_through_another_node_reaches_the_task_running_here_and_no_other() {
        String canceled = rows.episode().on(node).quietFor(0).cancelRequested().insert();
        String running = rows.episode().on(node).quietFor(0).insert();
        RunControl canceledTask = actors.task(canceled);
        RunControl runningTask = actors.task(running);

        renewal.beat(1_000_000_000L);

        assertThat(canceledTask.cancelRequested()).isTrue();
        assertThat(runningTask.cancelRequested()).isFalse();
    }

    @Test
    void episodes_waiting_in_a_live_nodes_queue_are_no_orphans_however_quiet_and_the_tick_writes_none_of_them() {
        rows.node(node); // started an hour ago; the rows below were queued ten minutes ago
        actors.started(new EpisodeStore(db.vendor()));
        String queuedHere = rows.episode().on(node).queued().insert();
        actors.queues(queuedHere);
        String queuedOnANodeWithoutRow = rows.episode().on("other-" + node).queued().insert();
        String runningHere = rows.episode().on(node).insert();

        renewal.beat(1_000_000_000L);

        assertThat(rows.updatedRecently(queuedHere)).as("the node row vouches, not a write per episode").isFalse();
        assertThat(orphans()).doesNotContain(queuedHere).contains(queuedOnANodeWithoutRow)
                .as("a running task shows life through its journal and its lease, not its queue entry").contains(runningHere);
    }

    @Test
    void a_row_marked_queued_here_that_no_task_slot_or_queue_holds_is_vouched_for_no_longer_after_a_tick() {
        rows.node(node);
        actors.started(new EpisodeStore(db.vendor()));
        // its task died in a database outage (or its start was refused): the mark stayed, nobody holds it
        String stranded = rows.episode().on(node).queued().insert();
        String held = rows.episode().on(node).queued().insert();
        actors.queues(held);
        String justQueued = rows.episode().on(node).queued().quietFor(0).insert();

        renewal.beat(1_000_000_000L);

        assertThat(orphans()).as("the stranded row goes to the sweep").contains(stranded)
                .as("a held row and one within the grace stay vouched for").doesNotContain(held, justQueued);
        assertThat(rows.row(stranded).runNode()).isNull();
        assertThat(telemetry.count("queue_audit_released")).isEqualTo(1);
    }

    @Test
    void a_queued_episode_goes_stale_with_its_nodes_heartbeat() {
        rows.node(node);
        actors.started(new EpisodeStore(db.vendor()));
        String queuedHere = rows.episode().on(node).queued().insert();
        actors.queues(queuedHere);
        renewal.beat(1_000_000_000L);
        assertThat(orphans()).doesNotContain(queuedHere);

        // the node stops beating: its row ages past stale-after
        db.run(em -> em.createNativeQuery("UPDATE cyclium_nodes SET last_seen = " + db.vendor().utcNowPlusSeconds("-600")
                + " WHERE node_identity = ?1").setParameter(1, node).executeUpdate());

        assertThat(orphans()).contains(queuedHere);
    }

    @Test
    void a_node_restarted_under_the_same_identity_does_not_vouch_for_the_queue_of_its_previous_life() {
        String queuedBeforeRestart = rows.episode().on(node).queued().quietFor(600).insert();
        rows.node(node);
        db.run(em -> em.createNativeQuery("UPDATE cyclium_nodes SET started_at = " + db.vendor().utcNow()
                + " WHERE node_identity = ?1").setParameter(1, node).executeUpdate()); // this life began just now
        String queuedNow = rows.episode().on(node).queued().quietFor(0).insert();
        db.run(em -> em.createNativeQuery("UPDATE cyclium_episodes SET started_at = " + db.vendor().utcNowPlusSeconds("-600")
                + ", updated_at = " + db.vendor().utcNowPlusSeconds("-600") + " WHERE id = ?1").setParameter(1, queuedNow)
                .executeUpdate()); // as quiet as the other, but queued in this life
        actors.started(new EpisodeStore(db.vendor()));

        renewal.beat(1_000_000_000L);

        assertThat(orphans()).as("the old life's queue is recovered, this life's is vouched for")
                .contains(queuedBeforeRestart).doesNotContain(queuedNow);
    }

    private java.util.List<String> orphans() {
        RecoveryStore store = new RecoveryStore(db.vendor());
        return db.inNewTransaction(em -> store.listOrphans(em, 60, SweepScope.of(null, null), 500)).stream()
                .map(Orphan::id).toList();
    }
}
