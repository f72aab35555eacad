package io.cyclium.actor;

import io.cyclium.episode.Strategy;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** One thing an actor expects to handle: its triggers, the strategy that runs, and its limits. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Repeatable(Expectations.class)
public @interface Expectation {

    /** Unique within the actor; letters, digits, '_', '-' and '.'. */
    String id();

    /** The strategy; must be a CDI bean. */
    @SuppressWarnings("rawtypes")
    Class<? extends Strategy> strategy();

    /** Event triggers. */
    OnEvent[] events() default {};

    /** Interval schedule as an ISO-8601 duration ({@code PT15M}, {@code PT1H}, {@code P1D}); dedupe buckets align to it. */
    String every() default "";

    /** 5-field cron in UTC, or a macro such as {@code @hourly}. */
    String cron() default "";

    /** Whether operators and host code may start it by hand. */
    boolean manual() default true;

    /** Trailing-edge coalescing of events per subject, in milliseconds; 0 = off. */
    long debounceMs() default 0;

    /** Minimum gap between two fires per subject, in milliseconds; 0 = off. */
    long cooldownMs() default 0;

    /** Payload field (dotted path) naming the subject for debounce and cooldown; empty = one subject. */
    String subjectKey() default "";

    RecoveryPolicy recovery() default RecoveryPolicy.FAIL;

    /** Runs of one episode (first run plus restarts) before recovery gives up. */
    int maxAttempts() default 3;

    /** Strategy turns allowed per run. */
    int maxSteps() default 50;

    /** Wall time allowed per run, in milliseconds. */
    long maxWallMs() default 120_000;

    /** Consecutive failed episodes that open the circuit breaker; 0 = no breaker. */
    int circuitBreakerThreshold() default 0;

    /** How long an open breaker rejects fires before letting one probe through, in milliseconds. */
    long circuitBreakerHalfOpenAfterMs() default 60_000;

    /**
     * Whether a failed episode is started again later as a new episode (persisted: the due time is
     * a column on the failed row); the default never retries.
     */
    Retry retry() default @Retry;

    /** Default time-to-live of findings this expectation raises, in seconds; 0 = none. */
    long findingTtlSeconds() default 0;

    /**
     * The version of this expectation's strategy and checkpoint format (letters, digits, '_', '-'
     * and '.', at most 64; empty = unversioned). Every episode records the version it started with;
     * recovery resumes an orphaned episode only on a node that deploys that same version, and
     * otherwise leaves it waiting, visibly, for one: raise it when a new strategy cannot continue
     * from an old one's checkpoints.
     */
    String version() default "";

    /**
     * Payload field (dotted path, an optional leading {@code $.}) whose value is this expectation's
     * concurrency key: with {@link #concurrencyLimit} at most that many of its episodes run at once
     * per key value across the whole cluster. Empty = no key. Queued work of other keys is not held
     * up by a key at its limit (the next start goes to the key that started least recently).
     */
    String concurrencyKey() default "";

    /**
     * A function of the trigger whose answer is this expectation's concurrency key, instead of a
     * payload path (not both): a CDI bean of the application, checked at startup. A null or blank
     * answer runs under the key "(none)"; one that throws is logged and counted, and the episode
     * runs under the key "(key function failed)". {@code ConcurrencyKeyFunction.class} = none.
     */
    Class<? extends ConcurrencyKeyFunction> concurrencyKeyFunction() default ConcurrencyKeyFunction.class;

    /**
     * Episodes running at once per {@link #concurrencyKey} value, cluster-wide; needs a key, at least
     * 1 (0 with a key only when the key serves {@link #rateLimitPerKey}).
     */
    int concurrencyLimit() default 0;

    /** Priority of this expectation's episodes in the queue (higher starts first); see {@link #priorityField}. */
    int priority() default 0;

    /**
     * Payload field (dotted path) holding an integer priority for the trigger, which overrides
     * {@link #priority} when present: an event's field, a manual start's payload, a workflow
     * step's input. Empty = only {@link #priority}.
     */
    String priorityField() default "";

    /**
     * Episodes of this expectation that may start per {@link #ratePeriodMs}, cluster-wide (a token
     * bucket on the database clock); 0 = none. The excess is stored and queued (never dropped) and
     * starts when its token is due; a restart of an episode that already started takes none.
     */
    int rateLimit() default 0;

    /** The period of {@link #rateLimit}, in milliseconds. */
    long ratePeriodMs() default 1_000;

    /**
     * Whether {@link #rateLimit} holds per value of the concurrency key (a token bucket per key,
     * cluster-wide) rather than once for the whole expectation; needs a key and a rate limit.
     */
    boolean rateLimitPerKey() default false;
}
