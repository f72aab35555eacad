package io.cyclium.claims;

import io.cyclium.config.CycliumConfig;
import io.cyclium.node.NodeIdentity;
import io.cyclium.schema.SchemaMigrator;
import io.cyclium.store.NativeSql;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One heartbeat per node: every lease/3 it renews every claim this node holds in a single
 * statement and refreshes the node row's {@code last_seen}. A claim it no longer holds at its fence
 * is reported to its task. A tick that arrives more than two intervals after the previous one is a
 * pause (GC, a suspended VM): that is how nodes lose leases they think they hold, so it is logged
 * and counted.
 *
 * <p>At boot it expires any lease this identity still holds from a previous life of the node, so a
 * restarted node does not keep renewing work it no longer runs.
 */
@Singleton
@Startup
@DependsOn("ActorBootstrap")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Heartbeat {

    private static final Logger LOG = Logger.getLogger(Heartbeat.class.getName());

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    ClaimGateProducer gates;

    @Inject
    Tx tx;

    @Inject
    SchemaMigrator schema;

    @Inject
    Telemetry telemetry;

    @Inject
    HeartbeatPulse pulse;

    @Inject
    io.cyclium.actor.ActorHost host;

    @Resource
    TimerService timers;

    private volatile long lastTickNanos;
    private volatile boolean stopped;
    private volatile long pauses;

    @PostConstruct
    void start() {
        gates.leased().ifPresent(gate -> {
            int released = gates.workClaims().releaseAll(identity.name());
            if (released > 0) {
                LOG.info(() -> "Node " + identity.name() + " restarted: released " + released
                        + " lease(s) left from its previous run; recovery will pick their episodes up");
            }
        });
        long interval = config.heartbeatInterval().toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("cyclium-heartbeat", false));
    }

    @Timeout
    void tick() {
        if (stopped) {
            return;
        }
        long start = System.nanoTime();
        pulse.beat();
        try {
            long interval = config.heartbeatInterval().toNanos();
            if (lastTickNanos != 0 && start - lastTickNanos > 2 * interval) {
                long late = (start - lastTickNanos) / 1_000_000;
                pauses++;
                telemetry.count("heartbeat_pause");
                LOG.warning(() -> "Heartbeat on " + identity.name() + " came " + late + " ms after the previous one (interval "
                        + config.heartbeatInterval().toMillis() + " ms): the node paused; leases older than "
                        + config.leaseSeconds() + " s may have been taken over and their tasks will stop");
            }
            lastTickNanos = start;
            gates.leased().ifPresent(gate -> {
                gate.renewAll();
                if (gate.heldCount() > 0) {
                    gate.releaseUnaccounted(host.claimsInUse(), auditTicks());
                }
            });
            String now = schema.vendor().utcNow();
            tx.run(em -> new NativeSql().sql("UPDATE cyclium_nodes SET last_seen = " + now + " WHERE node_identity = ")
                    .value(identity.name()).executeUpdate(em));
            relayCancels();
            if (host.store() != null) {
                tx.inNewTransaction(em -> host.store().touchQueued(em, identity.name()));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Heartbeat on " + identity.name() + " failed; leases live until their expiry ("
                    + config.leaseSeconds() + " s) and the next tick tries again", e);
            telemetry.count("heartbeat_failed");
        } finally {
            telemetry.time("heartbeat_tick", Duration.ofNanos(System.nanoTime() - start));
        }
    }

    /** Two full leases' worth of heartbeats: longer than any hand-over between sweep or poller and a task. */
    private int auditTicks() {
        long interval = Math.max(1, config.heartbeatInterval().toMillis());
        return (int) Math.max(3, (2_000L * config.leaseSeconds() + interval - 1) / interval + 1);
    }

    /**
     * A cancel requested through another node only sets the row's flag; the node running the
     * episode learns it here, once per tick, and tells the task (it stops at its next step).
     */
    private void relayCancels() {
        if (host.localRunning().isEmpty()) {
            return;
        }
        @SuppressWarnings("unchecked")
        java.util.List<String> ids = tx.inNewTransaction(em -> new NativeSql()
                .sql("SELECT id FROM cyclium_episodes WHERE status = 'running' AND cancel_requested = ").value(Boolean.TRUE)
                .sql(" AND run_node = ").value(identity.name()).query(em).getResultList());
        ids.forEach(id -> host.localControl(id).ifPresent(io.cyclium.episode.RunControl::requestCancel));
    }

    /** The drain calls this before releasing the node's leases: no renewal may follow. */
    public void stop() {
        stopped = true;
    }

    public long pausesDetected() {
        return pauses;
    }

    @PreDestroy
    void destroy() {
        stopped = true;
    }
}
