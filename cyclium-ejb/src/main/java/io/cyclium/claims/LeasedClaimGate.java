package io.cyclium.claims;

import jakarta.persistence.EntityManager;
import java.util.List;


import io.cyclium.telemetry.Telemetry;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The claim gate on real leases: acquire through {@link WorkClaims}, keep every held claim in one
 * table the node's heartbeat renews in a single statement per tick, and tell a task its
 * claim is gone when the heartbeat finds it taken.
 *
 * <p>A key is marked pending before its acquire and until it is registered, so a heartbeat tick
 * that runs in between never mistakes a brand-new lease for an orphan of this node.
 */
public final class LeasedClaimGate implements ClaimGate {

    private static final Logger LOG = Logger.getLogger(LeasedClaimGate.class.getName());

    private final WorkClaims claims;
    private final String owner;
    private final int leaseSeconds;
    private final Telemetry telemetry;
    private final Map<String, HeldClaim> held = new ConcurrentHashMap<>();
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    /** Keys other code of this node holds through {@link WorkClaims} directly and settles itself (a retention run). */
    private final Set<String> heldOutside = ConcurrentHashMap.newKeySet();
    /** Held leases the last audits found unused, with the number of audits in a row (heartbeat thread only). */
    private final Map<HeldClaim, Integer> unaccounted = new ConcurrentHashMap<>();
    private volatile boolean renewing = true;
    private volatile java.util.function.Consumer<ClaimChanged> changes = change -> { };

    public LeasedClaimGate(WorkClaims claims, String owner, int leaseSeconds, Telemetry telemetry) {
        this.claims = claims;
        this.owner = owner;
        this.leaseSeconds = leaseSeconds;
        this.telemetry = telemetry;
    }

    @Override
    public Optional<HeldClaim> acquire(String key, String workType) {
        pending.add(key);
        try {
            Acquisition a = claims.acquire(key, owner, leaseSeconds, workType);
            if (a instanceof Acquisition.Acquired got) {
                HeldClaim claim = new HeldClaim(key, got.claim().fence(), false);
                held.put(key, claim);
                announce(claim, got.takeover() ? "taken_over" : "acquired");
                return Optional.of(claim);
            }
            return Optional.empty();
        } finally {
            pending.remove(key);
        }
    }

    @Override
    public boolean stillOwns(HeldClaim claim) {
        return !claim.lost() && claims.ownsAtFence(claim.key(), owner, claim.fence());
    }

    @Override
    public void complete(HeldClaim claim) {
        held.remove(claim.key(), claim);
        // complete/fail are guarded by owner only: after A → B → A, this (first) run of A must not
        // settle the claim its second run holds. Only settle at our own fence.
        if (!claims.ownsAtFence(claim.key(), owner, claim.fence())) {
            LOG.fine(() -> "Not completing " + claim + ": the lease moved on");
            return;
        }
        if (!claims.complete(claim.key(), owner)) {
            LOG.fine(() -> "Completing " + claim + ": no longer ours (taken over or released)");
        } else {
            announce(claim, "completed");
        }
    }

    @Override
    public void fail(HeldClaim claim, String detail) {
        held.remove(claim.key(), claim);
        if (!claims.ownsAtFence(claim.key(), owner, claim.fence())) {
            LOG.fine(() -> "Not failing " + claim + ": the lease moved on");
            return;
        }
        if (!claims.fail(claim.key(), owner, detail)) {
            LOG.fine(() -> "Failing " + claim + ": no longer ours (taken over or released)");
        } else {
            announce(claim, "failed");
        }
    }

    @Override
    public void forget(HeldClaim claim) {
        held.remove(claim.key(), claim);
    }

