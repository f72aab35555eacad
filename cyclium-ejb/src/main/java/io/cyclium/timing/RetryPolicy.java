package io.cyclium.timing;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleSupplier;

/**
 * How a failed workflow step or episode is tried again: at most {@code maxAttempts} runs in all; the wait before
 * attempt n+1 is {@code initialDelay * multiplier^(n-1)}, capped at {@code maxDelay}, then moved by
 * up to {@code ±jitter} of itself (0..1) so a fleet of failed steps does not retry in lock step.
 * A failure whose error class is in {@code nonRetryable} never retries; neither does a canceled step.
 */
public record RetryPolicy(int maxAttempts, Duration initialDelay, double multiplier, Duration maxDelay, double jitter,
        Set<String> nonRetryable) {

    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, 1.0, Duration.ZERO, 0.0, Set.of());

    public RetryPolicy {
        nonRetryable = Set.copyOf(nonRetryable);
    }

    /** From an annotation's fields ({@code @Retry}, {@code @WorkflowStep}). */
    public static RetryPolicy of(int maxAttempts, long initialDelayMs, double multiplier, long maxDelayMs, double jitter,
            String[] nonRetryable) {
        return new RetryPolicy(maxAttempts, Duration.ofMillis(initialDelayMs), multiplier,
                Duration.ofMillis(maxDelayMs), jitter, Set.of(nonRetryable));
    }

    /** The delay before the attempt after {@code failedAttempt} (1-based), without jitter. */
    public Duration baseDelay(int failedAttempt) {
        double millis = initialDelay.toMillis() * Math.pow(multiplier, Math.max(0, failedAttempt - 1));
        long capped = maxDelay.isZero() ? (long) Math.min(millis, Long.MAX_VALUE / 2)
                : (long) Math.min(millis, maxDelay.toMillis());
        return Duration.ofMillis(capped);
    }

    /**
     * When the next attempt is due after attempt {@code failedAttempt} failed with {@code errorClass},
     * or empty when the step has no attempt left (or the error never retries).
     *
     * @param random a source of numbers in [0, 1) for the jitter
     */
    public Optional<Instant> nextAttempt(int failedAttempt, String errorClass, Instant now, DoubleSupplier random) {
        if (failedAttempt >= maxAttempts || "canceled".equals(errorClass)
                || (errorClass != null && nonRetryable.contains(errorClass))) {
            return Optional.empty();
        }
        long base = baseDelay(failedAttempt).toMillis();
        long spread = Math.round(base * jitter * (random.getAsDouble() * 2 - 1));
        return Optional.of(now.plusMillis(Math.max(0, base + spread)));
    }
}
