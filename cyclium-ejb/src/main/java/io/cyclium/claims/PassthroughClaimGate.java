package io.cyclium.claims;

import jakarta.persistence.EntityManager;
import java.util.Optional;

/** Claims switched off: every gate opens, nothing is written. */
public final class PassthroughClaimGate implements ClaimGate {

    @Override
    public Optional<HeldClaim> acquire(String key, String workType) {
        return Optional.of(HeldClaim.passthrough(key));
    }

    @Override
    public boolean stillOwns(HeldClaim claim) {
        return true;
    }

    @Override
    public void complete(HeldClaim claim) {
    }

    @Override
    public void fail(HeldClaim claim, String detail) {
    }

    @Override
    public Optional<Boolean> settleIn(EntityManager em, HeldClaim claim, boolean success, String detail) {
        return Optional.of(true);
    }
}
