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
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.List;

/**
 * Sleeps {@code sleepMs}; then, when the payload names a {@code signal}, waits for it (at most
 * {@code timeoutMs}); then delivers one output saying how it ended: what the signal carried, or
 * {@code "timed_out"} — to {@link DeliveryLog}, or to the adapter type the payload's {@code output}
 * names (the chaos suite's {@link ChaosLedger}: a run killed between the adapter's return and
 * recording the delivery is delivered again under the same key, which an appending log would count
 * twice).
 */
@ApplicationScoped
public class Sleeper implements Strategy<Sleeper.State> {

    public static class State {
        public long sleepMs;
        public String signal;
        public long timeoutMs;
        public boolean slept;
        public boolean waited;
        public String outcome;
        public String output;
    }

    @Override
    public Class<State> stateType() {
        return State.class;
    }

    @Override
    public State init(TriggerInfo trigger, StepContext context) {
        State s = new State();
        s.sleepMs = trigger.payload().getJsonNumber("sleepMs").longValue();
        s.signal = trigger.payload().getString("signal", null);
        s.output = trigger.payload().getString("output", DeliveryLog.TYPE);
        s.timeoutMs = trigger.payload().containsKey("timeoutMs") ? trigger.payload().getJsonNumber("timeoutMs").longValue() : 600_000;
        return s;
    }

    @Override
    public Step decide(State s, StepContext context) {
        if (!s.slept) {
            return Step.sleep(Duration.ofMillis(s.sleepMs));
        }
        if (s.signal != null && !s.waited) {
            return Step.waitFor(s.signal, Duration.ofMillis(s.timeoutMs));
        }
        return Step.converge();
    }

    @Override
    public State onResult(State s, StepResult result, StepContext context) {
        if (result.slept()) {
            s.slept = true;
        } else if (result.timedOut()) {
            s.waited = true;
            s.outcome = "timed_out";
        } else if ("wait_resolved".equals(result.kind())) {
            s.waited = true;
            s.outcome = result.value() == null ? "null" : result.value().toString();
        }
        return s;
    }

    @Override
    public Convergence converge(State s, StepContext context) {
        return new Convergence(List.of(), List.of(OutputProposal.of(s.output == null ? DeliveryLog.TYPE : s.output, "result",
                Json.createObjectBuilder().add("outcome", s.outcome == null ? JsonValue.NULL : Json.createValue(s.outcome))
                        .build())), s.outcome == null ? "slept" : "waited: " + s.outcome);
    }
}
