package io.cyclium.recovery;

import io.cyclium.claims.LeasedClaimGate;
import io.cyclium.config.CycliumConfig;
import io.cyclium.execution.RunControl;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * What one heartbeat tick does (the {@link Heartbeat} EJB runs it every lease/3): renew every claim
 * this node holds in a single statement and audit the held ones no task accounts for, refresh the
 * node row's {@code last_seen} (which also vouches for the episodes waiting in this node's queues:
 * the sweep reads it instead of a refreshed row per episode), and relay cancels requested through
 * other nodes to the tasks running here, and stop vouching for queued rows nothing here holds
 * ({@link QueueAudit}). A tick that arrives more than two intervals after the previous one is a pause (GC,
 * a suspended VM): that is how nodes lose leases they think they hold, so it is logged and counted.
 */
public class LeaseRenewal {

    private static final Logger LOG = Logger.getLogger(LeaseRenewal.class.getName());

    private final CycliumConfig config;
    private final String node;
    private final Tx tx;
    private final DatabaseVendor vendor;
    private final Optional<LeasedClaimGate> gate;
    private final LocalActors actors;
    private final Telemetry telemetry;
    private final QueueAudit queueAudit;

    // Ticks come from one timer and the container serialises them (singleton write lock); volatile
    // only so that a monitoring read on another thread sees the latest values.
    private volatile long lastTickNanos;
    private volatile long pauses;

    public LeaseRenewal(CycliumConfig config, String node, Tx tx, DatabaseVendor vendor, Optional<LeasedClaimGate> gate,
            LocalActors actors, Telemetry telemetry) {
        this.config = config;
        this.node = node;
        this.tx = tx;
        this.vendor = vendor;
        this.gate = gate;
        this.actors = actors;
        this.telemetry = telemetry;
        this.queueAudit = new QueueAudit(node, tx, vendor, actors, telemetry);
    }

    /** One tick that started at {@code startNanos} (a {@link System#nanoTime} reading). */
    public void beat(long startNanos) {
        long interval = config.heartbeatInterval().toNanos();
        if (lastTickNanos != 0 && startNanos - lastTickNanos > 2 * interval) {
            long late = (startNanos - lastTickNanos) / 1_000_000;
            pauses++;
            telemetry.count("heartbeat_pause");
            LOG.warning(() -> "Heartbeat on " + node + " came " + late + " ms after the previous one (interval "
                    + config.heartbeatInterval().toMillis() + " ms): the node paused; leases older than "
                    + config.leaseSeconds() + " s may have been taken over and their tasks will stop");
        }
        lastTickNanos = startNanos;
        gate.ifPresent(g -> {
            g.renewAll();
            if (g.heldCount() > 0) {
                g.releaseUnaccounted(actors.claimsInUse(), auditTicks());
            }
        });
        String now = vendor.utcNow();
        tx.run(em -> new NativeSql().sql("UPDATE cyclium_nodes SET last_seen = " + now + " WHERE node_identity = ")
                .value(node).executeUpdate(em));
        // Queued episodes need no statement of their own: the sweep reads this node's last_seen
        // (and the life that queued them) instead of a refreshed row per episode.
        relayCancels();
        // Vouched for only while held here: a row no task, slot or queue of this node holds goes
        // to the sweep (one interval's grace for a row committed a moment ago on its way to a queue).
        queueAudit.run(Math.max(1, config.heartbeatInterval().toSeconds()));
    }

    /** Pauses seen so far. */
    public long pausesDetected() {
        return pauses;
    }

    /** Two full leases' worth of heartbeats: longer than any hand-over between sweep or poller and a task. */
    int auditTicks() {
        long interval = Math.max(1, config.heartbeatInterval().toMillis());
        return (int) Math.max(3, (2_000L * config.leaseSeconds() + interval - 1) / interval + 1);
    }

    /**
     * A cancel requested through another node only sets the row's flag; the node running the
     * episode learns it here, once per tick, and tells the task (it stops at its next step).
     */
    private void relayCancels() {
        if (actors.localRunning().isEmpty()) {
            return;
        }
        @SuppressWarnings("unchecked")
        List<String> ids = tx.inNewTransaction(em -> new NativeSql()
                .sql("SELECT id FROM cyclium_episodes WHERE status = 'running' AND cancel_requested = ").value(Boolean.TRUE)
                .sql(" AND run_node = ").value(node).query(em).getResultList());
        ids.forEach(id -> actors.localControl(id).ifPresent(RunControl::requestCancel));
    }
}
