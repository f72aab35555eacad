package io.cyclium.cluster.traced;

import io.cyclium.episode.Convergence;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.StepResult;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.output.LoggingOutputAdapter;
import io.cyclium.output.OutputProposal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import java.util.List;

/** Observes once ({@code look}), then converges with one output of the shipped {@code log} type. */
@ApplicationScoped
public class LookThenReport implements Strategy<LookThenReport.State> {

    public static class State {
        public boolean looked;
    }

    @Override
    public Class<State> stateType() {
        return State.class;
    }

    @Override
    public State init(TriggerInfo trigger, StepContext context) {
        return new State();
    }

    @Override
    public Step decide(State s, StepContext context) {
        return s.looked ? Step.converge() : Step.observe("look", ctx -> Json.createValue(1));
    }

    @Override
    public State onResult(State s, StepResult result, StepContext context) {
        s.looked = true;
        return s;
    }

    @Override
    public Convergence converge(State s, StepContext context) {
        return new Convergence(List.of(), List.of(OutputProposal.of(LoggingOutputAdapter.TYPE, "report",
                Json.createObjectBuilder().add("looked", s.looked).build())), "looked and reported");
    }
}
