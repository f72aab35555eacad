package io.cyclium.claims;

import java.util.Objects;

/** The argument checks every {@link WorkClaims} shares: the column widths of cyclium_work_claims. */
final class ClaimArguments {

    private static final int MAX_KEY = 512;
    private static final int MAX_OWNER = 255;
    private static final int MAX_WORK_TYPE = 64;

    private ClaimArguments() {
    }

    static void checkClaim(String key, String owner) {
        checkLength("key", key, MAX_KEY);
        checkOwner(owner);
    }

    static void checkOwner(String owner) {
        checkLength("owner", owner, MAX_OWNER);
    }

    static void checkWorkType(String workType) {
        checkLength("workType", workType, MAX_WORK_TYPE);
    }

    static void checkLease(int leaseSeconds) {
        if (leaseSeconds < 1) {
            throw new IllegalArgumentException("leaseSeconds must be at least 1, was " + leaseSeconds);
        }
    }

    static void checkLimit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
    }

    private static void checkLength(String what, String value, int max) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty() || value.length() > max) {
            throw new IllegalArgumentException(what + " must have 1 to " + max + " characters, had " + value.length());
        }
    }
}
