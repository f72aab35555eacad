package io.cyclium.claims;

import java.util.Optional;

/**
 * What an episode task needs from work claims: take the lease on its key, check it still owns it at
 * its fence before side effects, and settle it at the end. With claims disabled every call passes
 * through at no cost.
 */
public interface ClaimGate {

    /** The lease on {@code key}, or empty when another owner holds a live lease (busy). */
    Optional<HeldClaim> acquire(String key, String workType);

    /** Whether this node still holds {@code claim} at its fence (catches A → B → A). */
    boolean stillOwns(HeldClaim claim);

    void complete(HeldClaim claim);

    void fail(HeldClaim claim, String detail);

    /** Stops renewing a claim whose task ended without settling it (lost, or left for recovery). */
    default void forget(HeldClaim claim) {
    }
}
