package io.cyclium.execution;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.episode.Strategy;
import java.util.Optional;

/** A node that declares one expectation, run by one strategy instance: what a test's task looks up. */
public record OneStrategy(ExpectationDefinition declared, Strategy<?> runs) implements StrategyLookup {

    @Override
    public Optional<ExpectationDefinition> expectation(String actorId, String expectationId) {
        return Optional.of(declared);
    }

    @Override
    public Strategy<?> strategy(ExpectationDefinition e) {
        return runs;
    }
}
