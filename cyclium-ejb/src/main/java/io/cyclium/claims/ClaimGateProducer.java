package io.cyclium.claims;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

/**
 * The claim gate episode tasks use. Work claims on the database arrive with the claims issue;
 * until then every gate passes through (as with {@code cyclium.work-claims.enabled=false}).
 */
@ApplicationScoped
public class ClaimGateProducer {

    private final ClaimGate passthrough = new PassthroughClaimGate();

    @Produces
    public ClaimGate claimGate() {
        return passthrough;
    }
}
