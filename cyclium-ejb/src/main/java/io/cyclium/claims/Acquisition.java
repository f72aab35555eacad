package io.cyclium.claims;

import java.util.Objects;

/** The answer to {@link WorkClaims#acquire}: the claim is mine, or someone else holds a live lease. */
public sealed interface Acquisition {

    /**
     * The caller holds the claim at {@code claim.fence()}.
     *
     * @param takeover true when the previous holder never settled the claim: its lease lapsed and
     *     was stolen, or it was released ({@code expired}). Its work may have been half done.
     */
    record Acquired(ClaimRecord claim, boolean takeover) implements Acquisition {
        public Acquired {
            Objects.requireNonNull(claim, "claim");
        }
    }

    /**
     * Another acquirer holds a live lease, or won the race for this key just now. Normal: the
     * work runs elsewhere (or already ran), the caller does nothing.
     */
    record Busy(String key) implements Acquisition {
    }

    default boolean acquired() {
        return this instanceof Acquired;
    }
}
