package io.cyclium.claims;

import java.util.Locale;

/** The {@code state} column of {@code cyclium_work_claims}. */
public enum ClaimState {
    /** Held by {@code owner_node} until {@code lease_until}; after that it may be stolen in place. */
    CLAIMED,
    /** Settled by its owner; the key may be claimed again (attempt starts over at 1). */
    DONE,
    /** Settled as failed by its owner; claiming it again is a retry (attempt + 1). */
    FAILED,
    /** Given up by its owner without settling ({@link WorkClaims#releaseAll}); free to take over. */
    EXPIRED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ClaimState fromWire(String wire) {
        return valueOf(wire.trim().toUpperCase(Locale.ROOT));
    }
}
