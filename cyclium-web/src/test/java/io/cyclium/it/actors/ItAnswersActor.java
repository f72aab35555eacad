package io.cyclium.it.actors;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The actor behind the tests of what {@code POST /events} answers: a subject that cools down for
 * ten minutes after an episode, and a subject debounced for one second.
 */
@ApplicationScoped
@Actor(id = "it_answers", maxConcurrentEpisodes = 20)
@Expectation(id = "cooled", strategy = ItStrategies.Echo.class, events = @OnEvent(type = "it.answers.cooled"),
        subjectKey = "subject", cooldownMs = 600_000)
@Expectation(id = "debounced", strategy = ItStrategies.Echo.class, events = @OnEvent(type = "it.answers.debounced"),
        subjectKey = "subject", debounceMs = 1_000)
public class ItAnswersActor {
}
