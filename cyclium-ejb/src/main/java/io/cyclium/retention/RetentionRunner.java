package io.cyclium.retention;

import io.cyclium.audit.PendingAudit;
import io.cyclium.store.DatabaseVendor;

import io.cyclium.claims.Acquisition;
import io.cyclium.claims.ClaimGateProducer;
import io.cyclium.claims.ClaimRecord;
import io.cyclium.claims.WorkClaims;
import io.cyclium.config.CycliumConfig;
import io.cyclium.config.RetentionSettings;
import io.cyclium.node.DbClock;
import io.cyclium.node.NodeIdentity;
import io.cyclium.problem.Problem;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.batch.operations.JobOperator;
import jakarta.batch.runtime.BatchRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts the retention batch job, at most once per day across the cluster, and settles it.
 *
 * <p>Exclusion is the work claim {@code maintenance:retention:<date>} (the date on the database
 * clock): of nodes whose timers fire together one acquires it, the others get busy and do nothing.
 * The claim only orders runs that overlap in time; that the day's run happened is the run row with
 * the unique run_key {@code <date>}, so a settled claim re-acquired later the same day finds the
 * completed row and stops. A runner that dies leaves the row running and its lease lapses; the
 * next catch-up tick on any node takes the claim over and resumes the same run from each step's
 * checkpoint. Manual runs take the same claim (so they never overlap the day's run) under a run
 * key of their own.
 */
@ApplicationScoped
public class RetentionRunner {

    private static final Logger LOG = Logger.getLogger(RetentionRunner.class.getName());

    public static final String JOB = "cyclium-retention";
    public static final String CLAIM_PREFIX = "maintenance:retention:";
    static final String WORK_TYPE = "maintenance";

    /** What a request to run came to. */
    public sealed interface Start {
        /** This node runs it now (a resumed run too). */
        record Started(String runId, String runKey, long executionId, boolean resumed) implements Start {
        }

        /** The day's run has completed already. */
        record AlreadyDone(String runKey) implements Start {
        }

        /** Another run holds the claim (on {@code owner}). */
        record Busy(String claimKey, String owner) implements Start {
        }

        /** Before today's configured time (the timer only). */
        record NotDue(LocalDateTime dbNow) implements Start {
        }
    }

    /** A run this node drives: the claim it holds for it. */
    record HeldRun(String runId, String claimKey, long fence) {
    }

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    ClaimGateProducer claimGates;

    @Inject
    DbClock dbClock;

    @Inject
    Telemetry telemetry;

    private final Map<String, HeldRun> running = new ConcurrentHashMap<>();
    private volatile RetentionStore store;

    RetentionStore store() {
        RetentionStore s = store;
        if (s == null) {
            s = new RetentionStore(vendor);
            store = s;
        }
        return s;
    }

    /** This node's identity (the runner of what it starts). */
    public String node() {
        return identity.name();
    }

    public RetentionSettings settings() {
        return config.retention();
    }

    private WorkClaims claims() {
        return claimGates.workClaims();
    }

    /**
     * The timer's entry: runs (or resumes) today's run when the database clock is past
     * {@code cyclium.retention.daily-at} and the day's run has not completed.
     */
    public Start runDue() {
        LocalDateTime now = dbClock.now();
        if (now.toLocalTime().isBefore(settings().dailyAt())) {
            return new Start.NotDue(now);
        }
        LocalDate day = now.toLocalDate();
        String runKey = day.toString();
        Optional<RetentionQueries.Run> existing = tx.inNewTransaction(em -> new RetentionQueries().byKey(em, runKey));
        if (existing.isPresent() && existing.get().status().equals(RunStatus.COMPLETED.wire())) {
            return new Start.AlreadyDone(runKey);
        }
        return start(day, runKey, "timer", null);
    }

    /** Runs retention now (console, API): 409 while another run holds the day's claim. */
    public Start.Started runNow(String requestedBy) {
        LocalDate day = dbClock.now().toLocalDate();
        Start s = start(day, "manual:" + UUID.randomUUID(), "manual", requestedBy);
        if (s instanceof Start.Busy busy) {
            throw Problem.conflict("a retention run is in progress on node " + busy.owner() + " (claim " + busy.claimKey()
                    + "); try again when it has finished");
        }
        return (Start.Started) s;
    }

    // synchronized: the timer and a manual run may start on this node at once; one of them sees the
    // other's run in `running` (and the outside-held claim is registered by one caller at a time)
    private synchronized Start start(LocalDate day, String runKey, String trigger, String requestedBy) {
        String claimKey = CLAIM_PREFIX + day;
        if (running.values().stream().anyMatch(h -> h.claimKey().equals(claimKey))) {
            // This node drives a run under this claim already. Its lease may have lapsed for a
            // moment (a slow chunk, a short lease): acquiring now would steal it from ourselves and
            // start a second execution of the same run beside the first.
            return new Start.Busy(claimKey, identity.name());
        }
        // Registered before the acquire: the heartbeat renews all of this node's claims and fails
        // any that no episode task holds, which would end the run at its first chunk.
        holdOutside(claimKey);
        Acquisition a;
        try {
            a = claims().acquire(claimKey, identity.name(), config.leaseSeconds(), WORK_TYPE);
        } catch (RuntimeException e) {
            releaseOutside(claimKey);
            throw e;
        }
        if (!(a instanceof Acquisition.Acquired acquired)) {
            releaseOutside(claimKey);
            String owner = claims().find(claimKey).map(ClaimRecord::owner).orElse("?");
            LOG.fine(() -> "Retention " + runKey + ": claim " + claimKey + " is busy (held by " + owner + ")");
            return new Start.Busy(claimKey, owner);
        }
        long fence = acquired.claim().fence();
        String runId;
        boolean resumed;
        try {
            RetentionSettings s = settings();
            String newId = UUID.randomUUID().toString();
            boolean inserted = tx.inNewTransaction(em -> {
                boolean created = store().insertRun(em, newId, runKey, trigger, requestedBy, identity.name(), s.archiveAfter(),
                        s.purgeAfter());
                if (created) {
                    // an operator's run: the audit row commits with the run row
                    PendingAudit.subject(newId);
                    PendingAudit.detail(runKey);
                    PendingAudit.recordIn(em);
                }
                return created;
            });
            if (inserted) {
                runId = newId;
                resumed = false;
            } else {
                RetentionQueries.Run run = tx.inNewTransaction(em -> new RetentionQueries().byKey(em, runKey)).orElseThrow();
                if (run.status().equals(RunStatus.COMPLETED.wire())) {
                    // Completed between our read and the claim (or the claim was re-acquired after it settled).
                    settle(claimKey, true, null);
                    return new Start.AlreadyDone(runKey);
                }
                runId = run.id();
                if (tx.inNewTransaction(em -> store().resumeRun(em, run.id(), identity.name())) == 0) {
                    settle(claimKey, true, null);
                    return new Start.AlreadyDone(runKey);
                }
                resumed = true;
                LOG.info(() -> "Retention run " + runKey + " was left unfinished by " + run.node() + ": " + identity.name()
                        + " resumes it from each step's checkpoint");
            }
        } catch (RuntimeException e) {
            settle(claimKey, false, "retention run could not be recorded: " + e);
            throw e;
        }
        running.put(runId, new HeldRun(runId, claimKey, fence));
        try {
            Properties p = new Properties();
            p.setProperty("runId", runId);
            p.setProperty("chunkSize", String.valueOf(settings().chunkSize()));
            JobOperator operator = BatchRuntime.getJobOperator();
            long execution = operator.start(JOB, p);
            tx.run(em -> store().recordExecution(em, runId, execution));
            LOG.info(() -> "Retention run " + runKey + " (" + runId + ") started on " + identity.name() + " as batch execution "
                    + execution + (resumed ? " (resumed)" : ""));
            return new Start.Started(runId, runKey, execution, resumed);
        } catch (RuntimeException e) {
            running.remove(runId);
            tx.run(em -> store().finishRun(em, runId, identity.name(), RunStatus.FAILED, "the batch job did not start: " + e));
            settle(claimKey, false, "batch job did not start");
            telemetry.count("retention_runs", "outcome", "failed");
            throw e;
        }
    }

    /**
     * Before each chunk's write: this node must still hold the run's claim at its fence (a pause
     * longer than the lease lets another node take the run over); renews it for the next chunk.
     * Throws when it is gone, which fails the step before it writes.
     */
    void checkOwnership(String runId) {
        HeldRun held = running.get(runId);
        if (held == null) {
            throw new IllegalStateException("retention run " + runId + " is not driven by " + identity.name());
        }
        if (!holds(held)) {
            throw new IllegalStateException("retention run " + runId + ": " + identity.name() + " lost claim " + held.claimKey()
                    + " at fence " + held.fence() + "; the node that took it over continues the run");
        }
    }

    /**
     * Whether this node still holds the run's claim at the fence it acquired, renewing it. renew
     * first: a lease that lapsed (a slow chunk, a heartbeat late on a busy machine) but that nobody
     * took is still ours, and ownsAtFence alone would call it lost — and the next tick would then
     * take the run over from ourselves. Then the fence: a takeover by anyone moved it.
     */
    private boolean holds(HeldRun held) {
        return claims().renew(held.claimKey(), identity.name(), config.leaseSeconds())
                && claims().find(held.claimKey()).filter(r -> r.owner().equals(identity.name()) && r.fence() == held.fence())
                        .isPresent();
    }

    /** Completes or fails the run's claim and stops vouching for it to the heartbeat. */
    private void settle(String claimKey, boolean completed, String failure) {
        try {
            if (completed) {
                claims().complete(claimKey, identity.name());
            } else {
                claims().fail(claimKey, identity.name(), failure);
            }
        } finally {
            releaseOutside(claimKey);
        }
    }

    private void holdOutside(String claimKey) {
        claimGates.leased().ifPresent(g -> g.holdOutside(claimKey));
    }

    private void releaseOutside(String claimKey) {
        claimGates.leased().ifPresent(g -> g.releaseOutside(claimKey));
    }

    Duration window(RetentionStep step) {
        RetentionSettings s = settings();
        return switch (step) {
            case ARCHIVE_EPISODES -> s.archiveAfter();
            case PURGE_EPISODES -> s.purgeAfter().orElse(null);
            case PRUNE_CLAIMS -> s.claimsAfter();
            case PRUNE_TRIGGER_REQUESTS -> s.requestsAfter();
            case PRUNE_AUDIT -> s.auditAfter();
            // a bulk action's items name episodes: they go when the episodes they acted on may go
            case PRUNE_BULK_ACTIONS -> s.purgeAfter().orElse(null);
        };
    }

    /** The job listener's end: the run is completed when every step completed or was skipped. */
    void finished(String runId) {
        HeldRun held = running.remove(runId);
        if (held != null && !holds(held)) {
            releaseOutside(held.claimKey());
            // Taken over (this node paused past its lease): the run is the taker's to settle now.
            LOG.warning(() -> "Retention run " + runId + " on " + identity.name() + " ended after its claim " + held.claimKey()
                    + " moved on; the node that took it over settles the run");
            telemetry.count("retention_failed", "stage", "claim_lost");
            return;
        }
        try {
            RetentionQueries.Execution e = tx.inNewTransaction(em -> new RetentionQueries().execution(em, runId)).orElseThrow();
            boolean ok = e.steps().stream().allMatch(s -> s.status().equals(RunStatus.COMPLETED.wire())
                    || s.status().equals(RunStatus.SKIPPED.wire()));
            tx.run(em -> store().finishRun(em, runId, identity.name(), ok ? RunStatus.COMPLETED : RunStatus.FAILED,
                    ok ? null : "a step failed; see the server log of " + identity.name()));
            telemetry.count("retention_runs", "outcome", ok ? "completed" : "failed");
            LOG.info(() -> "Retention run " + e.run().runKey() + " " + (ok ? "completed" : "failed") + " on " + identity.name()
                    + ": " + e.steps());
            if (held != null) {
                settle(held.claimKey(), ok, "retention run " + runId + " failed");
            }
        } catch (RuntimeException ex) {
            if (held != null) {
                releaseOutside(held.claimKey());
            }
            LOG.log(Level.WARNING, "Settling retention run " + runId + " on " + identity.name() + " failed; its claim lapses"
                    + " after " + config.leaseSeconds() + " s and the next catch-up tick resumes the run", ex);
            telemetry.count("retention_failed", "stage", "settle");
        }
    }
}
