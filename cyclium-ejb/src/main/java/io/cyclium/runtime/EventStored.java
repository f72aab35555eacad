package io.cyclium.runtime;

import io.cyclium.actor.CycliumEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Fired (as a CDI event) once a bus event has been routed to every matching expectation of this
 * node ({@link ActorHost#publish}), in the publisher's thread and transaction: workflows started by
 * events listen to it and name what they did with {@link #matched}. An observer that cannot store
 * what it should throws: the publisher hears it (a 503, or the exception in host code).
 */
public record EventStored(CycliumEvent event, List<Match> matches) {

    public EventStored(CycliumEvent event) {
        this(event, new ArrayList<>());
    }

    /** An observer's match (a workflow started, or coalesced into an instance in flight). */
    public synchronized void matched(Match match) {
        matches.add(match);
    }
}
