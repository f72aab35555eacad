package io.cyclium.claims;

import io.cyclium.telemetry.Telemetry;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The claim gate on real leases: acquire through {@link WorkClaims}, keep every held claim in one
 * table the node's {@link Heartbeat} renews in a single statement per tick, and tell a task its
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
            WorkClaims.Acquisition a = claims.acquire(key, owner, leaseSeconds, workType);
            if (a instanceof WorkClaims.Acquired got) {
                HeldClaim claim = new HeldClaim(key, got.claim().fence(), false);
                held.put(key, claim);
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
        if (!claims.complete(claim.key(), owner)) {
            LOG.fine(() -> "Completing " + claim + ": no longer ours (taken over or released)");
        }
    }

    @Override
    public void fail(HeldClaim claim, String detail) {
        held.remove(claim.key(), claim);
        if (!claims.fail(claim.key(), owner, detail)) {
            LOG.fine(() -> "Failing " + claim + ": no longer ours (taken over or released)");
        }
    }

    @Override
    public void forget(HeldClaim claim) {
        held.remove(claim.key(), claim);
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
        int renewed = claims.renewAll(owner, leaseSeconds);
        if (renewed != held.size()) {
            reconcile();
        }
        telemetry.count("work_claims", "outcome", "renewed");
        return renewed;
    }

    private void reconcile() {
        Map<String, Long> live = new java.util.HashMap<>();
        for (ClaimRecord r : claims.ownedLive(owner)) {
            live.put(r.key(), r.fence());
        }
        for (HeldClaim claim : held.values()) {
            Long fence = live.get(claim.key());
            if (fence == null || fence != claim.fence()) {
                if (!claim.lost()) {
                    claim.markLost();
                    telemetry.count("work_claims", "outcome", "renew_failed");
                    LOG.warning(() -> "Lease " + claim + " is no longer held by " + owner
                            + ": its task stops before its next step and delivers nothing");
                }
                held.remove(claim.key(), claim);
            }
        }
        for (String key : live.keySet()) {
            if (!held.containsKey(key) && !pending.contains(key)) {
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
