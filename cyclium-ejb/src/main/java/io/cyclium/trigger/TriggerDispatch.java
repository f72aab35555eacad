package io.cyclium.trigger;

import io.cyclium.config.CycliumConfig;
import io.cyclium.episode.TriggerRequestStore;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One poll of the trigger requests trigger-only nodes wrote (the {@link TriggerPoller} EJB runs it
 * on a timer): oldest first, each request this node can run is claimed by the guarded
 * {@code pending → claimed} update — of any number of pollers that read it pending, exactly one
 * changes the row — and only then handed to the actor and marked completed.
 *
 * <p>There used to be a {@code trigger_request:<id>} work claim before that update as well. It
 * guarded nothing the update does not: a lease held while the request is worked on keeps others
 * out only as long as the update would, and once settled it can be taken again, so a poller
 * that read the request pending before another one completed it gets through the lease and is
 * stopped by the update alone (TriggerDispatchTest's interleaving test). It cost two statements
 * per request and went.
 */
public class TriggerDispatch {

    private static final Logger LOG = Logger.getLogger(TriggerDispatch.class.getName());

    private final CycliumConfig config;
    private final String node;
    private final Tx tx;
    private final TriggerRequestStore store;
    private final DispatchTarget actors;
    private final Telemetry telemetry;
    /** Requests of this node's source env still pending after its last poll (the trigger_requests_pending gauge). */
    private final java.util.concurrent.atomic.AtomicLong pendingAfterPoll = new java.util.concurrent.atomic.AtomicLong();

    public TriggerDispatch(CycliumConfig config, String node, Tx tx, TriggerRequestStore store, DispatchTarget actors,
            Telemetry telemetry) {
        this.config = config;
        this.node = node;
        this.tx = tx;
        this.store = store;
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
            if (tx.inNewTransaction(em -> store.claim(em, r.id(), node)) == 0) {
                continue; // another poller moved it on between our read and this update
            }
            try {
                actors.dispatch(r.actorId(), r.expectationId(), r.episodeId(), r.resume());
            } catch (RuntimeException e) {
                // not handed over: give the request back so the next poll (here or elsewhere) retries it
                releaseQuietly(r);
                throw e;
            }
            tx.inNewTransaction(em -> store.complete(em, r.id(), node));
            dispatched++;
            telemetry.count("trigger_request_dispatched", "actor", r.actorId());
        }
        long expireSeconds = Math.max(1, config.triggerPollExpireAfter().toSeconds());
        // Nothing pending in the env (the read above covers every stack when none is configured):
        // nothing to expire, and an idle node sends no UPDATE every poll. A request stored since the
        // read is younger than the expiry anyway; skipping only ever delays an expiry, never a start.
        boolean nothingToExpire = pending.isEmpty() && stack == null;
        int expired = nothingToExpire ? 0 : tx.inNewTransaction(em -> store.expire(em, expireSeconds, env));
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
