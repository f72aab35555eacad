package io.cyclium.servers.actors;

import io.cyclium.cluster.actors.LongWork;
import io.cyclium.episode.Convergence;
import io.cyclium.episode.StepContext;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The cluster tests' {@link LongWork} (units of work with a checkpoint after each, resumable)
 * without its output: that goes to an adapter with a datasource of its own, which the full-server
 * tests do not set up. Long enough to be running when a server stops.
 */
@ApplicationScoped
public class SlowSteps extends LongWork {

    @Override
    public Convergence converge(State s, StepContext context) {
        return Convergence.of("did " + s.done + " units");
    }
}
