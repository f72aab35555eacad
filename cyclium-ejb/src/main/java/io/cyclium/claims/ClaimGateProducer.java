package io.cyclium.claims;

import io.cyclium.store.DatabaseVendor;

import io.cyclium.config.CycliumConfig;
import io.cyclium.node.NodeIdentity;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.Optional;

/**
 * The claim gate episode tasks, the sweep and the poller use: leases in the database when
 * {@code cyclium.work-claims.enabled=true} (the shipped default), otherwise a passthrough that
 * writes nothing.
 */
@ApplicationScoped
public class ClaimGateProducer {

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    Telemetry telemetry;

    @Inject
    jakarta.enterprise.event.Event<ClaimChanged> changes;

    private volatile ClaimOutcomeTally tally;
    private volatile JpaWorkClaims workClaims;
    private volatile LeasedClaimGate leased;
    private final ClaimGate passthrough = new PassthroughClaimGate();

    private synchronized void init() {
        if (workClaims == null) {
            tally = new ClaimOutcomeTally(telemetry, java.time.Instant.now());
            workClaims = new JpaWorkClaims(tx, vendor, tally);
            if (config.workClaimsEnabled()) {
                leased = new LeasedClaimGate(workClaims, identity.name(), config.leaseSeconds(), tally);
                leased.onChange(changes::fire);
            }
        }
    }

    @Produces
    public ClaimGate claimGate() {
        init();
        return leased != null ? leased : passthrough;
    }

    /** The leased gate, when claims are on. */
    public Optional<LeasedClaimGate> leased() {
        init();
        return Optional.ofNullable(leased);
    }

    /** This node's claim outcomes since the claim code was first used here. */
    public ClaimOutcomeTally outcomes() {
        init();
        return tally;
    }

    public JpaWorkClaims workClaims() {
        init();
        return workClaims;
    }
}
