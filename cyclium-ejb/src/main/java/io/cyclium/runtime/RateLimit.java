package io.cyclium.runtime;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * One cluster-wide rate limit an episode's first start must fit under: at most {@code starts} per
 * {@code period} for ({@code scope}, {@code key}), a token bucket of {@code starts} tokens refilled
 * evenly over the period (so a burst of {@code starts} is allowed after a quiet period). Scope is
 * "actor/expectation" for {@code @Expectation(rateLimit)}, the actor id for {@code @Actor(rateLimit)};
 * the key is {@value ConcurrencySlot#WHOLE_ACTOR}, or the episode's concurrency key for
 * {@code @Expectation(rateLimitPerKey = true)} (a bucket per key value).
 */
public record RateLimit(String scope, String key, int starts, Duration period) {

    public RateLimit {
        if (starts < 1 || period.toMillis() < 1) {
            throw new IllegalArgumentException("rate limit of " + scope + " must allow at least 1 start per at least 1 ms,"
                    + " not " + starts + " per " + period);
        }
    }

    static RateLimit ofExpectation(String actorId, String expectationId, int starts, Duration period) {
        return new RateLimit(actorId + "/" + expectationId, ConcurrencySlot.WHOLE_ACTOR, starts, period);
    }

    /** A bucket of its own per key value of the expectation ({@code @Expectation(rateLimitPerKey)}). */
    static RateLimit ofKey(String actorId, String expectationId, String key, int starts, Duration period) {
        return new RateLimit(actorId + "/" + expectationId, key, starts, period);
    }

    /** Whether this is one key's bucket among many of its scope (pruned when idle, see {@link RateStore}). */
    boolean perKey() {
        return !ConcurrencySlot.WHOLE_ACTOR.equals(key);
    }

    static RateLimit ofActor(String actorId, int starts, Duration period) {
        return new RateLimit(actorId, ConcurrencySlot.WHOLE_ACTOR, starts, period);
    }

    /** Tokens refilled per millisecond, as a plain SQL literal. */
    String perMilliLiteral() {
        return BigDecimal.valueOf((double) starts / period.toMillis()).toPlainString();
    }

    /** How an operator reads it: "rate of worker/work 10 per PT1S", "rate of worker/work key tenant-a 10 per PT1S". */
    public String describe() {
        return "rate of " + scope + (perKey() ? " key " + key : "") + " " + starts + " per " + period;
    }
}
