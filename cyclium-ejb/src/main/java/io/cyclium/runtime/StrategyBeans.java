package io.cyclium.runtime;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.actor.ActorDiscovery;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.InvalidActorException;
import io.cyclium.episode.Strategy;
import io.cyclium.execution.StrategyLookup;
import jakarta.enterprise.inject.Instance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The strategy beans of the discovered actors. Every declared strategy (and concurrency key
 * function) must be a bean this module
 * can create: checked once at startup, so a missing scope annotation fails the deployment naming
 * actor and expectation instead of failing the first episode. Strategies hold no per-episode state
 * (it lives in the state object), so one instance serves every episode.
 */
final class StrategyBeans implements StrategyLookup {

    private final ActorDiscovery discovery;
    private final Instance<Object> beans;
    private final Map<Class<?>, Strategy<?>> strategies = new ConcurrentHashMap<>();

    StrategyBeans(ActorDiscovery discovery, Instance<Object> beans) {
        this.discovery = discovery;
        this.beans = beans;
    }

    void check() {
        List<String> problems = new ArrayList<>();
        for (ActorDefinition actor : discovery.definitions()) {
            for (ExpectationDefinition exp : actor.expectations()) {
                if (!beans.select(exp.strategy()).isResolvable()) {
                    problems.add("actor \"" + actor.id() + "\", expectation \"" + exp.id() + "\": strategy "
                            + exp.strategy().getName() + " is not a CDI bean (annotate it with a scope such as"
                            + " @ApplicationScoped or @Dependent)");
                }
                Class<?> keyFunction = exp.flow().keyFunction();
                if (keyFunction != null && !beans.select(keyFunction).isResolvable()) {
                    problems.add("actor \"" + actor.id() + "\", expectation \"" + exp.id() + "\": concurrencyKeyFunction "
                            + keyFunction.getName() + " is not a CDI bean (annotate it with a scope such as"
                            + " @ApplicationScoped or @Dependent)");
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidActorException("Invalid Cyclium actor declaration: " + String.join("; ", problems));
        }
    }

    @Override
    public Optional<ExpectationDefinition> expectation(String actorId, String expectationId) {
        return discovery.definitions().stream().filter(a -> a.id().equals(actorId)).findFirst()
                .flatMap(a -> a.expectation(expectationId));
    }

    @Override
    public Strategy<?> strategy(ExpectationDefinition expectation) {
        return strategies.computeIfAbsent(expectation.strategy(), c -> (Strategy<?>) beans.select(c).get());
    }
}
