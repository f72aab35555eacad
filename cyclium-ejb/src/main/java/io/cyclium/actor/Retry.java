package io.cyclium.actor;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How a failed episode of an {@link Expectation} is started again as a new episode (the same policy
 * as a workflow step's, see {@link io.cyclium.timing.RetryPolicy}). Only failures retry: a canceled
 * or denied episode, or one whose error class is in {@link #nonRetryable}, ends for good. The default,
 * {@code maxAttempts = 1}, never retries.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({})
public @interface Retry {

    /** Episodes in all (the first plus its retries); 1 = no retry. */
    int maxAttempts() default 1;

    long initialDelayMs() default 1_000;

    double multiplier() default 2.0;

    /** Cap on one wait, in milliseconds; 0 = no cap. */
    long maxDelayMs() default 300_000;

    /** 0..1: each wait moves by up to this fraction of itself. */
    double jitter() default 0.0;

    /** Error classes that never retry ({@code canceled} and {@code denied} never do anyway). */
    String[] nonRetryable() default {};
}
