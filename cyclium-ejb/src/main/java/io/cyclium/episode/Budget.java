package io.cyclium.episode;

import java.time.Duration;

/** Limits checked before every step: number of strategy turns and wall time of one run. */
public record Budget(int maxSteps, Duration maxWall) {

    public Budget {
        if (maxSteps < 1) {
            throw new IllegalArgumentException("maxSteps must be at least 1, was " + maxSteps);
        }
        if (maxWall == null || maxWall.isNegative() || maxWall.isZero()) {
            throw new IllegalArgumentException("maxWall must be positive, was " + maxWall);
        }
    }
}