    @Override
    public Optional<HeldClaim> claimFirstIn(EntityManager em, String key, String workType) {
        pending.add(key);
        boolean first = false;
        try {
            first = claims.claimFirstIn(em, key, owner, leaseSeconds, workType);
        } finally {
            // a statement that failed (the database went away) leaves nothing pending: a key left
            // here for ever would count as known, so its lease row — if the transaction did commit —
            // would be renewed by every tick and never failed as an orphan
            if (!first) {
                pending.remove(key);
            }
        }
        return first ? Optional.of(new HeldClaim(key, 1, false)) : Optional.empty();
    }

    @Override
    public void firstClaimSettled(HeldClaim claim, boolean committed) {
        // held before it stops being pending: a tick in between sees it one way or the other
        if (committed) {
            held.put(claim.key(), claim);
        }
        pending.remove(claim.key());
        if (committed) {
            announce(claim, "acquired");
        }
    }

    @Override
    public Optional<Boolean> settleIn(EntityManager em, HeldClaim claim, boolean success, String detail) {
        return claims.settleIn(em, claim.key(), owner, claim.fence(), success, detail);
    }

    /**
     * Out of the held table (a tick while the transaction runs must not take a lease settled
     * meanwhile for lost) and pending (nor the still-live row for an orphan to release).
     */
    @Override
    public void settling(HeldClaim claim) {
        pending.add(claim.key());
        held.remove(claim.key(), claim);
    }

    @Override
    public void stillHeld(HeldClaim claim) {
        // held before it stops being pending: a tick in between sees it one way or the other
        held.put(claim.key(), claim);
    }

    @Override
    public void settlingEnded(HeldClaim claim) {
        pending.remove(claim.key());
    }

    /**
     * Says that code outside the gate is about to acquire {@code key} for this node through
     * {@link WorkClaims} and will settle it itself (the retention runner, whose claim lives as long
     * as a batch job). Call it before the acquire, as {@link #acquire} marks its keys pending: the
     * heartbeat renews every live claim of this node in one statement and takes one that no task
     * holds for an orphan of a dead task and fails it — which failed the retention run's claim
     * within a second of its start, on every node that took the run over. While registered the
     * claim is renewed with the rest and never failed as an orphan; a takeover still moves its
     * fence, which its holder checks.
     */
    public void holdOutside(String key) {
        heldOutside.add(key);
    }

    /** The outside holder has settled {@code key} or given up on acquiring it. */
    public void releaseOutside(String key) {
        heldOutside.remove(key);
    }

    /** Who hears of each lease this gate takes, settles or loses (the producer fires them as CDI events). */
    public void onChange(java.util.function.Consumer<ClaimChanged> listener) {
        this.changes = listener == null ? change -> { } : listener;
    }

