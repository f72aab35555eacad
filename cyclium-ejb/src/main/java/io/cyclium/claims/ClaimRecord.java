package io.cyclium.claims;

import java.time.LocalDateTime;
import java.util.Objects;

/**
 * One row of {@code cyclium_work_claims} as read. Times are UTC on the database's clock; they are
 * for display and diagnostics only, never for deciding whether a lease is live (the database
 * decides that in the statement itself).
 *
 * @param fence the ownership generation: 1 for a new claim, +1 on every takeover or re-claim,
 *     never decreasing
 * @param attempt 1 for a new claim or a re-claim after {@code done}; +1 on every steal and on a
 *     re-claim after {@code failed} or {@code expired}
 */
public record ClaimRecord(String key, ClaimState state, String owner, long fence, int attempt, String workType,
        LocalDateTime leaseUntil, LocalDateTime claimedAt) {

    public ClaimRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(owner, "owner");
    }
}
