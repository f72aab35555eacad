package io.cyclium.actor;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/** An actor after validation. {@code maxConcurrent} 0 means the node default. */
public record ActorDefinition(String id, Class<?> beanClass, int maxConcurrent, Overflow overflow, Set<String> stacks,
        String specRev, List<ExpectationDefinition> expectations) {

    public Optional<ExpectationDefinition> expectation(String expectationId) {
        return expectations.stream().filter(e -> e.id().equals(expectationId)).findFirst();
    }

    /** Whether this actor runs on a node of the given stack (no stacks declared: everywhere). */
    public boolean runsOnStack(String stackSlug) {
        return stacks.isEmpty() || (stackSlug != null && stacks.contains(stackSlug));
    }
}
