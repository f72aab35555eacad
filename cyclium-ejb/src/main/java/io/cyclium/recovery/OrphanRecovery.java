package io.cyclium.recovery;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.claims.ClaimGate;
import io.cyclium.claims.HeldClaim;
import io.cyclium.config.CycliumConfig;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.store.NativeSql;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What one recovery sweep does (the {@link RecoverySweep} EJB runs it on a timer). Per orphan: take
 * its work claim (busy = a live node still runs it: skip), then claim the row with a compare-and-set
 * on attempts (0 rows = another sweeper won: skip), then apply the policy. A restart hands the
 * episode <em>and the claim</em> to the actor's runtime, so the restarted task is not refused by our
 * own lease; past max attempts the episode fails as orphaned instead of bouncing between nodes forever.
 */
public class OrphanRecovery {

    private static final Logger LOG = Logger.getLogger(OrphanRecovery.class.getName());
    static final int BATCH = 200;

    enum Result { RESTARTED, FAILED, SKIPPED }

    private final CycliumConfig config;
    private final String node;
    private final Tx tx;
    private final RecoveryStore store;
    private final ClaimGate claims;
    private final LocalActors actors;
    private final Iterable<RecoveryPolicyResolver> resolvers;
    private final Consumer<EpisodeFinished> finished;
    private final Telemetry telemetry;
    /** Orphans this node has said it cannot restart (bounded: cleared when it grows past 10,000). */
    private final Set<String> waitingReported = ConcurrentHashMap.newKeySet();
    /** Where the next sweep of a scope goes on: the last orphan of a full batch (absent: from the oldest). */
    private final java.util.Map<SweepScope, Orphan> cursors = new ConcurrentHashMap<>();

    public OrphanRecovery(CycliumConfig config, String node, Tx tx, RecoveryStore store, ClaimGate claims, LocalActors actors,
            Iterable<RecoveryPolicyResolver> resolvers, Consumer<EpisodeFinished> finished, Telemetry telemetry) {
        this.config = config;
        this.node = node;
        this.tx = tx;
        this.store = store;
        this.claims = claims;
        this.actors = actors;
        this.resolvers = resolvers;
        this.finished = finished;
        this.telemetry = telemetry;
    }

    /** One sweep over the given scope. */
    public SweepReport sweep(SweepScope scope) {
        if (!actors.sweeps()) {
            // A node going down must not restart the very episodes its drain just stamped; a node
            // switched to trigger-only (as before a deploy) runs nothing, restarts included.
            return new SweepReport(0, 0, 0, 0, scope.stack(), scope.env());
        }
        long staleSeconds = Math.max(1, config.staleAfter().toSeconds());
        Orphan after = cursors.get(scope);
        List<Orphan> orphans = new ArrayList<>(tx.inNewTransaction(em -> store.listOrphans(em, staleSeconds, scope, BATCH, after)));
        // A full batch: the next sweep goes on after its last row (the ones skipped here would
        // otherwise fill every batch and hide all newer orphans); a short one: from the oldest again.
        if (orphans.size() >= BATCH) {
            cursors.put(scope, orphans.get(orphans.size() - 1));
        } else {
            cursors.remove(scope);
        }
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
        telemetry.count("recovery", restarted, "outcome", "restarted");
        telemetry.count("recovery", failed, "outcome", "failed");
        telemetry.count("recovery", skipped, "outcome", "skipped");
        // one event per sweep, empty sweeps included: the histograms' count is the number of sweeps
        telemetry.record("recovery_sweep", orphans.size(), "outcome", "found");
        telemetry.record("recovery_sweep", restarted, "outcome", "restarted");
        telemetry.record("recovery_sweep", failed, "outcome", "failed");
        telemetry.record("recovery_sweep", skipped, "outcome", "skipped");
        return new SweepReport(orphans.size(), restarted, failed, skipped, scope.stack(), scope.env());
    }

