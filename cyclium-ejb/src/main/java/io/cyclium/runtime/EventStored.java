package io.cyclium.runtime;

import io.cyclium.actor.CycliumEvent;

/**
 * Fired (as a CDI event) once a bus event has been routed to every matching expectation of this
 * node ({@link ActorHost#publish}), in the publisher's thread: workflows started by events listen to it.
 */
public record EventStored(CycliumEvent event) {
}