    /** Never fails the claim operation it reports: the lease is taken or settled whatever a listener does. */
    private void announce(HeldClaim claim, String change) {
        try {
            changes.accept(new ClaimChanged(claim.key(), owner, claim.fence(), change));
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "A listener of " + claim + " (" + change + ") failed", e);
        }
    }

    /** Registers a claim taken elsewhere on this node (the recovery sweep hands its claim over). */
    public void adopt(HeldClaim claim) {
        held.put(claim.key(), claim);
    }

    /**
     * One heartbeat: renew every live claim of this node in one statement; when fewer rows were
     * renewed than are held, find out which ones were lost (stolen after a pause, released by a
     * drain) and tell their tasks. Returns the number renewed.
     */
    public int renewAll() {
        if (!renewing) {
            return 0;
        }
        int heldBefore = held.size();
        int pendingBefore = pending.size();
        int renewed = claims.renewAll(owner, leaseSeconds);
        // Fewer rows than held: a lease may be lost. More than held, pending and held outside
        // together: a live row nobody here holds. In between, pending leases (taken, not yet
        // registered, or being settled) explain the difference, and the tick costs its one
        // statement only.
        if (renewed < Math.min(heldBefore, held.size())
                || renewed > Math.max(heldBefore, held.size()) + pendingBefore + pending.size() + heldOutside.size()) {
            reconcile();
        }
        return renewed; // counted per row by the claims themselves
    }

    private void reconcile() {
        // Judge only the claims held before the query: a lease a task acquires while the query runs
        // is not in its answer, and is not lost (the next tick sees it). Nor is one settled and
        // re-acquired meanwhile: the held map then has another claim for the key.
        List<HeldClaim> before = List.copyOf(held.values());
        // Likewise a key known here before the query (held, pending, held outside) is no orphan
        // even when it is known no more: its task settled it while the query ran, after the row
        // was read as live, and failing it would change nothing (the guard finds no live row)
        // but cost a statement. A task that died without settling leaves its key unknown to
        // every later reconcile, and the next tick's surplus count brings one on.
        Set<String> knownBefore = new java.util.HashSet<>(pending);
        before.forEach(claim -> knownBefore.add(claim.key()));
        knownBefore.addAll(heldOutside);
        Map<String, Long> live = new java.util.HashMap<>();
        for (ClaimRecord r : claims.ownedLive(owner)) {
            live.put(r.key(), r.fence());
        }
        for (HeldClaim claim : before) {
            if (held.get(claim.key()) != claim) {
                continue;
            }
            Long fence = live.get(claim.key());
            if (fence == null || fence != claim.fence()) {
                if (!claim.lost()) {
                    claim.markLost();
                    announce(claim, "lost");
                    telemetry.count("work_claims", "outcome", "renew_failed");
                    LOG.warning(() -> "Lease " + claim + " is no longer held by " + owner
                            + ": its task stops before its next step and delivers nothing");
                }
                held.remove(claim.key(), claim);
            }
        }
        for (String key : live.keySet()) {
            if (!knownBefore.contains(key) && !held.containsKey(key) && !pending.contains(key) && !heldOutside.contains(key)) {
                // A live lease nobody here runs (a task that died without settling it): let it
                // expire instead of renewing it forever.
                try {
                    claims.fail(key, owner, "orphaned on " + owner + ": no task holds it");
                } catch (RuntimeException e) {
                    LOG.log(Level.FINE, "Could not release orphan lease " + key, e);
                }
            }
        }
    }

    /**
     * The heartbeat's audit: a held lease that no task, queue entry or hand-over on this node has
     * accounted for on {@code ticksBeforeRelease} consecutive audits belongs to nobody (a hand-over
     * lost on some path nobody foresaw). Renewed for ever it would keep its episode from every
     * sweep in the cluster; released, its lease lapses and recovery takes the episode. The grace
     * covers the short windows where a lease is held by code that is not a task (the sweep between
     * its claim and the hand-over, the poller while it dispatches). Releasing a lease some code
     * still used costs at most a restart elsewhere: that code's fence check refuses its side effects.
     *
     * @return the number released
     */
    public int releaseUnaccounted(Set<HeldClaim> inUse, int ticksBeforeRelease) {
        int released = 0;
        unaccounted.keySet().removeIf(c -> held.get(c.key()) != c || inUse.contains(c));
        for (HeldClaim claim : held.values()) {
            if (inUse.contains(claim)) {
                continue;
            }
            int seen = unaccounted.merge(claim, 1, Integer::sum);
            if (seen >= ticksBeforeRelease) {
                unaccounted.remove(claim);
                LOG.warning(() -> "Lease " + claim + " held by " + owner + " for " + seen
                        + " heartbeats with no task, queue entry or hand-over using it: releasing it so recovery can run its work");
                telemetry.count("work_claims", "outcome", "released_unaccounted");
                fail(claim, "released by " + owner + ": no task held it");
                released++;
            }
        }
        return released;
    }

    /**
     * The drain calls this before it releases the node's leases: after it, no heartbeat may extend
     * a lease again (a flag on this object, not a call into another EJB, which some servers refuse
     * during shutdown).
     */
    public void stopRenewing() {
        renewing = false;
    }

    public int heldCount() {
        return held.size();
    }

    public String owner() {
        return owner;
    }

    public int leaseSeconds() {
        return leaseSeconds;
    }
}
