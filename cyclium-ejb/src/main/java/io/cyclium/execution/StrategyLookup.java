package io.cyclium.execution;

import io.cyclium.episode.Strategy;

import io.cyclium.actor.ExpectationDefinition;
import java.util.Optional;

/** Finds the definition and strategy bean for an episode's (actor, expectation). */
public interface StrategyLookup {

    Optional<ExpectationDefinition> expectation(String actorId, String expectationId);

    Strategy<?> strategy(ExpectationDefinition expectation);
}
