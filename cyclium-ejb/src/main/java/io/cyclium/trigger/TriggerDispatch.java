package io.cyclium.trigger;

import io.cyclium.claims.ClaimGate;
import io.cyclium.claims.HeldClaim;
import io.cyclium.config.CycliumConfig;
import io.cyclium.episode.TriggerRequestStore;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One poll of the trigger requests trigger-only nodes wrote (the {@link TriggerPoller} EJB runs it
 * on a timer): oldest first, each request this node can run is claimed twice over — the
 * {@code trigger_request:<id>} work claim and the guarded {@code pending → claimed} update — so
 * exactly one node dispatches it, and only then is it handed to the actor and marked completed.
 * Requests pending longer than the expiry window are expired.
 */
public class TriggerDispatch {

    private static final Logger LOG = Logger.getLogger(TriggerDispatch.class.getName());

    private final CycliumConfig config;
    private final String node;
    private final Tx tx;
    private final TriggerRequestStore store;
    private final ClaimGate claims;
    private final DispatchTarget actors;
    private final Telemetry telemetry;
    /** Requests of this node's source env still pending after its last poll (the trigger_requests_pending gauge). */
    private final java.util.concurrent.atomic.AtomicLong pendingAfterPoll = new java.util.concurrent.atomic.AtomicLong();

    public TriggerDispatch(CycliumConfig config, String node, Tx tx, TriggerRequestStore store, ClaimGate claims,
            DispatchTarget actors, Telemetry telemetry) {
        this.config = config;
        this.node = node;
        this.tx = tx;
        this.store = store;
        this.claims = claims;
        this.actors = actors;
        this.telemetry = telemetry;
        telemetry.gauge("trigger_requests_pending", pendingAfterPoll::get);
    }

    /** One poll: dispatch what this node can run, then expire the old. Returns the number dispatched. */
    public int poll() {
        String env = config.triggerPollSourceEnv() != null ? config.triggerPollSourceEnv() : config.env();
        String stack = config.triggerPollSourceStack();
        List<TriggerRequestStore.Request> pending = tx.inNewTransaction(
                em -> store.pending(em, env, stack, config.triggerPollBatchSize()));
        int dispatched = 0;
        for (TriggerRequestStore.Request r : pending) {
            if (!actors.runsHere(r.actorId())) {
                continue; // another full node that runs this actor will take it
            }
            Optional<HeldClaim> claim = claims.acquire("trigger_request:" + r.id(), "trigger_request");
            if (claim.isEmpty()) {
                continue; // another poller holds the request's lease right now
            }
            try {
                if (tx.inNewTransaction(em -> store.claim(em, r.id(), node)) == 0) {
                    // Another poller moved it on between our read and this update.
                    claims.complete(claim.get());
                    continue;
                }
                try {
                    actors.dispatch(r.actorId(), r.episodeId(), r.resume());
                } catch (RuntimeException e) {
                    // not handed over: give the request back so the next poll (here or elsewhere) retries it
                    releaseQuietly(r);
                    throw e;
                }
                tx.inNewTransaction(em -> store.complete(em, r.id(), node));
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
        // A short page was every pending request: what is left is what this poll did not take. A
        // full one may have more behind it: count them (one indexed count, only under a backlog).
        pendingAfterPoll.set(pending.size() < config.triggerPollBatchSize() ? Math.max(0, pending.size() - dispatched - expired)
                : tx.inNewTransaction(em -> store.countPending(em, env, stack)));
        if (expired > 0) {
            telemetry.count("trigger_request_expired", expired);
            LOG.info(() -> expired + " trigger request(s) pending longer than " + expireSeconds + " s expired");
        }
        return dispatched;
    }

    private void releaseQuietly(TriggerRequestStore.Request r) {
        try {
            tx.inNewTransaction(em -> store.release(em, r.id(), node));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not give trigger request " + r.id() + " back; it stays claimed by "
                    + node + " and its episode waits for the recovery sweep", e);
        }
    }
}
