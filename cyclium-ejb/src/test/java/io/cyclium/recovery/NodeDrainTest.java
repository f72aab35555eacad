package io.cyclium.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.claims.ClaimState;
import io.cyclium.claims.FakeWorkClaims;
import io.cyclium.claims.HeldClaim;
import io.cyclium.claims.JpaWorkClaims;
import io.cyclium.claims.LeasedClaimGate;
import io.cyclium.claims.WorkClaims;
import io.cyclium.execution.RunControl;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A node's drain on its way down, on every database: its own rows stamped and released, nobody else's. */
class NodeDrainTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_drain_stamps_this_nodes_running_episodes_interrupted_with_one_marker_each_releases_its_leases_and_stops_its_node(
            Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RecoveryRows rows = new RecoveryRows(db);
        String node = "node-" + UUID.randomUUID().toString().substring(0, 8);
        String other = "other-" + UUID.randomUUID().toString().substring(0, 8);
        rows.node(node);
        rows.node(other);
        String withSteps = rows.episode().on(node).quietFor(0).insert();
        rows.step(withSteps, 1, "observation", node);
        String justStarted = rows.episode().on(node).quietFor(0).insert();
        String theirs = rows.episode().on(other).quietFor(0).insert();
        RecordingTelemetry telemetry = new RecordingTelemetry();
        JpaWorkClaims claims = new JpaWorkClaims(db, db.vendor(), telemetry);
        LeasedClaimGate gate = new LeasedClaimGate(claims, node, 30, telemetry);
        HeldClaim a = gate.acquire("orphan:" + withSteps, "episode").orElseThrow();
        gate.acquire("orphan:" + justStarted, "episode").orElseThrow();
        claims.acquire("orphan:" + theirs, other, 30, "episode");
        TestLocalActors actors = new TestLocalActors();
        RunControl task = actors.task(withSteps);

        NodeDrain.Report report = new NodeDrain(node, db, new RecoveryStore(db.vendor()), claims, Optional.of(gate), actors,
                Duration.ZERO, telemetry).drain();

        assertThat(report.stamped()).isEqualTo(2);
        assertThat(report.askedToStop()).isEqualTo(1);
        assertThat(task.stopRequested()).isTrue();
        assertThat(actors.draining()).as("no restarts or triggers on this node any more").isTrue();
        assertThat(rows.row(withSteps).phase()).isEqualTo(RecoveryStore.INTERRUPTED);
        assertThat(rows.row(justStarted).phase()).isEqualTo(RecoveryStore.INTERRUPTED);
        assertThat(rows.journal(withSteps)).containsExactly("1 observation " + node, "2 interrupted " + node);
        assertThat(rows.journal(justStarted)).containsExactly("1 interrupted " + node);
        assertThat(claims.find("orphan:" + withSteps).orElseThrow().state()).isEqualTo(ClaimState.EXPIRED);
        assertThat(claims.find("orphan:" + justStarted).orElseThrow().state()).isEqualTo(ClaimState.EXPIRED);
        assertThat(gate.renewAll()).as("no renewal after the drain").isZero();
        assertThat(gate.stillOwns(a)).isFalse();
        assertThat(rows.nodeStopped(node)).isTrue();

        assertThat(rows.row(theirs).phase()).isNull();
        assertThat(rows.journal(theirs)).isEmpty();
        assertThat(claims.find("orphan:" + theirs).orElseThrow().state()).isEqualTo(ClaimState.CLAIMED);
        assertThat(rows.nodeStopped(other)).isFalse();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_with_nothing_running_still_records_that_it_stopped(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RecoveryRows rows = new RecoveryRows(db);
        String node = "idle-" + UUID.randomUUID().toString().substring(0, 8);
        rows.node(node);
        RecordingTelemetry telemetry = new RecordingTelemetry();

        NodeDrain.Report report = new NodeDrain(node, db, new RecoveryStore(db.vendor()),
                new JpaWorkClaims(db, db.vendor(), telemetry), Optional.empty(), new TestLocalActors(), Duration.ZERO,
                telemetry).drain();

        assertThat(report.stamped()).isZero();
        assertThat(report.stillRunning()).isZero();
        assertThat(rows.nodeStopped(node)).isTrue();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_drain_with_a_replacement_claims_adapter_releases_this_nodes_leases_through_it_after_the_stamp_committed(
            Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        RecoveryRows rows = new RecoveryRows(db);
        String node = "node-" + UUID.randomUUID().toString().substring(0, 8);
        rows.node(node);
        String running = rows.episode().on(node).quietFor(0).insert();
        RecordingTelemetry telemetry = new RecordingTelemetry();
        List<String> phaseSeenAtRelease = new ArrayList<>();
        FakeWorkClaims fake = new FakeWorkClaims();
        // the adapter an application might bring: everything by the fake, and a look at the episode
        // row (on a connection of its own: only a committed stamp is visible) when asked to release
        WorkClaims adapter = (WorkClaims) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {WorkClaims.class}, (proxy, method, args) -> {
                    if (method.getName().equals("releaseAll")) {
                        phaseSeenAtRelease.add(String.valueOf(rows.row(running).phase()));
                    }
                    try {
                        return method.invoke(fake, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        LeasedClaimGate gate = new LeasedClaimGate(adapter, node, 30, telemetry);
        HeldClaim held = gate.acquire("orphan:" + running, "episode").orElseThrow();
        adapter.acquire("orphan:theirs", "other-node", 30, "episode");

        NodeDrain.Report report = new NodeDrain(node, db, new RecoveryStore(db.vendor()), adapter, Optional.of(gate),
                new TestLocalActors(), Duration.ZERO, telemetry).drain();

        assertThat(report.stamped()).isEqualTo(1);
        assertThat(phaseSeenAtRelease).as("released once, after the stamp committed").containsExactly(RecoveryStore.INTERRUPTED);
        assertThat(adapter.find("orphan:" + running).orElseThrow().state()).isEqualTo(ClaimState.EXPIRED);
        assertThat(gate.stillOwns(held)).isFalse();
        assertThat(adapter.find("orphan:theirs").orElseThrow().state()).isEqualTo(ClaimState.CLAIMED);
        assertThat(rows.nodeStopped(node)).isTrue();
    }
}
