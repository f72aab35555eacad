package io.cyclium.workflow;

import io.cyclium.timing.RetryPolicy;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** One step of a {@link Workflow}: see {@link StepDefinition} and {@link RetryPolicy}. */
@Retention(RetentionPolicy.RUNTIME)
@Target({})
public @interface WorkflowStep {

    String id();

    String actor();

    String expectation();

    String[] dependsOn() default {};

    boolean critical() default true;

    boolean approval() default false;

    /** A signal gate: the step starts only once a signal of this name arrived for its instance (empty: none). */
    String signal() default "";

    FailurePolicy onFailure() default FailurePolicy.ABORT;

    int maxAttempts() default 1;

    long initialDelayMs() default 1_000;

    double multiplier() default 2.0;

    long maxDelayMs() default 300_000;

    double jitter() default 0.0;

    String[] nonRetryable() default {};

    /** The step episode's priority among its actor's queued work (higher first); 0 = its expectation's. */
    int priority() default 0;

    /**
     * The step's own concurrency key: a payload path read on the step's input (the instance's
     * payload plus "workflow" and "upstream"), e.g. {@code $.tenant}; with {@link #concurrencyLimit}
     * at most that many of this step's episodes run at once per key value, cluster-wide, besides any
     * limit its expectation declares. Empty = none.
     */
    String concurrencyKey() default "";

    /** Episodes of this step running at once per {@link #concurrencyKey} value; needs a key, at least 1. */
    int concurrencyLimit() default 0;
}
