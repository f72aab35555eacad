package io.cyclium.recovery;

import io.cyclium.claims.JpaWorkClaims;
import io.cyclium.claims.LeasedClaimGate;
import io.cyclium.claims.WorkClaims;
import io.cyclium.execution.RunControl;
import io.cyclium.store.Tx;
import io.cyclium.store.UniqueViolation;
import io.cyclium.telemetry.Telemetry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a node does on its way down (the {@link EpisodeDrainer} EJB runs it from its
 * {@code @PreDestroy}):
 * <ol>
 * <li>stop triggers and the heartbeat's renewals, and ask every local task to stop at its next
 *     step boundary;</li>
 * <li>in one transaction of set-based statements: stamp this node's running episodes
 *     {@code phase = interrupted}, expire this node's leases, journal one {@code interrupted}
 *     marker per episode, stamp the node row stopped;</li>
 * <li>wait up to the grace for the tasks to leave. A task still running then is left: its row is
 *     stamped, so the next sweep on another node restarts it at once.</li>
 * </ol>
 * Renewals stop before the leases are released: a heartbeat renewing after the release would
 * revive leases the other nodes are entitled to take over.
 *
 * <p>The leases are released through the {@link WorkClaims} in use. The shipped
 * {@link JpaWorkClaims} joins the stamping transaction (on the caller's EntityManager: no other EJB
 * may be called this late in a shutdown). A replacement adapter releases after that transaction
 * has committed, in its own way: the order matters, because a lease released before the stamp
 * commits could be taken over by a sweep elsewhere while this node still names itself runner, and
 * the stamp would then mark the new runner's episode interrupted.
 */
public class NodeDrain {

    private static final Logger LOG = Logger.getLogger(NodeDrain.class.getName());

    /** What a drain did: episodes stamped (-1: never managed to), tasks asked to stop, tasks still running at the end. */
    public record Report(int stamped, int askedToStop, int stillRunning, long millis) {
    }

    private final String node;
    private final Tx tx;
    private final RecoveryStore store;
    private final WorkClaims workClaims;
    private final Optional<LeasedClaimGate> gate;
    private final LocalActors actors;
    private final Duration grace;
    private final Telemetry telemetry;

    public NodeDrain(String node, Tx tx, RecoveryStore store, WorkClaims workClaims, Optional<LeasedClaimGate> gate,
            LocalActors actors, Duration grace, Telemetry telemetry) {
        this.node = node;
        this.tx = tx;
        this.store = store;
        this.workClaims = workClaims;
        this.gate = gate;
        this.actors = actors;
        this.grace = grace;
        this.telemetry = telemetry;
    }

    public Report drain() {
        long t0 = System.nanoTime();
        actors.beginDrain();
        gate.ifPresent(LeasedClaimGate::stopRenewing);
        List<RunControl> running = List.copyOf(actors.localRunning());
        running.forEach(RunControl::requestStop);
        int stamped = -1;
        for (int attempt = 1; attempt <= 2 && stamped < 0; attempt++) {
            stamped = stampAndRelease(attempt);
        }
        if (!(workClaims instanceof JpaWorkClaims)) {
            releaseThroughAdapter();
        }
        long deadline = System.nanoTime() + grace.toNanos();
        while (!actors.localRunning().isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return new Report(stamped, running.size(), actors.localRunning().size(), (System.nanoTime() - t0) / 1_000_000);
    }

    /** A replacement claims adapter gives up this node's leases after the stamp has committed. */
    private void releaseThroughAdapter() {
        try {
            int released = workClaims.releaseAll(node);
            // not "drain" with another tag key: Micrometer drops a series whose tag keys differ from its name's first
            telemetry.count("drain_released_by_adapter", "released", String.valueOf(released > 0));
        } catch (RuntimeException e) {
            // the leases then lapse on their own: the other nodes take the episodes over a lease later
            LOG.log(Level.SEVERE, "Drain on " + node + ": the claims adapter " + workClaims.getClass().getName()
                    + " could not release this node's leases; they lapse on their own", e);
            System.err.println("Cyclium drain on " + node + ": releasing leases failed: " + e);
        }
    }

    /** One transaction of set-based statements; returns the number stamped, or -1 to retry. */
    private int stampAndRelease(int attempt) {
        try {
            int stamped = tx.inNewTransaction(em -> {
                int n = store.stampInterrupted(em, node);
                if (workClaims instanceof JpaWorkClaims jpa) {
                    jpa.releaseAll(em, node);
                }
                if (n > 0) {
                    store.markInterrupted(em, node);
                }
                store.nodeStopped(em, node);
                return n;
            });
            telemetry.count("drain", "stamped", String.valueOf(stamped > 0));
            return stamped;
        } catch (RuntimeException e) {
            if (attempt == 1 && UniqueViolation.isCause(e)) {
                // A task journaled the same step number as our marker this instant (PostgreSQL has
                // aborted the transaction): the transaction rolled back; do it again — the task
                // has stopped by now.
                return -1;
            }
            LOG.log(Level.SEVERE, "Drain on " + node + " could not stamp its episodes (attempt " + attempt
                    + "); the sweep will still find them once their journals go stale", e);
            System.err.println("Cyclium drain on " + node + " failed: " + e);
            return attempt == 1 ? -1 : 0;
        }
    }
}
