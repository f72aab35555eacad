package io.cyclium.actor;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a CDI bean as a Cyclium actor. Its {@link Expectation}s say what it watches and which
 * strategy runs. Declarations are checked when the application deploys: a bad cron, an unknown
 * strategy or a duplicate id fails the deployment with a message naming actor and expectation.
 *
 * <pre>{@code
 * @ApplicationScoped
 * @Actor(id = "resource_monitor")
 * @Expectation(id = "check_limits", strategy = LimitCheck.class,
 *              events = @OnEvent(type = "resource.updated"), every = "PT1H",
 *              recovery = RecoveryPolicy.RESTART)
 * public class ResourceMonitor { }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface Actor {

    /** Stable id stored on every episode; letters, digits, '_', '-' and '.'. */
    String id();

    /** Episodes of this actor running at once on one node; 0 = {@code cyclium.episode.max-concurrent-default}. */
    int maxConcurrentEpisodes() default 0;

    /**
     * Episodes of this actor running at once across the whole cluster (every node on the database);
     * 0 = no such limit. Enforced on the database: an episode takes a slot before it starts and
     * waits, stored and queued, while all are taken. Counts on top of {@link #maxConcurrentEpisodes}.
     */
    int clusterMaxConcurrentEpisodes() default 0;

    /**
     * Episodes of this actor that may start per {@link #ratePeriodMs}, cluster-wide (a token bucket on
     * the database clock: a burst of this many after a quiet period, then evenly spread); 0 = none.
     * The excess is stored and queued, never dropped, and starts when its token is due.
     */
    int rateLimit() default 0;

    /** The period of {@link #rateLimit}, in milliseconds. */
    long ratePeriodMs() default 1_000;

    /** What happens to a trigger when every slot is busy. */
    Overflow overflow() default Overflow.QUEUE;

    /** Stacks this actor runs on; empty = every stack. */
    String[] stacks() default {};

    /** Free-form revision stamped on episodes (e.g. a version of the actor's logic). */
    String specRev() default "";
}
