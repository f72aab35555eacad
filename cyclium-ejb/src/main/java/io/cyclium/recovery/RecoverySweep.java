package io.cyclium.recovery;

import io.cyclium.store.DatabaseVendor;

import io.cyclium.telemetry.BackgroundPass;

import io.cyclium.runtime.ActorHost;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.claims.ClaimGate;
import io.cyclium.claims.HeldClaim;
import io.cyclium.config.CycliumConfig;
import io.cyclium.config.NodeMode;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.node.NodeIdentity;
import io.cyclium.store.NativeSql;
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
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Finds running episodes nobody drives — stale journals after a hard stop, or rows a drain stamped
 * interrupted — and restarts or fails each exactly once across the cluster.
 *
 * <p>Per orphan: take its work claim (busy = a live node still runs it: skip), then claim the row
 * with a compare-and-set on attempts (0 rows = another sweeper won: skip), then apply the policy.
 * A restart hands the episode <em>and the claim</em> to the actor's runtime, so the restarted task
 * is not refused by our own lease; past max attempts the episode fails as orphaned instead of
 * bouncing between nodes forever.
 */
@Singleton
@Startup
@DependsOn("TriggerPoller")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RecoverySweep {

    private static final Logger LOG = Logger.getLogger(RecoverySweep.class.getName());
    static final int BATCH = 200;

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

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

    @Inject
    Event<EpisodeFinished> finished;

    @Inject
    Instance<RecoveryPolicyResolver> resolvers;

    @Resource
    TimerService timers;

    private RecoveryStore store;

    @PostConstruct
    void start() {
        store = new RecoveryStore(vendor);
        if (config.mode() != NodeMode.FULL) {
            LOG.info(() -> "Recovery sweep off: node mode is " + config.mode().wireName());
            return;
        }
        timers.createIntervalTimer(config.recoveryInitialDelay().toMillis(), config.recoveryInterval().toMillis(),
                new TimerConfig("cyclium-recovery-sweep", false));
    }

    @Timeout
    void onTimer() {
        BackgroundPass.run("recovery_sweep", LOG, telemetry, () -> "Recovery sweep on " + identity.name()
                + " failed; the next one runs in " + config.recoveryInterval().toMillis() + " ms", () -> {
                    SweepReport r = sweep(SweepScope.of(config.stackSlug(), config.env()));
                    if (r.found() > 0) {
                        LOG.info(() -> "Recovery sweep on " + identity.name() + ": " + r);
                    }
                });
    }

    /** One sweep over the given scope (also the API's "run the sweep now"). */
    public SweepReport sweep(SweepScope scope) {
        if (host.draining()) {
            // A node going down must not restart the very episodes its drain just stamped.
            return new SweepReport(0, 0, 0, 0, scope.stack(), scope.env());
        }
        long staleSeconds = Math.max(1, config.staleAfter().toSeconds());
        List<Orphan> orphans = new ArrayList<>(tx.inNewTransaction(em -> store.listOrphans(em, staleSeconds, scope, BATCH)));
        // Nodes woken by the same timer should not all race for the same first row.
        Collections.shuffle(orphans);
        int restarted = 0;
        int failed = 0;
        int skipped = 0;
        for (Orphan o : orphans) {
            try {
                switch (recover(o)) {
                    case RESTARTED -> restarted++;
                    case FAILED -> failed++;
                    default -> skipped++;
                }
            } catch (RuntimeException e) {
                skipped++;
                LOG.log(Level.WARNING, "Recovering episode " + o.id() + " (" + o.actorId() + "/" + o.expectationId()
                        + ") failed; the next sweep tries again", e);
            }
        }
        SweepReport report = new SweepReport(orphans.size(), restarted, failed, skipped, scope.stack(), scope.env());
        for (int i = 0; i < restarted; i++) {
            telemetry.count("recovery", "outcome", "restarted");
        }
        for (int i = 0; i < failed; i++) {
            telemetry.count("recovery", "outcome", "failed");
        }
        for (int i = 0; i < skipped; i++) {
            telemetry.count("recovery", "outcome", "skipped");
        }
        return report;
    }

    enum Result { RESTARTED, FAILED, SKIPPED }

    private Result recover(Orphan o) {
        RecoveryPolicy policy = policyFor(o);
        boolean runsHere = host.runtime(o.actorId()).isPresent();
        if (policy == RecoveryPolicy.RESTART && !runsHere && o.attempts() + 1 <= o.maxAttempts()) {
            // Another node (or stack) that runs this actor will restart it.
            return Result.SKIPPED;
        }
        Optional<HeldClaim> claim = claims.acquire(o.claimKey(), "recovery");
        if (claim.isEmpty()) {
            // A live lease: some node still runs it (a long step), or is restarting it right now.
            return Result.SKIPPED;
        }
        int won = tx.inNewTransaction(em -> store.claimForRecovery(em, o));
        if (won == 0) {
            claims.complete(claim.get());
            return Result.SKIPPED;
        }
        int attempts = o.attempts() + 1;
        if (policy == RecoveryPolicy.RESTART && attempts <= o.maxAttempts()) {
            if (host.recover(o.actorId(), o.id(), claim.get())) {
                LOG.info(() -> "Restarting episode " + o.id() + " (" + o.actorId() + "/" + o.expectationId() + ", attempt "
                        + attempts + " of " + o.maxAttempts() + ") on " + identity.name());
                return Result.RESTARTED;
            }
            tx.inNewTransaction(em -> store.unclaim(em, o.id()));
            claims.complete(claim.get());
            return Result.SKIPPED;
        }
        String reason = policy == RecoveryPolicy.RESTART
                ? "attempt " + attempts + " exceeds max attempts " + o.maxAttempts()
                : "recovery policy fail";
        int n = tx.inNewTransaction(em -> store.failOrphan(em, o.id(), identity.name(), reason));
        claims.fail(claim.get(), "orphaned: " + reason);
        if (n == 1) {
            finished.fire(new EpisodeFinished(o.id(), o.actorId(), o.expectationId(), "failed", "orphaned",
                    o.workflowInstanceId(), o.workflowStepId()));
            return Result.FAILED;
        }
        return Result.SKIPPED;
    }

    /** Compiled actor, else its definition row, else a host resolver, else fail. */
    RecoveryPolicy policyFor(Orphan o) {
        Optional<RecoveryPolicy> compiled = host.definition(o.actorId()).flatMap(a -> a.expectation(o.expectationId()))
                .map(ExpectationDefinition::recovery);
        if (compiled.isPresent()) {
            return compiled.get();
        }
        Optional<RecoveryPolicy> fromRow = tx.inNewTransaction(em -> {
            @SuppressWarnings("unchecked")
            List<Object> rows = new NativeSql().sql("SELECT recovery_policy FROM cyclium_actor_definitions WHERE actor_id = ")
                    .value(o.actorId()).query(em).getResultList();
            return rows.stream().filter(v -> v != null).map(v -> v.toString().trim().toUpperCase(Locale.ROOT))
                    .filter(v -> v.equals("RESTART") || v.equals("FAIL")).map(RecoveryPolicy::valueOf).findFirst();
        });
        if (fromRow.isPresent()) {
            return fromRow.get();
        }
        for (RecoveryPolicyResolver r : resolvers) {
            Optional<RecoveryPolicy> p = r.policyFor(o);
            if (p.isPresent()) {
                return p.get();
            }
        }
        return RecoveryPolicy.FAIL;
    }
}
