package io.cyclium.demo;

import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.util.stream.Collectors;

/**
 * The demo review's steps, told apart by the step id the workflow engine puts in the payload
 * ({@code workflow.stepId}): collect lists the resources, analyse-&lt;resource&gt; compares its
 * usage with its limit (batch-worker's first attempt fails on purpose), advise sums up what the
 * analyses reported (their summaries arrive under {@code upstream}).
 */
@ApplicationScoped
public class ReviewStep implements Strategy<ReviewStep.State> {

    /** Checkpointed state: which step and attempt this episode runs. */
    public static class State {
        public String stepId;
        public int attempt;
        public String upstream;
    }

    @Inject
    DemoResources resources;

    @Override
    public Class<State> stateType() {
        return State.class;
    }

    @Override
    public State init(TriggerInfo trigger, StepContext context) {
        JsonObject wf = trigger.payload().getJsonObject("workflow");
        State s = new State();
        s.stepId = wf == null ? "collect" : wf.getString("stepId", "collect");
        s.attempt = wf == null ? 1 : wf.getInt("attempt", 1);
        JsonObject upstream = trigger.payload().getJsonObject("upstream");
        s.upstream = upstream == null ? "" : upstream.entrySet().stream()
                .map(e -> e.getValue().asJsonObject().getString("summary", e.getKey() + " " + e.getValue().asJsonObject()
                        .getString("state", "?")))
                .collect(Collectors.joining("; "));
        return s;
    }

    @Override
    public Step decide(State s, StepContext context) {
        if (s.stepId.equals("collect")) {
            return Step.done(resources.all().size() + " resources: "
                    + resources.all().stream().map(DemoResources.Resource::id).collect(Collectors.joining(", ")));
        }
        if (s.stepId.startsWith("analyse-")) {
            String id = s.stepId.substring("analyse-".length());
            if (id.equals("batch-worker") && s.attempt == 1) {
                throw new IllegalStateException("demo: the analysis of batch-worker fails its first attempt on purpose");
            }
            return Step.done(resources.find(id).map(r -> r.id() + " " + r.usage() + "/" + r.limit()
                    + (r.breached() ? " over its limit" : " ok")).orElse(id + " not found"));
        }
        return Step.done("advice from " + s.upstream);
    }
}
