package io.cyclium.cluster.actors;

import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonObject;

/** A workflow step that fails its first attempt (payload {@code workflow.attempt} 1) and is done on any later one. */
@ApplicationScoped
public class FailsFirstAttempt implements Strategy<String> {

    @Override
    public Class<String> stateType() {
        return String.class;
    }

    @Override
    public String init(TriggerInfo trigger, StepContext context) {
        JsonObject wf = trigger.payload().getJsonObject("workflow");
        return wf == null ? "1" : String.valueOf(wf.getInt("attempt", 1));
    }

    @Override
    public Step decide(String attempt, StepContext context) {
        if ("1".equals(attempt)) {
            throw new IllegalStateException("the first attempt fails on purpose");
        }
        return Step.done("attempt " + attempt + " worked");
    }
}
