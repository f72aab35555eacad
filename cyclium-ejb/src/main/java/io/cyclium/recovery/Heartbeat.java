package io.cyclium.recovery;

import io.cyclium.claims.HeartbeatPulse;

import io.cyclium.claims.ClaimGateProducer;
import io.cyclium.config.CycliumConfig;
import io.cyclium.node.NodeIdentity;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.BackgroundPass;
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
import java.util.logging.Logger;

/**
 * One heartbeat per node: the timer around {@link LeaseRenewal}, every lease/3.
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
    HeartbeatPulse pulse;

    @Inject
    NodeIdentity identity;

    @Inject
    ClaimGateProducer gates;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    Telemetry telemetry;

    @Inject
    LocalActors actors;

    @Resource
    TimerService timers;

    private LeaseRenewal renewal;
    private volatile boolean stopped;

    @PostConstruct
    void start() {
        gates.leased().ifPresent(gate -> {
            int released = gates.workClaims().releaseAll(identity.name());
            if (released > 0) {
                LOG.info(() -> "Node " + identity.name() + " restarted: released " + released
                        + " lease(s) left from its previous run; recovery will pick their episodes up");
            }
        });
        renewal = new LeaseRenewal(config, identity.name(), tx, vendor, gates.leased(), actors, telemetry);
        long interval = config.heartbeatInterval().toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("cyclium-heartbeat", false));
    }

    @Timeout
    void tick() {
        if (stopped) {
            return;
        }
        long start = System.nanoTime();
        pulse.beat(); // liveness reads this, not the singleton (a stuck tick would hold its lock)
        BackgroundPass.run("heartbeat", LOG, telemetry, () -> "Heartbeat on " + identity.name()
                + " failed; leases live until their expiry (" + config.leaseSeconds() + " s) and the next tick tries again",
                () -> renewal.beat(start));
        telemetry.time("heartbeat_tick", Duration.ofNanos(System.nanoTime() - start));
    }

    /** The drain calls this before releasing the node's leases: no renewal may follow. */
    public void stop() {
        stopped = true;
    }

    public long pausesDetected() {
        return renewal.pausesDetected();
    }

    @PreDestroy
    void destroy() {
        stopped = true;
    }
}
