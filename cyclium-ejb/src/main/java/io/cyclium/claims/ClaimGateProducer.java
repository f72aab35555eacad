package io.cyclium.claims;

import io.cyclium.store.DatabaseVendor;

import io.cyclium.config.CycliumConfig;
import io.cyclium.node.NodeIdentity;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.config.InvalidConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.Optional;

/**
 * The claim gate episode tasks, the sweep and the poller use: leases in the database when
 * {@code cyclium.work-claims.enabled=true} (the shipped default), otherwise a passthrough that
 * writes nothing.
 *
 * <p>The leases come from a {@link WorkClaims} adapter: the shipped {@link JpaWorkClaims} unless the
 * application has a CDI bean of type {@link WorkClaims} (with several, the enabled
 * {@code @Alternative} of highest {@code @Priority} wins, as CDI resolves it). A replacement must
 * keep the contract in {@link WorkClaims}; it serves the episode tasks, the sweep, the heartbeat,
 * retention and the drain alike. Chosen once, at first use.
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

    /** The application's own adapter, if it has one (no bean of this type ships with Cyclium). */
    @Inject
    Instance<WorkClaims> replacements;
    @Inject
    jakarta.enterprise.event.Event<ClaimChanged> changes;

    private volatile ClaimOutcomeTally tally;
    private volatile WorkClaims workClaims;
    private volatile LeasedClaimGate leased;
    private final ClaimGate passthrough = new PassthroughClaimGate();

    private synchronized void init() {
        if (workClaims == null) {
            tally = new ClaimOutcomeTally(telemetry, java.time.Instant.now());
            workClaims = chooseAdapter();
            if (config.workClaimsEnabled()) {
                leased = new LeasedClaimGate(workClaims, identity.name(), config.leaseSeconds(), tally);
                leased.onChange(changes::fire);
            }
        }
    }

    private WorkClaims chooseAdapter() {
        if (replacements.isUnsatisfied()) {
            return new JpaWorkClaims(tx, vendor, tally);
        }
        if (replacements.isAmbiguous()) {
            throw new InvalidConfigurationException(java.util.List.of("More than one CDI bean implements " + WorkClaims.class.getName() + ": "
                    + replacements.handlesStream().map(h -> h.getBean().getBeanClass().getName()).toList()
                    + "; mark the one to use @Alternative with a @Priority, or remove the others"));
        }
        WorkClaims chosen = replacements.get();
        java.util.logging.Logger.getLogger(ClaimGateProducer.class.getName()).info(
                "Work claims come from the application's adapter " + chosen.getClass().getName());
        return chosen;
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

    /** The adapter in use: the application's replacement or the shipped {@link JpaWorkClaims}. */
    public WorkClaims workClaims() {
        init();
        return workClaims;
    }
}
