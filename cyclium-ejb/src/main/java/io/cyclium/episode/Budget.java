package io.cyclium.episode;

import java.time.Duration;
import java.util.Optional;

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

    /** Why the next step may not run after {@code turns} turns and {@code elapsed} wall time; empty within budget. */
    public Optional<String> exhausted(int turns, Duration elapsed) {
        if (turns >= maxSteps) {
            return Optional.of("step budget of " + maxSteps + " used up");
        }
        if (elapsed.compareTo(maxWall) > 0) {
            return Optional.of("wall time budget of " + maxWall.toMillis() + " ms exceeded after " + elapsed.toMillis() + " ms");
        }
        return Optional.empty();
    }
}
