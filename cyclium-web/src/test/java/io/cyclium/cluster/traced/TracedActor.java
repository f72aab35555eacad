package io.cyclium.cluster.traced;

import io.cyclium.actor.Actor;
import io.cyclium.actor.Expectation;
import io.cyclium.actor.OnEvent;
import jakarta.enterprise.context.ApplicationScoped;

/** An event's episode ({@code traced.work}) and the steps of {@link TracedFlow}, each observing once and reporting once. */
@ApplicationScoped
@Actor(id = "traced_actor")
@Expectation(id = "look", strategy = LookThenReport.class, events = @OnEvent(type = "traced.work"))
@Expectation(id = "step", strategy = LookThenReport.class)
public class TracedActor {
}
