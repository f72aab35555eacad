package io.cyclium.testing;

import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;

/** A trivial strategy: done at once, with the summary "ok". */
public final class DoneAtOnce implements Strategy<String> {

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
