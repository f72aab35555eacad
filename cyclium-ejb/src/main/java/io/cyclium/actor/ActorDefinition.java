package io.cyclium.actor;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An actor after validation. {@code maxConcurrent} 0 means the node default (a limit per node);
 * {@code clusterMaxConcurrent} 0 means no limit across the cluster; {@code rateLimit} starts per
 * {@code ratePeriod} (0: none) cap how fast its episodes start, cluster-wide.
 */
public record ActorDefinition(String id, Class<?> beanClass, int maxConcurrent, Overflow overflow, Set<String> stacks,
        String specRev, List<ExpectationDefinition> expectations, int clusterMaxConcurrent, int rateLimit,
        java.time.Duration ratePeriod) {

    public ActorDefinition {
        ratePeriod = ratePeriod == null ? java.time.Duration.ZERO : ratePeriod;
    }

    /** Without a rate limit. */
    public ActorDefinition(String id, Class<?> beanClass, int maxConcurrent, Overflow overflow, Set<String> stacks,
            String specRev, List<ExpectationDefinition> expectations, int clusterMaxConcurrent) {
        this(id, beanClass, maxConcurrent, overflow, stacks, specRev, expectations, clusterMaxConcurrent, 0,
                java.time.Duration.ZERO);
    }

    /** Whether at most {@code rateLimit} of its episodes start per {@code ratePeriod}, cluster-wide. */
    public boolean rateLimited() {
        return rateLimit > 0 && ratePeriod.toMillis() > 0;
    }

    /** Whether the first start of an episode of {@code exp} takes a token of a rate limit. */
    public boolean rateLimited(ExpectationDefinition exp) {
        return rateLimited() || exp.flow().rateLimited();
    }

    /** Without a cluster-wide limit. */
    public ActorDefinition(String id, Class<?> beanClass, int maxConcurrent, Overflow overflow, Set<String> stacks,
            String specRev, List<ExpectationDefinition> expectations) {
        this(id, beanClass, maxConcurrent, overflow, stacks, specRev, expectations, 0);
    }

    /** Whether any of its episodes takes a slot of a cluster-wide limit (the actor's, or its expectation's key). */
    public boolean limited(ExpectationDefinition exp) {
        return clusterMaxConcurrent > 0 || exp.flow().limited();
    }

    /** Whether any expectation's queued episodes wait for a cluster-wide limit or start out of arrival order. */
    public boolean flowControlled() {
        return clusterMaxConcurrent > 0 || rateLimited() || expectations.stream().anyMatch(e -> e.flow().limited()
                || e.flow().prioritized() || e.flow().rateLimited());
    }

    public Optional<ExpectationDefinition> expectation(String expectationId) {
        return expectations.stream().filter(e -> e.id().equals(expectationId)).findFirst();
    }

    /** Whether this actor runs on a node of the given stack (no stacks declared: everywhere). */
    public boolean runsOnStack(String stackSlug) {
        return stacks.isEmpty() || (stackSlug != null && stacks.contains(stackSlug));
    }
}
