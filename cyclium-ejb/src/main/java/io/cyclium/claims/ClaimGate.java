package io.cyclium.claims;

import jakarta.persistence.EntityManager;
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

    /**
     * For a brand-new episode this node will run at once: the first lease on its key, written in
     * the caller's transaction with the episode row, so the task needs no transaction to take it.
     * Empty when the key has a row already (the task acquires as usual) or the claims cannot join
     * the transaction. Until {@link #firstClaimSettled} the lease is pending: not yet renewed,
     * never taken for an orphan.
     */
    default Optional<HeldClaim> claimFirstIn(EntityManager em, String key, String workType) {
        return Optional.empty();
    }

    /** The transaction of {@link #claimFirstIn} ended: committed, the lease is held from now on. */
    default void firstClaimSettled(HeldClaim claim, boolean committed) {
    }

    /**
     * Settles the lease inside a task's terminal transaction ({@code success}: done, else failed
     * with {@code detail}), guarded by its fence. True: settled; false: the lease moved on and the
     * caller undoes its transaction; empty: these claims cannot join it (settle afterwards).
     * Bracket the transaction with {@link #settling} and {@link #settlingEnded}.
     */
    default Optional<Boolean> settleIn(EntityManager em, HeldClaim claim, boolean success, String detail) {
        return Optional.empty();
    }

    /** A settle transaction starts: the heartbeat no longer counts the lease as held (nor as an orphan). */
    default void settling(HeldClaim claim) {
    }

    /** The settle transaction ended, whichever way. */
    default void settlingEnded(HeldClaim claim) {
    }

    /**
     * A transaction bracketed by {@link #settling} committed without settling the lease (a wait
     * that a kept signal answered at once: the task goes on): it is held, and renewed, again.
     * Call it before {@link #settlingEnded}.
     */
    default void stillHeld(HeldClaim claim) {
    }
}
