package io.cyclium.cluster.actors;

import io.cyclium.episode.Convergence;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.StepResult;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.output.OutputProposal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import java.util.List;

/**
 * {@code steps} units of work of {@code stepMs} each, a checkpoint after every unit, then one
 * output. A restart continues after the last checkpoint.
 */
@ApplicationScoped
public class LongWork implements Strategy<LongWork.State> {

    public static class State {
        public int total;
        public int stepMs;
        public int done;
        public boolean unsaved;
        /** The output type: {@link DeliveryLog} unless the trigger's payload names another ({@code "output"}). */
        public String output;
    }

    @Override
    public Class<State> stateType() {
        return State.class;
    }

    @Override
    public State init(TriggerInfo trigger, StepContext context) {
        State s = new State();
        s.total = trigger.payload().getInt("steps", 10);
        s.stepMs = trigger.payload().getInt("stepMs", 500);
        s.output = trigger.payload().getString("output", DeliveryLog.TYPE);
        return s;
    }

    @Override
    public Step decide(State s, StepContext context) {
        if (s.unsaved) {
            return Step.checkpoint("after-" + s.done);
        }
        if (s.done < s.total) {
            return Step.observe("work-" + (s.done + 1), ctx -> {
                Thread.sleep(s.stepMs);
                return Json.createValue(s.done + 1);
            });
        }
        return Step.converge();
    }

    @Override
    public State onResult(State s, StepResult result, StepContext context) {
        if ("observed".equals(result.kind())) {
            s.done++;
            s.unsaved = true;
        } else if ("checkpointed".equals(result.kind())) {
            s.unsaved = false;
        }
        return s;
    }

    @Override
    public Convergence converge(State s, StepContext context) {
        return new Convergence(List.of(), List.of(OutputProposal.of(s.output == null ? DeliveryLog.TYPE : s.output, "result",
                Json.createObjectBuilder().add("units", s.done).build())), "did " + s.done + " units");
    }
}