    private Result recover(Orphan o) {
        RecoveryPolicy policy = effectivePolicy(o);
        if (policy == RecoveryPolicy.RESTART && !actors.runs(o.actorId()) && o.attempts() + 1 <= o.maxAttempts()) {
            // Another node (or stack) that runs this actor will restart it. If none does, it waits
            // for one: said once per episode on this node and counted, so it is never silent.
            // its own name: every series of one name carries the same tag keys (Micrometer drops the others)
            telemetry.count("recovery_waiting_for_actor", "actor", o.actorId());
            if (waitingReported.add(o.id())) {
                if (waitingReported.size() > 10_000) {
                    waitingReported.clear();
                }
                LOG.warning(() -> "Episode " + o.id() + " (" + o.actorId() + "/" + o.expectationId() + ") is orphaned and"
                        + " restartable, but actor " + o.actorId() + " does not run in full mode on " + node
                        + "; it waits for a node that runs it (deploy or switch one to full)");
            }
            return Result.SKIPPED;
        }
        if (policy == RecoveryPolicy.RESTART && o.attempts() + 1 <= o.maxAttempts() && !versionHere(o)) {
            waitForVersion(o);
            return Result.SKIPPED;
        }
        Optional<HeldClaim> claim = claims.acquire(o.claimKey(), "recovery");
        if (claim.isEmpty()) {
            // A live lease: some node still runs it (a long step), or is restarting it right now.
            return Result.SKIPPED;
        }
        int won = tx.inNewTransaction(em -> store.claimForRecovery(em, o));
        if (won == 0) {
            // Another sweeper moved attempts on between our read and this update, or it finished.
            claims.complete(claim.get());
            return Result.SKIPPED;
        }
        int attempts = o.attempts() + 1;
        if (policy == RecoveryPolicy.RESTART && attempts <= o.maxAttempts()) {
            if (actors.recover(o.actorId(), o.expectationId(), o.id(), claim.get())) {
                LOG.info(() -> "Restarting episode " + o.id() + " (" + o.actorId() + "/" + o.expectationId() + ", attempt "
                        + attempts + " of " + o.maxAttempts() + ") on " + node);
                return Result.RESTARTED;
            }
            // The actor left this node between the check above and now: refund the attempt.
            tx.inNewTransaction(em -> store.unclaim(em, o.id(), o.phase()));
            claims.complete(claim.get());
            return Result.SKIPPED;
        }
        String reason = policy == RecoveryPolicy.RESTART
                ? "attempt " + attempts + " exceeds max attempts " + o.maxAttempts()
                : "recovery policy fail";
        int n = tx.inNewTransaction(em -> store.failOrphan(em, o.id(), node, reason));
        claims.fail(claim.get(), "orphaned: " + reason);
        if (n == 1) {
            finished.accept(new EpisodeFinished(o.id(), o.actorId(), o.expectationId(), "failed", "orphaned",
                    o.workflowInstanceId(), o.workflowStepId()));
            return Result.FAILED;
        }
        return Result.SKIPPED;
    }

    /**
     * Whether this node may resume the orphan with the code it deploys: the expectation version the
     * episode started with is the one here. An episode that ran no step of its strategy has no
     * checkpoint or journal for other code to misread (it starts from its trigger wherever it runs),
     * and an unversioned one (started before its expectation declared a version) resumes anywhere
     * its actor runs, as before versions existed.
     */
    private boolean versionHere(Orphan o) {
        return !o.ranSteps() || o.expectationVersion() == null
                || o.expectationVersion().equals(actors.expectationVersion(o.actorId(), o.expectationId()));
    }

    /**
     * A restartable orphan whose expectation version is not the one deployed here: resuming its
     * checkpoints on other code is not safe, so it waits for a node that deploys its version — said
     * on the episode (recovery_waiting, shown by the API and console: once per episode and node, so
     * an idle sweep writes nothing), in the log once, and counted each sweep.
     */
    private void waitForVersion(Orphan o) {
        String here = actors.expectationVersion(o.actorId(), o.expectationId());
        String reason = "waits for a node that deploys " + o.actorId() + "/" + o.expectationId() + " version "
                + o.expectationVersion() + " (" + node + " deploys " + (here == null ? "it unversioned" : "version " + here) + ")";
        telemetry.count("recovery_waiting_for_version", "actor", o.actorId());
        // per run of the episode: a node that resumed it and died leaves it waiting again, said again
        if (waitingReported.add(o.id() + "@attempt" + o.attempts())) {
            if (waitingReported.size() > 10_000) {
                waitingReported.clear();
            }
            tx.inNewTransaction(em -> store.markWaiting(em, o.id(), reason.length() > 512 ? reason.substring(0, 512) : reason));
            LOG.warning(() -> "Episode " + o.id() + " is orphaned and restartable, but it " + reason
                    + ": it is not resumed here, its checkpoints do not run on other code");
        }
    }

    /**
     * The policy recovery applies. An episode that ran no step of its strategy has no side effect a
     * second run could repeat — it waited in a queue that died, or its first write never reached the
     * database — so it is restarted whatever its policy: failing it would fail work that never ran,
     * on every crash and deploy. A workflow step's episode is restarted too: the workflow queues a
     * step again when the node running it died (its retries are for steps that failed on their own).
     * And an episode an operator ordered to go on (restarted, approved, its wait resolved) that no
     * node has taken up: resuming it is the order, not a guess after a crash. All are still bounded
     * by the episode's max attempts. Everything else: its declared policy.
     */
    RecoveryPolicy effectivePolicy(Orphan o) {
        if (!o.ranSteps() || o.workflowStepId() != null || RecoveryStore.RESUME_DUE.equals(o.phase())) {
            return RecoveryPolicy.RESTART;
        }
        return policyFor(o);
    }

    /** Compiled actor, else its definition row, else a host resolver, else fail. */
    RecoveryPolicy policyFor(Orphan o) {
        Optional<RecoveryPolicy> compiled = actors.compiledPolicy(o.actorId(), o.expectationId());
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
