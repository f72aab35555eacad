package io.cyclium.trigger;

import io.cyclium.store.DatabaseVendor;

import io.cyclium.telemetry.BackgroundPass;

import io.cyclium.episode.TriggerRequestStore;

import io.cyclium.runtime.ActorHost;
import io.cyclium.claims.ClaimGate;
import io.cyclium.claims.HeldClaim;
import io.cyclium.config.CycliumConfig;
import io.cyclium.config.NodeMode;
import io.cyclium.node.NodeIdentity;
import io.cyclium.node.NodeModes;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
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
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * On full nodes: picks up trigger requests that trigger-only nodes wrote, oldest first, and runs
 * their episodes here. Each request is claimed twice over — the {@code trigger_request:<id>} work
 * claim and the guarded {@code pending → claimed} update — so exactly one node dispatches it, and
 * only then is it handed to the actor's runtime (queued under its slots, never dropped) and marked
 * completed. Requests pending longer than the expiry window are expired.
 */
@Singleton
@Startup
@DependsOn("Heartbeat")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class TriggerPoller {

    private static final Logger LOG = Logger.getLogger(TriggerPoller.class.getName());

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    NodeModes modes;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    ActorHost host;

    @Inject
    ClaimGate claims;

    @Inject
    Telemetry telemetry;

    @Resource
    TimerService timers;

    private TriggerRequestStore store;

    @PostConstruct
    void start() {
        store = new TriggerRequestStore(vendor);
        long interval = config.triggerPollInterval().toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("cyclium-trigger-poll", false));
    }

    @Timeout
    void onTimer() {
        if (modes.nodeMode() != NodeMode.FULL || host.draining()) {
            return;
        }
        BackgroundPass.run("trigger_poll", LOG, telemetry, () -> "Trigger poll on " + identity.name()
                + " failed; the next one runs in " + config.triggerPollInterval().toMillis() + " ms", this::poll);
    }

    private void releaseQuietly(TriggerRequestStore.Request r) {
        try {
            tx.inNewTransaction(em -> store.release(em, r.id(), identity.name()));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not give trigger request " + r.id() + " back; it stays claimed by "
                    + identity.name() + " and its episode waits for the recovery sweep", e);
        }
    }

    /** One poll: dispatch what this node can run, then expire the old. Returns the number dispatched. */
    public int poll() {
        String env = config.triggerPollSourceEnv() != null ? config.triggerPollSourceEnv() : config.env();
        String stack = config.triggerPollSourceStack();
        List<TriggerRequestStore.Request> pending = tx.inNewTransaction(
                em -> store.pending(em, env, stack, config.triggerPollBatchSize()));
        int dispatched = 0;
        for (TriggerRequestStore.Request r : pending) {
            if (host.runtime(r.actorId()).isEmpty() || modes.modeFor(r.actorId()) != NodeMode.FULL) {
                continue; // another full node that runs this actor will take it
            }
            Optional<HeldClaim> claim = claims.acquire("trigger_request:" + r.id(), "trigger_request");
            if (claim.isEmpty()) {
                continue;
            }
            try {
                if (tx.inNewTransaction(em -> store.claim(em, r.id(), identity.name())) == 0) {
                    // Another poller moved it on between our read and this update.
                    claims.complete(claim.get());
                    continue;
                }
                try {
                    host.dispatch(r.actorId(), r.episodeId(), r.resume());
                } catch (RuntimeException e) {
                    // not handed over: give the request back so the next poll (here or elsewhere) retries it
                    releaseQuietly(r);
                    throw e;
                }
                tx.inNewTransaction(em -> store.complete(em, r.id(), identity.name()));
                claims.complete(claim.get());
                dispatched++;
                telemetry.count("trigger_request_dispatched", "actor", r.actorId());
            } catch (RuntimeException e) {
                claims.fail(claim.get(), String.valueOf(e));
                throw e;
            }
        }
        long expireSeconds = Math.max(1, config.triggerPollExpireAfter().toSeconds());
        int expired = tx.inNewTransaction(em -> store.expire(em, expireSeconds, env));
        if (expired > 0) {
            telemetry.count("trigger_request_expired");
            LOG.info(() -> expired + " trigger request(s) pending longer than " + expireSeconds + " s expired");
        }
        return dispatched;
    }
}
