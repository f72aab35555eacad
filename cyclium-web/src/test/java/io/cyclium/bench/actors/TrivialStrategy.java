package io.cyclium.bench.actors;

import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import jakarta.enterprise.context.ApplicationScoped;

/** Done at once: what is measured is the runtime's own cost per episode. */
@ApplicationScoped
public class TrivialStrategy implements Strategy<String> {

    @Override
    public Class<String> stateType() {
        return String.class;
    }

    @Override
    public String init(TriggerInfo trigger, StepContext context) {
        return "";
    }

    @Override
    public Step decide(String state, StepContext context) {
        return Step.done("ok");
    }
}
